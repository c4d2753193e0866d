// SQL shared by the three merchandising tables (banners, promotions, venue_tables): each is keyed
// by (venue_id, id), carries an optional external_id unique per venue, and bumps `revision` and
// `updated_at` on every change. Table and column names come from this code, never from a request.
import type { Queryable } from '../../db/port.js';
import { isUuid } from '../../ids.js';

export type MerchTable = 'banners' | 'promotions' | 'venue_tables';
/** Tables keyed by (venue_id, id) that the plain reads and the delete below serve too. */
export type KeyedTable = MerchTable | 'webhook_endpoints';

/** Columns stored as jsonb: their values are sent as JSON text and cast. */
const JSONB = new Set(['translations', 'image']);

const param = (column: string, n: number) => (JSONB.has(column) ? `$${n}::jsonb` : `$${n}`);
const value = (column: string, v: unknown) => (JSONB.has(column) && v !== null ? JSON.stringify(v) : v);

/**
 * Serialises the merchandising writes of one venue that must see each other: creates against the
 * plan's limit. Held to commit.
 */
export async function lockMerch(db: Queryable, venueId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('merch:' || $1::text, 0))`, [venueId]);
}

/** One row by id; an id that is not a uuid matches nothing (rather than failing the cast). */
export async function findRow<R>(db: Queryable, venueId: string, table: KeyedTable, columns: string, id: string, forUpdate = false): Promise<R | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<R>(
    `select ${columns} from ${table} where venue_id = $1 and id = $2${forUpdate ? ' for update' : ''}`,
    [venueId, id],
  );
  return rows[0] ?? null;
}

/** Every row of a venue in `orderBy` order, or one page of them. */
export async function selectRows<R>(
  db: Queryable,
  venueId: string,
  table: KeyedTable,
  columns: string,
  orderBy: string,
  page?: { limit: number; offset: number },
): Promise<R[]> {
  const { rows } = await db.query<R>(
    `select ${columns} from ${table} where venue_id = $1 order by ${orderBy}${page ? ` limit ${page.limit} offset ${page.offset}` : ''}`,
    [venueId],
  );
  return rows;
}

export async function countRows(db: Queryable, venueId: string, table: KeyedTable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from ${table} where venue_id = $1`, [venueId]);
  return rows[0].n;
}

export async function listRows<R>(
  db: Queryable,
  venueId: string,
  table: KeyedTable,
  columns: string,
  orderBy: string,
  limit: number,
  offset: number,
): Promise<{ rows: R[]; total: number }> {
  // One after the other: a transaction's single connection would queue them anyway.
  const rows = await selectRows<R>(db, venueId, table, columns, orderBy, { limit, offset });
  return { rows, total: await countRows(db, venueId, table) };
}

export async function insertRow(db: Queryable, venueId: string, table: MerchTable, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await db.query(
    `insert into ${table} (venue_id, ${columns.join(', ')}) values ($1, ${columns.map((c, i) => param(c, i + 2)).join(', ')})`,
    [venueId, ...columns.map((c) => value(c, row[c]))],
  );
}

/** Sets the given columns of one row (none: only touches it); its revision and updatedAt move. */
export async function updateRow(db: Queryable, venueId: string, table: MerchTable, id: string, changes: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(changes);
  await db.query(
    `update ${table} set ${columns.map((c, i) => `${c} = ${param(c, i + 3)}`).join(', ')}${columns.length ? ', ' : ''}
       revision = revision + 1, updated_at = now()
     where venue_id = $1 and id = $2`,
    [venueId, id, ...columns.map((c) => value(c, changes[c]))],
  );
}

export async function deleteRow(db: Queryable, venueId: string, table: KeyedTable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`delete from ${table} where venue_id = $1 and id = $2`, [venueId, id]);
  return rowCount > 0;
}
