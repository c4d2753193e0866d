import { unwrap } from '@carta/client';
import { diffText, paletteFor } from './diff-text.js';
import { client, defaultTerminal, type Terminal } from './integrator.js';
import { printJson as json, table } from './table.js';
import { formatLocal } from './venue-time.js';

// The publication history commands, over HTTP with CARTA_URL and CARTA_API_KEY like
// the other integrator commands: `carta publications` (the kept publications, times in the venue's
// timezone), `carta diff [from] [to]` and `carta restore <id> [--publish]`.

/** `carta publications`: one page of the kept publications, newest first. */
export async function listPublications(
  options: { page?: number; limit?: number; json?: boolean },
  term: Terminal = defaultTerminal(),
): Promise<number> {
  const carta = client();
  const query = {
    ...(options.page === undefined ? {} : { page: options.page }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  };
  const [list, { timezone }] = await Promise.all([carta.listPublications(query), unwrap(carta.api.GET('/v1/settings'))]);
  if (options.json) {
    json(term, list);
    return 0;
  }
  if (list.total === 0) {
    term.out.write('no publications yet (carta push --publish, or POST /v1/publish)\n');
    return 0;
  }
  const now = Date.now();
  const rows = list.items.map((p) => [
    p.id,
    formatLocal(Date.parse(p.publishedAt), timezone, now),
    String(p.counts.categories),
    String(p.counts.ingredients),
    String(p.counts.products),
    p.restoredFrom ?? '-',
  ]);
  const heading = `publications, newest first (times in ${timezone}): page ${list.page} of ${list.totalPages}, ${list.total} kept`;
  const body =
    rows.length === 0
      ? '(no publications on this page)'
      : table([['ID', 'PUBLISHED', 'CATEGORIES', 'INGREDIENTS', 'PRODUCTS', 'RESTORED FROM'], ...rows]);
  term.out.write(`${heading}\n${body}\n`);
  return 0;
}

/** `carta diff [from] [to]`: what changes from one menu to another (defaults: published to draft). */
export async function diffMenus(
  from: string | undefined,
  to: string | undefined,
  options: { json?: boolean },
  term: Terminal = defaultTerminal(),
): Promise<number> {
  const diff = await client().diffMenus({ from, to });
  if (options.json) {
    json(term, diff);
    return 0;
  }
  term.out.write(`${diffText(diff, paletteFor(term.out))}\n`);
  return 0;
}

/** `carta restore <id> [--publish]`: the draft becomes that publication in one transaction, published or not. */
export async function restorePublication(
  id: string,
  options: { publish?: boolean; json?: boolean },
  term: Terminal = defaultTerminal(),
): Promise<number> {
  const result = await client().restorePublication(id, { publish: options.publish === true });
  if (options.json) {
    json(term, result);
    return 0;
  }
  const { categories, ingredients, products } = result.counts;
  term.out.write(
    `restored ${result.restoredFrom} into the draft: ${categories} categories, ${ingredients} ingredients, ${products} products\n`,
  );
  term.out.write(
    result.publicationId === null
      ? `not published: carta diff published draft shows what a publish would change; carta restore ${id} --publish publishes it\n`
      : `published ${result.publicationId} (restored from ${result.restoredFrom})\n`,
  );
  return 0;
}
