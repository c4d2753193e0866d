import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import type { EventHead } from '../webhooks/outbox-sql.js';
import { loadOrderViews } from './order-reads.js';
import { orderView } from './order-view.js';
import * as orders from './orders.repository.js';
import type { OrderView } from './orders.schemas.js';

// The orders guests place (src/modules/guest decides what they may order; their rows are this
// module's): the order's single statement, its Idempotency-Key, and the order its token names.

export type { NewOrder, OrderKey, OrderRow } from './orders.repository.js';

/** One order in this many also clears the venue's expired keys (an indexed delete), as /v1 keys are cleared. */
const PURGE_EVERY = 64;

/** An order as the API shows it, with the guest's token for its public view. */
export interface GuestOrderRead {
  order: OrderView;
  token: string | null;
}

/**
 * Writes the order, its lines, its key and its `order.created` event in one statement committed
 * on its own: the venue's order lock is held while the server runs it, never across a round trip
 * to this process. Null when the key was taken meanwhile (see replayGuestOrder).
 */
export async function insertGuestOrder(
  db: Database,
  venueId: string,
  order: orders.NewOrder,
  key: orders.OrderKey | null,
  event: EventHead | null,
): Promise<(GuestOrderRead & { queued: number }) | null> {
  const inserted = await db.alone({ venueId, ordersOnly: true }, (tx, notify) =>
    orders.insertOrder(tx, venueId, order, key, event, notify),
  );
  if (!inserted) return null;
  if (key !== null && Math.random() * PURGE_EVERY < 1) void purgeExpiredOrderKeys(db, venueId).catch(() => undefined);
  return { order: orderView(inserted.row, inserted.lines), token: order.guestToken, queued: inserted.queued };
}

/** The order a live Idempotency-Key made, or null; 409 when the key came with another body. */
export async function replayGuestOrder(db: Queryable, venueId: string, key: string, requestHash: string): Promise<GuestOrderRead | null> {
  const previous = await orders.findIdempotencyKey(db, venueId, key);
  if (!previous) return null;
  if (previous.request_hash !== requestHash) throw errors.idempotencyKeyReused();
  const row = await orders.findOrderWithToken(db, venueId, previous.order_id);
  if (!row) return null;
  return { order: (await loadOrderViews(db, venueId, [row]))[0], token: row.guest_token };
}

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

/** Deletes the venue's guest-order keys past their 24 hours; a replay never sees them (findIdempotencyKey). */
export function purgeExpiredOrderKeys(db: Database, venueId: string): Promise<void> {
  return db.transaction((tx) => orders.deleteExpiredOrderKeys(tx, venueId), { venueId });
}
