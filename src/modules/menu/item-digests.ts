import { createHash } from 'node:crypto';
import { remember } from '../../lru.js';
import { nextTurn } from '../../next-turn.js';
import type { SyncInput } from './menu.schemas.js';

const SECTIONS = ['categories', 'ingredients', 'products'] as const;
type Digests = Record<(typeof SECTIONS)[number], string[]>;

const sha1 = (text: string) => createHash('sha1').update(text).digest('base64url');

/** Items serialised and hashed per turn: the largest sync's 500 products took 40-50 ms at once. */
const ITEMS_PER_TURN = 100;

async function digestAll(items: readonly object[] | undefined): Promise<string[]> {
  const out: string[] = [];
  for (const item of items ?? []) {
    if (out.length > 0 && out.length % ITEMS_PER_TURN === 0) await nextTurn();
    out.push(sha1(JSON.stringify(item)));
  }
  return out;
}

/**
 * The sha1 of each sync item's JSON: what sync hashes are made of (sync.planner.ts). Serialising
 * and hashing a 1.2 MB catalogue item by item is most of an all-skipped re-sync, and integrations
 * typically re-send the same catalogue: the digests of a body are kept under the digest of its
 * raw bytes (sha256), so an identical body reuses them. Identical bytes parse to identical items, in the
 * same positions, so a kept digest is always the one the item would get. (Plain JSON key order is
 * enough: a client sends its keys in the same order; another order only costs a full read of
 * that row, never a wrong skip.)
 */
export class ItemDigestCache {
  private readonly entries = new Map<string, Digests>();

  constructor(private readonly maxEntries = 64) {}

  /** Digests of every item of `input`, looked up by item; `bodyDigest` names the raw body, if known. */
  async digestsOf(input: SyncInput, bodyDigest: string | undefined): Promise<(item: object) => string> {
    const kept = bodyDigest ? this.entries.get(bodyDigest) : undefined;
    let digests: Digests;
    if (kept && SECTIONS.every((s) => kept[s].length === (input[s]?.length ?? 0))) digests = kept;
    else {
      digests = {
        categories: await digestAll(input.categories),
        ingredients: await digestAll(input.ingredients),
        products: await digestAll(input.products),
      };
      if (bodyDigest) remember(this.entries, bodyDigest, digests, this.maxEntries);
    }
    const byItem = new Map<object, string>();
    for (const section of SECTIONS) (input[section] ?? []).forEach((item, i) => byItem.set(item, digests[section][i]));
    return (item) => {
      const digest = byItem.get(item);
      if (digest === undefined) throw new Error('digest asked for an item outside the request');
      return digest;
    };
  }
}
