import type { Client } from 'openapi-fetch';
import { CartaError } from './errors.js';
import { pause } from './pause.js';
import type { paths } from './schema.js';
import type { Order } from './types.js';

export interface PollOrdersOptions {
  /** Inclusive lower bound on updatedAt (ISO 8601 with a timezone); default: every order. */
  since?: string;
  /** Called once per (order id, updatedAt): a new order, then again on every change. Awaited in turn. */
  onOrder: (order: Order) => void | Promise<void>;
  /** Ends the loop: pollOrders then resolves. */
  signal?: AbortSignal;
  /** Pause between polls once the feed is drained (default 2000 ms). */
  intervalMs?: number;
}

/** The largest page GET /v1/orders gives. */
const PAGE_LIMIT = 100;
const BEGINNING = '1970-01-01T00:00:00.000Z';

/**
 * The lossless cursor loop: `updatedSince` is inclusive and the list comes in
 * (updatedAt, id) order, so the cursor is the last item's updatedAt and the (id, updatedAt)
 * pairs already delivered at that instant are dropped. No change is missed however writes
 * interleave with the polls; each version of an order is delivered once.
 */
export async function pollOrders(api: Client<paths>, options: PollOrdersOptions): Promise<void> {
  const { signal, onOrder } = options;
  const intervalMs = Math.max(0, options.intervalMs ?? 2000);
  let cursor = options.since ?? BEGINNING;
  // Only pairs at the cursor can come back (every later page starts there), so that is all we keep.
  let seenAtCursor = new Set<string>();
  // More than a page of orders with the very same updatedAt: the cursor cannot move, so page on.
  let page = 1;

  while (!signal?.aborted) {
    let result;
    try {
      result = await api.GET('/v1/orders', { params: { query: { updatedSince: cursor, limit: PAGE_LIMIT, page } }, signal });
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    const { data, error, response } = result;
    if (!data) throw CartaError.fromResponse(response, error);

    const previous = cursor;
    for (const order of data.items) {
      if (order.updatedAt !== cursor) {
        cursor = order.updatedAt;
        seenAtCursor = new Set();
      }
      const pair = `${order.id}\n${order.updatedAt}`;
      if (seenAtCursor.has(pair)) continue;
      seenAtCursor.add(pair);
      await onOrder(order);
    }

    if (data.items.length < PAGE_LIMIT) {
      page = 1;
      await pause(intervalMs, signal);
    } else {
      page = cursor === previous ? page + 1 : 1;
    }
  }
}
