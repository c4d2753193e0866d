// The orders module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { findGuestOrder, guestOrderClock, guestOrdersChangedAfter } from './guest-orders.js';
export { GuestOrderBody } from './order-body.schemas.js';
export type { GuestOrderInput } from './order-body.schemas.js';
export { loadOrderViews } from './order-reads.js';
export { frame } from './order-stream.js';
export { ORDER_TYPES, Order, OrderIdParams, OrderStatusBody, PAYMENT_METHODS } from './orders.schemas.js';
export type { OrderView } from './orders.schemas.js';
export type { OrdersService } from './orders.service.js';
export type { OrderPlacement, PlacedOrder } from './place-order.js';
