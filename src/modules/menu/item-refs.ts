// Menu items named by ref (an externalId, else an opaque id), for the modules that name them so:
// PUT /v1/availability. One rule with /v1/products/:ref: when a ref is one row's id and another's
// externalId, the id match wins.
import type { Queryable } from '../../db/port.js';
import { isUuid } from '../../ids.js';
import { findByRefs } from './menu.repository.js';

export interface ItemKey {
  id: string;
  external_id: string | null;
}

/** The draft items the refs name, by ref (a ref naming nothing is absent); one statement. */
export async function findItemKeysByRefs(
  db: Queryable,
  venueId: string,
  table: 'products' | 'ingredients',
  refs: string[],
): Promise<Map<string, ItemKey>> {
  const unique = [...new Set(refs)];
  const rows = await findByRefs<ItemKey>(db, venueId, table, unique, unique.filter(isUuid), { keysOnly: true });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byExternalId = new Map(rows.filter((r) => r.external_id !== null).map((r) => [r.external_id as string, r]));
  const found = new Map<string, ItemKey>();
  for (const ref of unique) {
    const row = byId.get(ref) ?? byExternalId.get(ref);
    if (row) found.set(ref, row);
  }
  return found;
}
