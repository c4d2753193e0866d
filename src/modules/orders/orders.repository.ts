import type { Queryable } from '../../db/port.js';
import { SqlParams } from '../../db/sql-params.js';
import { outboxCall, payloadSql, type EventHead } from '../webhooks/index.js';
import { allowedTransitions, type OrderStatus } from '../../shared/order-status.js';
import { lineViews } from './order-view.js';
import type { OrderView } from './orders.schemas.js';

export interface OrderRow {
  id: string;
  order_number: string;
  status: OrderStatus;
  type: 'delivery' | 'pickup' | 'dine_in';
  customer_name: string | null;
  customer_phone: string | null;
  customer_email: string | null;
  delivery_address: string | null;
  delivery_notes: string | null;
  payment_method: 'cash' | 'terminal' | 'online';
  comment: string | null;
  change_from_amount: number | null;
  scheduled_for: Date | null;
  table_id: string | null;
  table_name: string | null;
  currency: string;
  subtotal_amount: number;
  delivery_fee: number;
  discount_amount: number;
  total_amount: number;
  created_at: Date;
  updated_at: Date;
  confirmed_at: Date | null;
  completed_at: Date | null;
}

export interface OrderItemRow {
  order_id: string;
  position: number;
  product_external_id: string | null;
  product_name: string;
  quantity: number;
  unit_price: number;
  total_price: number;
}

export interface OrderModifierRow {
  order_id: string;
  item_position: number;
  position: number;
  group_name: string;
  ingredient_external_id: string | null;
  ingredient_name: string;
  price_adjustment: number;
  quantity: number;
}

const ORDER_COLUMNS = `id, order_number, status, type, customer_name, customer_phone, customer_email, delivery_address,
  delivery_notes, payment_method, comment, change_from_amount, scheduled_for, table_id, table_name, currency, subtotal_amount,
  delivery_fee, discount_amount, total_amount, created_at, updated_at, confirmed_at, completed_at`;

/**
 * The upsert that ticks a venue's order clock: `venue` the venue's placeholder, `increment` the
 * numbers it takes (1 for a new order, 0 for a change). It takes the clock's row lock, held to
 * commit, and gives a timestamp strictly after every earlier order write of the venue. Because the
 * lock serialises the venue's order writes, a change can never commit with an updated_at older
 * than one a poller has already seen: the updatedSince cursor is lossless.
 */
const tickClock = (venue: string, increment: 0 | 1, when = 'true') => `insert into order_clocks as c (venue_id, last_number, last_ts)
       select ${venue}, ${increment}, date_trunc('milliseconds', clock_timestamp()) where ${when}
       on conflict (venue_id) do update set
         last_number = c.last_number + ${increment},
         last_ts = greatest(date_trunc('milliseconds', clock_timestamp()), c.last_ts + interval '1 millisecond')
       returning last_number, last_ts`;

/** The venue's order clock: the updated_at of its latest order write, null before its first order. */
export async function readOrderClock(db: Queryable, venueId: string): Promise<Date | null> {
  const { rows } = await db.query<{ last_ts: Date }>(`select last_ts from order_clocks where venue_id = $1`, [venueId]);
  return rows[0]?.last_ts ?? null;
}

/** Takes the venue's order clock for a change to an order (no new number); returns its timestamp. */
export async function lockOrderClock(db: Queryable, venueId: string): Promise<Date> {
  const { rows } = await db.query<{ last_ts: Date }>(tickClock('$1', 0), [venueId]);
  return rows[0].last_ts;
}

export interface NewOrder {
  id: string;
  type: string;
  customerName: string | null;
  customerPhone: string | null;
  customerEmail: string | null;
  deliveryAddress: string | null;
  deliveryNotes: string | null;
  paymentMethod: string;
  comment: string | null;
  changeFromAmount: number | null;
  /** The parsed instant, never the guest's text (shared/timestamps.ts). */
  scheduledFor: Date | null;
  tableId: string | null;
  /** The table's name at order time (a later rename leaves the order as it was). */
  tableName: string | null;
  currency: string;
  subtotalAmount: number;
  deliveryFee: number;
  discountAmount: number;
  totalAmount: number;
  publicationId: string;
  /** The guest's handle on this order (null for orders not placed by a guest page or API call). */
  guestToken: string | null;
  items: {
    productId: string;
    productExternalId: string | null;
    productName: string;
    quantity: number;
    unitPrice: number;
    totalPrice: number;
    modifiers: {
      groupName: string;
      ingredientExternalId: string | null;
      ingredientName: string;
      priceAdjustment: number;
      quantity: number;
    }[];
  }[];
}

export interface InsertedOrder {
  row: OrderRow;
  /** Its lines as the read shows them (lineViews), built once for the event and the answer. */
  lines: OrderView['items'];
}

/** The Idempotency-Key an order is recorded under, with a hash of the request it came with. */
export interface OrderKey {
  key: string;
  requestHash: string;
}

/** The lines of a new order as rows (with each item's product, which the read does not show). */
function newOrderLines(o: NewOrder): { items: (OrderItemRow & { product_id: string })[]; modifiers: OrderModifierRow[] } {
  const items = o.items.map((it, position) => ({
    order_id: o.id,
    position,
    product_id: it.productId,
    product_external_id: it.productExternalId,
    product_name: it.productName,
    quantity: it.quantity,
    unit_price: it.unitPrice,
    total_price: it.totalPrice,
  }));
  const modifiers = o.items.flatMap((it, itemPosition) =>
    it.modifiers.map((m, position) => ({
      order_id: o.id,
      item_position: itemPosition,
      position,
      group_name: m.groupName,
      ingredient_external_id: m.ingredientExternalId,
      ingredient_name: m.ingredientName,
      price_adjustment: m.priceAdjustment,
      quantity: m.quantity,
    })),
  );
  return { items, modifiers };
}

/** A timestamp as JSON shows it (Date.prototype.toISOString), from a timestamptz of millisecond precision or finer. */
const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The Order as JSON, built in SQL from an order row `o` (ORDER_COLUMNS), with JSON
 * expressions for its allowed transitions and its lines: the same fields, in the same order and of
 * the same types, as orderViews (order-view.ts) gives the read; test/webhooks/webhook-delivery.test.ts holds
 * the two equal.
 */
const orderJson = (o: string, transitions: string, lines: string) => `json_build_object(
  'id', ${o}.id, 'orderNumber', ${o}.order_number, 'status', ${o}.status, 'allowedTransitions', ${transitions}, 'type', ${o}.type,
  'customerName', ${o}.customer_name, 'customerPhone', ${o}.customer_phone, 'customerEmail', ${o}.customer_email,
  'deliveryAddress', ${o}.delivery_address, 'deliveryNotes', ${o}.delivery_notes, 'paymentMethod', ${o}.payment_method,
  'comment', ${o}.comment, 'changeFromAmount', ${o}.change_from_amount, 'scheduledFor', ${isoText(`${o}.scheduled_for`)},
  'tableId', ${o}.table_id, 'tableName', ${o}.table_name, 'currency', ${o}.currency, 'subtotalAmount', ${o}.subtotal_amount,
  'deliveryFee', ${o}.delivery_fee, 'discountAmount', ${o}.discount_amount, 'totalAmount', ${o}.total_amount,
  'createdAt', ${isoText(`${o}.created_at`)}, 'updatedAt', ${isoText(`${o}.updated_at`)},
  'confirmedAt', ${isoText(`${o}.confirmed_at`)}, 'completedAt', ${isoText(`${o}.completed_at`)}, 'items', ${lines})`;

/**
 * Places an order in one statement, committed on its own (Database.alone): it records its
 * Idempotency-Key (taking over an expired row), ticks the venue's order clock (the number, and the
 * row lock that orders the venue's writes until commit, see tickClock), inserts the order, its
 * items and their modifiers, with `event` writes the outbox (the event and its deliveries), and
 * evaluates `notify`. The lock is held only while the server runs and commits the statement, so a
 * busy venue's orders queue behind each other for that alone. Returns the order as the read would
 * (the row from RETURNING, the lines as written) and how many deliveries it queued, or null,
 * having written nothing, when the key is live for another order (a retry, or one racing): the
 * caller answers from that order.
 *
 * The event's body is built by the statement from the order row it inserts (its number and times
 * come from the order clock, its scheduled time as stored), with the lines as the JSON of the rows
 * it inserts (lineViews): built back from the line rows in SQL, they would take two nested
 * subqueries more to plan, on every order, on engines that plan every statement sent.
 *
 * Lock order: the key, then the clock (every part but the key reads the clock, and the clock reads
 * the key's outcome). A request racing on one key waits for the key's writer to commit and then
 * writes nothing; no writer holds the clock while it waits for a key, so the two never deadlock.
 */
export async function insertOrder(
  db: Queryable,
  venueId: string,
  o: NewOrder,
  key: OrderKey | null,
  event: EventHead | null,
  notify: string,
): Promise<(InsertedOrder & { queued: number }) | null> {
  const { items, modifiers } = newOrderLines(o);
  const lines = lineViews(items, modifiers).get(o.id) ?? [];
  const params = new SqlParams();
  const p = params.add({
    venue: venueId,
    order: o.id,
    key: key?.key ?? null,
    requestHash: key?.requestHash ?? null,
    items: JSON.stringify(items),
    modifiers: JSON.stringify(modifiers),
  });
  // The order's own columns; its number and times come from the clock.
  const order = params.row({
    type: o.type,
    customer_name: o.customerName,
    customer_phone: o.customerPhone,
    customer_email: o.customerEmail,
    delivery_address: o.deliveryAddress,
    delivery_notes: o.deliveryNotes,
    payment_method: o.paymentMethod,
    comment: o.comment,
    change_from_amount: o.changeFromAmount,
    scheduled_for: o.scheduledFor,
    table_id: o.tableId,
    table_name: o.tableName,
    currency: o.currency,
    subtotal_amount: o.subtotalAmount,
    delivery_fee: o.deliveryFee,
    discount_amount: o.discountAmount,
    total_amount: o.totalAmount,
    publication_id: o.publicationId,
    guest_token: o.guestToken,
  });
  const queued = event === null ? '' : `, queued as (select ${orderCreated(params, p.venue, event, lines)} as id from placed p)`;
  const { rows } = await db.query<OrderRow & { queued: number }>(
    `with recorded as (
       insert into order_idempotency_keys as k (venue_id, key, request_hash, order_id)
       select ${p.venue}, ${p.key}, ${p.requestHash}, ${p.order} where ${p.key}::text is not null
       on conflict (venue_id, key) do update set request_hash = excluded.request_hash, order_id = excluded.order_id, created_at = now()
       where k.created_at < now() - interval '24 hours'
       returning 1
     ), clock as (
       ${tickClock(p.venue, 1, `(${p.key}::text is null or exists (select 1 from recorded))`)}
     ), placed as (
       insert into orders (venue_id, id, order_number, status, ${order.columns}, created_at, updated_at)
       select ${p.venue}, ${p.order}, clock.last_number::text, 'new', ${order.values}, clock.last_ts, clock.last_ts
       from clock
       returning ${ORDER_COLUMNS}
     ), lines as (
       insert into order_items (venue_id, order_id, position, product_id, product_external_id, product_name, quantity,
         unit_price, total_price)
       select ${p.venue}, ${p.order}, r.position, r.product_id, r.product_external_id, r.product_name, r.quantity, r.unit_price,
              r.total_price
       from clock, jsonb_to_recordset(${p.items}::jsonb) as r(position int, product_id uuid, product_external_id text,
         product_name text, quantity int, unit_price int, total_price int)
     ), choices as (
       insert into order_item_modifiers (venue_id, order_id, item_position, position, group_name, ingredient_external_id,
         ingredient_name, price_adjustment, quantity)
       select ${p.venue}, ${p.order}, r.item_position, r.position, r.group_name, r.ingredient_external_id, r.ingredient_name,
              r.price_adjustment, r.quantity
       from clock, jsonb_to_recordset(${p.modifiers}::jsonb) as r(item_position int, position int, group_name text,
         ingredient_external_id text, ingredient_name text, price_adjustment int, quantity int)
     )${queued}, notified as (
       select ${notify} as sent
     )
     select placed.*, ${event === null ? '0' : '(select count(*) from queued)::int'} as queued
     from placed, notified`,
    params.values,
  );
  if (rows.length === 0) return null;
  const { queued: count, ...row } = rows[0];
  return { row, lines, queued: count };
}

/**
 * The write of an order's `order.created` event as an SQL expression of the order's statement,
 * through the outbox's fragments (webhooks/outbox-sql.ts): its body is built from the order row
 * `p` the statement inserts (orderJson), with `lines` the order's lines as the statement writes them.
 */
function orderCreated(params: SqlParams, venue: string, event: EventHead, lines: OrderView['items']): string {
  const e = params.add({
    id: event.id,
    type: event.type,
    timestamp: event.timestamp,
    transitions: JSON.stringify(allowedTransitions('new')),
    lines: JSON.stringify(lines),
  });
  const head = { venue: `${venue}::uuid`, id: `${e.id}::uuid`, type: `${e.type}::text` };
  const data = `json_build_object('order', ${orderJson('p', `${e.transitions}::json`, `${e.lines}::json`)})`;
  return outboxCall({ ...head, payload: payloadSql({ ...head, timestamp: `${e.timestamp}::text`, data }) });
}

export async function findOrder(db: Queryable, venueId: string, orderId: string, forUpdate = false): Promise<OrderRow | null> {
  const { rows } = await db.query<OrderRow>(
    `select ${ORDER_COLUMNS} from orders where venue_id = $1 and id = $2${forUpdate ? ' for update' : ''}`,
    [venueId, orderId],
  );
  return rows[0] ?? null;
}

/** The order a guest token names, within the venue (docs/guest-page.md). */
export async function findOrderByGuestToken(db: Queryable, venueId: string, token: string): Promise<OrderRow | null> {
  const { rows } = await db.query<OrderRow>(`select ${ORDER_COLUMNS} from orders where venue_id = $1 and guest_token = $2`, [
    venueId,
    token,
  ]);
  return rows[0] ?? null;
}

/**
 * The venue's guest orders (those with a token) changed after `after`, oldest change first, at
 * most `limit`, with their tokens: one range scan of orders_updated_idx for all of a venue's live
 * status pages, whatever their number.
 */
export async function listGuestChanges(
  db: Queryable,
  venueId: string,
  after: Date,
  limit: number,
): Promise<(OrderRow & { guest_token: string })[]> {
  const { rows } = await db.query<OrderRow & { guest_token: string }>(
    `select ${ORDER_COLUMNS}, guest_token from orders
     where venue_id = $1 and updated_at > $2 and guest_token is not null
     order by updated_at asc, id asc limit ${limit}`,
    [venueId, after],
  );
  return rows;
}

/** An order with its guest token, for an Idempotency-Key replay of its creation. */
export async function findOrderWithToken(
  db: Queryable,
  venueId: string,
  orderId: string,
): Promise<(OrderRow & { guest_token: string | null }) | null> {
  const { rows } = await db.query<OrderRow & { guest_token: string | null }>(
    `select ${ORDER_COLUMNS}, guest_token from orders where venue_id = $1 and id = $2`,
    [venueId, orderId],
  );
  return rows[0] ?? null;
}

export async function updateOrderStatus(db: Queryable, venueId: string, orderId: string, status: OrderStatus, ts: Date): Promise<void> {
  await db.query(
    `update orders set status = $3, updated_at = $4,
       confirmed_at = case when $3 = 'confirmed' then coalesce(confirmed_at, $4) else confirmed_at end,
       completed_at = case when $3 = 'completed' then coalesce(completed_at, $4) else completed_at end
     where venue_id = $1 and id = $2`,
    [venueId, orderId, status, ts],
  );
}

/** Items and modifiers of a page of orders: two statements for the whole page. */
export async function findOrderLines(
  db: Queryable,
  venueId: string,
  orderIds: string[],
): Promise<{ items: OrderItemRow[]; modifiers: OrderModifierRow[] }> {
  if (orderIds.length === 0) return { items: [], modifiers: [] };
  // One after the other: inside a transaction both share one connection.
  const items = await db.query<OrderItemRow>(
    `select order_id, position, product_external_id, product_name, quantity, unit_price, total_price
     from order_items where venue_id = $1 and order_id = any($2::uuid[]) order by order_id, position`,
    [venueId, orderIds],
  );
  const modifiers = await db.query<OrderModifierRow>(
    `select order_id, item_position, position, group_name, ingredient_external_id, ingredient_name, price_adjustment, quantity
     from order_item_modifiers where venue_id = $1 and order_id = any($2::uuid[]) order by order_id, item_position, position`,
    [venueId, orderIds],
  );
  return { items: items.rows, modifiers: modifiers.rows };
}

export interface OrderFilter {
  statuses?: string[];
  type?: string;
  createdFrom?: string;
  createdTo?: string;
  updatedSince?: string;
  /** Changes strictly after this time (the live stream's cursor: updated_at is unique per venue). */
  updatedAfter?: Date;
}

function where(venueId: string, f: OrderFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [venueId];
  const clauses = ['venue_id = $1'];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    clauses.push(clause.replace('?', `$${params.length}`));
  };
  if (f.statuses?.length) add('status = any(?::text[])', f.statuses);
  if (f.type) add('type = ?', f.type);
  if (f.createdFrom) add('created_at >= ?::timestamptz', f.createdFrom);
  if (f.createdTo) add('created_at <= ?::timestamptz', f.createdTo);
  if (f.updatedSince) add('updated_at >= ?::timestamptz', f.updatedSince);
  if (f.updatedAfter) add('updated_at > ?::timestamptz', f.updatedAfter);
  return { sql: clauses.join(' and '), params };
}

/**
 * A page of orders: with updatedSince, oldest change first (the polling order); otherwise newest
 * first. Both orders match an index, so a page is a range scan however many orders the venue has.
 */
export async function listOrders(db: Queryable, venueId: string, f: OrderFilter, limit: number, offset: number): Promise<OrderRow[]> {
  const { sql, params } = where(venueId, f);
  const order = f.updatedSince || f.updatedAfter ? 'updated_at asc, id asc' : 'created_at desc, id desc';
  const { rows } = await db.query<OrderRow>(
    `select ${ORDER_COLUMNS} from orders where ${sql} order by ${order} limit ${limit} offset ${offset}`,
    params,
  );
  return rows;
}

export async function countOrders(db: Queryable, venueId: string, f: OrderFilter): Promise<number> {
  const { sql, params } = where(venueId, f);
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from orders where ${sql}`, params);
  return rows[0].n;
}

export interface IdempotencyRow {
  request_hash: string;
  order_id: string;
}

/**
 * A live key (under 24 hours old). A read only: an expired row is left for insertOrder to take
 * over.
 */
export async function findIdempotencyKey(db: Queryable, venueId: string, key: string): Promise<IdempotencyRow | null> {
  const { rows } = await db.query<IdempotencyRow>(
    `select request_hash, order_id from order_idempotency_keys
     where venue_id = $1 and key = $2 and created_at >= now() - interval '24 hours'`,
    [venueId, key],
  );
  return rows[0] ?? null;
}

/** Deletes the venue's guest-order keys past their 24 hours (by the expiry index). */
export async function deleteExpiredOrderKeys(db: Queryable, venueId: string): Promise<void> {
  await db.query(`delete from order_idempotency_keys where venue_id = $1 and created_at < now() - interval '24 hours'`, [venueId]);
}

/** Statuses an order waits in for the kitchen, and those that end it. */
const OPEN_STATUSES = ['new', 'confirmed', 'preparing', 'delivering'];
const FINISHED_STATUSES = ['completed', 'cancelled'];
/** Orders a board shows at most of each kind: a day's service fits well within. */
const BOARD_OPEN_LIMIT = 500;
const BOARD_FINISHED_LIMIT = 200;

/**
 * Every open order (the newest 500) and those finished since `since` (the latest 200), oldest
 * first: two range scans, on orders_status_created_idx and orders_status_updated_idx.
 */
export async function openAndFinishedSince(db: Queryable, venueId: string, since: Date): Promise<OrderRow[]> {
  const open = await listOrders(db, venueId, { statuses: OPEN_STATUSES }, BOARD_OPEN_LIMIT, 0);
  const { rows: finished } = await db.query<OrderRow>(
    `select ${ORDER_COLUMNS} from orders where venue_id = $1 and status = any($2::text[]) and updated_at >= $3
     order by updated_at desc, id desc limit ${BOARD_FINISHED_LIMIT}`,
    [venueId, FINISHED_STATUSES, since],
  );
  return [...open, ...finished].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
}
