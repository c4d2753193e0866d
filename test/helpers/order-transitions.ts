import type { OrderStatus } from '../../src/shared/order-status.js';

// The order status machine as docs/orders.md gives it (the table's rows in their order), written
// out here independently of src/modules/orders/order-status.ts, so that the tests check src
// against the documented table rather than against itself. Every test that needs
// the table takes it from here; test/orders/order-status.test.ts checks that src's table equals it.

/** For each status, the statuses it may move to, in the table's row order. Terminal: []. */
export const SPEC_ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  new: ['confirmed', 'cancelled'],
  confirmed: ['preparing', 'cancelled'],
  preparing: ['delivering', 'completed', 'cancelled'],
  delivering: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

/** Every (from, to) pair the table allows, row by row. Everything else is refused. */
export const SPEC_ALLOWED_PAIRS: readonly (readonly [OrderStatus, OrderStatus])[] = Object.entries(SPEC_ORDER_TRANSITIONS).flatMap(
  ([from, next]) => next.map((to) => [from as OrderStatus, to] as const),
);
