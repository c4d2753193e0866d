import type { Queryable } from '../../db/port.js';
import * as orders from './orders.repository.js';
import type { OrderView } from './orders.schemas.js';
import { orderViews } from './order-view.js';

/** Orders as the API shows them, their lines read in one statement for all of them. */
export async function loadOrderViews(db: Queryable, venueId: string, rows: orders.OrderRow[]): Promise<OrderView[]> {
  const lines = await orders.findOrderLines(
    db,
    venueId,
    rows.map((r) => r.id),
  );
  return orderViews(rows, lines.items, lines.modifiers);
}
