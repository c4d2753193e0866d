import fs from 'node:fs';
import { createCartaClient, type CartaClient, type Order, type SyncCatalogResult, type SyncMenu, type SyncProgress } from '@carta/client';
import { loadIntegratorConfig } from '../config.js';
import { formatMoney } from '../shared/money.js';
import { menuToSyncInput } from '../modules/menu/menu-export.js';
import { VERSION } from '../version.js';
import { dryRunChangesText, paletteFor } from './diff-text.js';

// The integrator commands: `carta push`, `carta pull` and `carta orders tail` (and the service-day
// commands of ./availability.ts, the publication history ones of ./publications.ts) talk to a
// running Carta over HTTP with an API key (CARTA_URL, CARTA_API_KEY), through @carta/client, as any
// integration would. Results go to stdout; progress and notices to stderr, so output pipes cleanly.

export interface Terminal {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream & { isTTY?: boolean };
}

export const defaultTerminal = (): Terminal => ({ out: process.stdout, err: process.stderr });

/** The client of CARTA_URL with CARTA_API_KEY (a ConfigError when the key is not set). */
export function client(): CartaClient {
  const { url, apiKey } = loadIntegratorConfig();
  return createCartaClient({ baseUrl: url, apiKey, userAgent: `carta-cli/${VERSION}` });
}

const SECTIONS = ['categories', 'ingredients', 'products'] as const;

function counts(result: SyncCatalogResult): string {
  return SECTIONS.map((s) => `${s} ${result[s].created} created, ${result[s].updated} updated, ${result[s].skipped} skipped`).join('; ');
}

/** One line per request when stderr is not a terminal; a bar redrawn in place when it is. */
function progressPrinter(err: Terminal['err']): { update(p: SyncProgress): void; done(): void } {
  const width = 24;
  return {
    update(p) {
      const totals = SECTIONS.reduce((n, s) => n + p.result[s].created + p.result[s].updated + p.result[s].skipped, 0);
      const text = `request ${p.requestsDone}/${p.requestsTotal}: ${totals} items (${counts(p.result)})`;
      if (!err.isTTY) {
        // Plain lines (a log, a CI job): one per request answered, none for the start.
        if (p.requestsDone > 0) err.write(`${text}\n`);
        return;
      }
      const filled = Math.round((p.requestsDone / Math.max(1, p.requestsTotal)) * width);
      err.write(`\r\x1b[2K[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}`);
    },
    done() {
      if (err.isTTY) err.write('\n');
    },
  };
}

function readMenuFile(file: string): SyncMenu {
  const text = file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
  let menu: unknown;
  try {
    menu = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (menu === null || typeof menu !== 'object' || Array.isArray(menu)) {
    throw new Error(`${file} must hold a JSON object with categories, ingredients and products (the POST /v1/sync body)`);
  }
  return menu as SyncMenu;
}

/**
 * `carta push menu.json`: any size of catalogue, in requests within the caps; per-item errors
 * printed; exit code 1 when any item failed (nothing is published then). A dry run also prints
 * each item it would create or update, with the fields an update changes.
 */
export async function push(
  file: string,
  options: { dryRun?: boolean; publish?: boolean },
  term: Terminal = defaultTerminal(),
): Promise<number> {
  if (options.dryRun && options.publish) throw new Error('--publish cannot be combined with --dry-run');
  const menu = readMenuFile(file);
  const carta = client();
  const progress = progressPrinter(term.err);
  const result = await carta.syncCatalog(menu, { dryRun: options.dryRun, onProgress: (p) => progress.update(p) });
  progress.done();
  const errors = SECTIONS.flatMap((s) => result[s].errors);
  const warnings = [...result.warnings, ...SECTIONS.flatMap((s) => result[s].warnings)];
  term.out.write(`${options.dryRun ? 'dry run: ' : ''}${counts(result)} (${result.requests} request${result.requests === 1 ? '' : 's'})\n`);
  const changes = options.dryRun ? dryRunChangesText(result, paletteFor(term.out)) : '';
  if (changes !== '') term.out.write(`${changes}\n`);
  for (const w of warnings) term.out.write(`warning: ${w}\n`);
  for (const e of errors) term.out.write(`error: ${e}\n`);
  if (errors.length > 0) {
    term.err.write(`${errors.length} item${errors.length === 1 ? '' : 's'} failed${options.publish ? '; not published' : ''}\n`);
    return 1;
  }
  if (options.publish) {
    const published = await carta.publish();
    term.out.write(`published ${published.publicationId} at ${published.publishedAt}\n`);
  }
  return 0;
}

/** `carta pull`: the draft menu in the sync format, on stdout. */
export async function pull(term: Terminal = defaultTerminal()): Promise<number> {
  const menu = await client().getMenu({ version: 'draft' });
  const { body, omitted } = menuToSyncInput(menu);
  for (const s of SECTIONS) {
    if (omitted[s] > 0) term.err.write(`note: ${omitted[s]} ${s} made without an externalId are left out (a sync cannot name them)\n`);
  }
  term.out.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}

/** Minor units in the currency's ISO digits (EUR 1250 -> €12.50, CLP 1250 -> CLP 1,250). */
function money(minor: number, currency: string): string {
  return formatMoney(minor, currency, 'en');
}

function orderLine(order: Order): string {
  return `${order.updatedAt}  #${order.orderNumber}  ${order.status.padEnd(10)} ${order.type.padEnd(9)} ${money(order.totalAmount, order.currency).padStart(10)}  ${order.id}`;
}

/** `carta orders tail`: new and changed orders as they arrive, until interrupted. */
export async function tailOrders(
  options: { since?: string; json?: boolean; intervalMs?: number; signal?: AbortSignal },
  term: Terminal = defaultTerminal(),
): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await client().pollOrders({
      since: options.since,
      intervalMs: options.intervalMs,
      signal: controller.signal,
      onOrder: (order) => {
        term.out.write(options.json ? `${JSON.stringify(order)}\n` : `${orderLine(order)}\n`);
      },
    });
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
  return 0;
}
