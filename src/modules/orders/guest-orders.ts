import type { Queryable } from '../../db/port.js';
import * as orders from './orders.repository.js';

// The reads of the orders guests follow (src/modules/guest shows them; their rows are this
// module's): the order its token names, and the venue's changes for the live status pages. Placing
// an order is place-order.ts.

export type { NewOrder, OrderKey, OrderRow } from './orders.repository.js';

/** The order a guest token names (its row: the status page reads its lines only when it changed). */
export function findGuestOrder(db: Queryable, venueId: string, token: string): Promise<orders.OrderRow | null> {
  return orders.findOrderByGuestToken(db, venueId, token);
}

/** The venue's guest orders changed after `after`, oldest first, with their tokens (one statement). */
export function guestOrdersChangedAfter(
  db: Queryable,
  venueId: string,
  after: Date,
  limit: number,
): Promise<(orders.OrderRow & { guest_token: string })[]> {
  return orders.listGuestChanges(db, venueId, after, limit);
}

/** The venue's order clock: the instant of its last order write (null before its first order). */
export function guestOrderClock(db: Queryable, venueId: string): Promise<Date | null> {
  return orders.readOrderClock(db, venueId);
}
