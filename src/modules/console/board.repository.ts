import type { Queryable } from '../../db/port.js';
import { listOrders, ORDER_COLUMNS, type OrderRow } from '../orders/orders.repository.js';

/** Statuses an order waits in for the kitchen: the board's columns. */
export const ACTIVE_STATUSES = ['new', 'confirmed', 'preparing', 'delivering'];
const FINISHED_STATUSES = ['completed', 'cancelled'];
/** Orders a board shows at most of each kind: a day's service fits well within. */
export const BOARD_ACTIVE_LIMIT = 500;
export const BOARD_FINISHED_LIMIT = 200;

/**
 * The orders a board shows, oldest first: every order still in the kitchen, and those finished
 * since `dayStart` (completed or cancelled today). Two range scans on the (venue, status) indexes.
 */
export async function boardOrders(db: Queryable, venueId: string, dayStart: Date): Promise<OrderRow[]> {
  const active = await listOrders(db, venueId, { statuses: ACTIVE_STATUSES }, BOARD_ACTIVE_LIMIT, 0);
  // The latest finished, on orders_status_updated_idx.
  const { rows: finished } = await db.query<OrderRow>(
    `select ${ORDER_COLUMNS} from orders where venue_id = $1 and status = any($2::text[]) and updated_at >= $3
     order by updated_at desc, id desc limit ${BOARD_FINISHED_LIMIT}`,
    [venueId, FINISHED_STATUSES, dayStart],
  );
  return [...active, ...finished].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
}

export interface ServiceItemRow {
  kind: 'product' | 'ingredient';
  id: string;
  external_id: string | null;
  name: string;
  category_name: string | null;
}

/** The draft's visible products (with their category's name) and its ingredients, by name: what staff mark sold out. */
export async function serviceItems(db: Queryable, venueId: string): Promise<ServiceItemRow[]> {
  const { rows } = await db.query<ServiceItemRow>(
    `select 'product' as kind, p.id, p.external_id, p.name, c.name as category_name
     from products p left join categories c on c.venue_id = p.venue_id and c.id = p.category_id
     where p.venue_id = $1 and p.menu_visible and p.cleaned_up_at is null
     union all
     select 'ingredient', i.id, i.external_id, i.name, null from ingredients i where i.venue_id = $1
     order by name, id`,
    [venueId],
  );
  return rows;
}
