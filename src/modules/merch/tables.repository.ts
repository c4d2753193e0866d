import type { Queryable } from '../../db/port.js';
import type { SubscriptionStatus } from '../venues/index.js';
import { findRow, listRows } from '../../db/keyed-rows.js';

export interface TableRow {
  id: string;
  external_id: string | null;
  name: string;
  seats: number | null;
  zone: string | null;
  is_active: boolean;
  token: string;
  created_at: Date;
  updated_at: Date;
}

const TABLE_COLUMNS = 'id, external_id, name, seats, zone, is_active, token, created_at, updated_at';
/** Tables are listed by name. */
const TABLE_ORDER = 'lower(name), id';

export const findTable = (db: Queryable, venueId: string, id: string, forUpdate = false) =>
  findRow<TableRow>(db, venueId, 'venue_tables', TABLE_COLUMNS, id, forUpdate);

export const listTables = (db: Queryable, venueId: string, limit: number, offset: number) =>
  listRows<TableRow>(db, venueId, 'venue_tables', TABLE_COLUMNS, TABLE_ORDER, limit, offset);

export async function activeTables(db: Queryable, venueId: string): Promise<TableRow[]> {
  const { rows } = await db.query<TableRow>(
    `select ${TABLE_COLUMNS} from venue_tables where venue_id = $1 and is_active order by ${TABLE_ORDER}`,
    [venueId],
  );
  return rows;
}

export interface TableByTokenRow {
  venue_id: string;
  slug: string;
  venue_name: string;
  subscription_status: SubscriptionStatus;
  id: string;
  name: string;
  zone: string | null;
  is_active: boolean;
}

/** A QR link's table and venue: a directory look-up across venues by nature (the token names the venue). */
export async function findTableByToken(db: Queryable, token: string): Promise<TableByTokenRow | null> {
  const { rows } = await db.query<TableByTokenRow>(
    `select t.venue_id, v.slug, v.name as venue_name, v.subscription_status, t.id, t.name, t.zone, t.is_active
     from venue_tables t join venues v on v.id = t.venue_id
     where t.token = $1`,
    [token],
  );
  return rows[0] ?? null;
}
