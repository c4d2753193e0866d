// SQL shared by the tables keyed by (venue_id, id) that are written field by field: the three
// merchandising tables (banners, promotions, venue_tables), which also carry an optional
// external_id unique per venue and bump `revision` and `updated_at` on every change, and the
// webhook endpoints (read and deleted here). Table and column names come from the calling
// repository, never from a request.
import { isUuid } from '../ids.js';
import type { Queryable } from './port.js';

/** Tables written through insertRow and updateRow: they carry `revision` and `updated_at`. */
export type RevisedTable = 'banners' | 'promotions' | 'venue_tables';
/** Tables keyed by (venue_id, id) that the plain reads and the delete below serve. */
export type KeyedTable = RevisedTable | 'webhook_endpoints';

/** Columns stored as jsonb: their values are sent as JSON text and cast. */
const JSONB = new Set(['translations', 'image']);

const param = (column: string, n: number) => (JSONB.has(column) ? `$${n}::jsonb` : `$${n}`);
const value = (column: string, v: unknown) => (JSONB.has(column) && v !== null ? JSON.stringify(v) : v);

/** One row by id; an id that is not a uuid matches nothing (rather than failing the cast). */
export async function findRow<R>(
  db: Queryable,
  venueId: string,
  table: KeyedTable,
  columns: string,
  id: string,
  forUpdate = false,
): Promise<R | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<R>(`select ${columns} from ${table} where venue_id = $1 and id = $2${forUpdate ? ' for update' : ''}`, [
    venueId,
    id,
  ]);
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

export async function insertRow(db: Queryable, venueId: string, table: RevisedTable, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await db.query(
    `insert into ${table} (venue_id, ${columns.join(', ')}) values ($1, ${columns.map((c, i) => param(c, i + 2)).join(', ')})`,
    [venueId, ...columns.map((c) => value(c, row[c]))],
  );
}

/** Sets the given columns of one row (none: only touches it); its revision and updatedAt move. */
export async function updateRow(
  db: Queryable,
  venueId: string,
  table: RevisedTable,
  id: string,
  changes: Record<string, unknown>,
): Promise<void> {
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
