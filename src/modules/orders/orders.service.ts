import { EpochMemo } from '../../db/epoch-memo.js';
import type { WebhookEvents } from '../webhooks/index.js';
import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { isUuid } from '../../ids.js';
import { audit, type Actor } from '../audit/index.js';
import { ORDER_STATUSES, canTransition, transitionErrorMessage, type OrderStatus } from '../../shared/order-status.js';
import * as orders from './orders.repository.js';
import type { OrderListQueryValue, OrderListView, OrderStreamQueryValue, OrderView } from './orders.schemas.js';
import type { StreamStart } from './order-stream.js';
import { loadOrderViews } from './order-reads.js';
import { instantOf, inTimestampRange } from '../../shared/timestamps.js';

// ISO 8601 date-time with an explicit zone: Z or +hh:mm / -hh:mm.
const ZONED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Date.parse rolls impossible fields over (02-30 -> 03-02, 24:00 -> next day); refuse them instead. */
function fieldsInRange(value: string): boolean {
  const [, y, m, d, h] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})/i.exec(value)!.map(Number);
  return m >= 1 && m <= 12 && d >= 1 && d === new Date(Date.UTC(y, m - 1, d)).getUTCDate() && h <= 23;
}

function zoned(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!ZONED_TIMESTAMP.test(value) || !inTimestampRange(Date.parse(value)) || !fieldsInRange(value)) {
    throw errors.invalidParameter(`${name} must be an ISO 8601 timestamp with a timezone (Z or +hh:mm)`);
  }
  return instantOf(value).toISOString();
}

export class OrdersService {
  /** Serialised list pages: an idle poller asking for the same page again costs no query. */
  private readonly pages: EpochMemo<Buffer>;

  constructor(
    private readonly db: Database,
    private readonly events: WebhookEvents,
  ) {
    this.pages = new EpochMemo(db, 2_000);
  }

  /** The page as JSON while memoised, else undefined (then `listJson`); `url` as in listJson. */
  peekListJson(venueId: string, url: string): Buffer | undefined {
    return this.pages.peek(`${venueId}${url}`);
  }

  /**
   * The page as JSON, ready to send. `url` is the request's URL as sent, whose query `q` was parsed
   * from: it names the page as well as `q` does, without serialising `q` on every poll.
   */
  async listJson(venueId: string, q: OrderListQueryValue, url: string): Promise<Buffer> {
    return this.pages.get(`${venueId}${url}`, { venueId, orders: true }, async () =>
      Buffer.from(JSON.stringify(await this.list(venueId, q))),
    );
  }

  async list(venueId: string, q: OrderListQueryValue): Promise<OrderListView> {
    const { page, limit, offset } = pageWindow(q);
    const statuses = q.status
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = statuses?.filter((s) => !(ORDER_STATUSES as readonly string[]).includes(s)) ?? [];
    if (unknown.length > 0) {
      throw errors.validation([`status must be a comma-separated list of: ${ORDER_STATUSES.join(', ')}`]);
    }
    const filter: orders.OrderFilter = {
      statuses,
      type: q.type,
      createdFrom: zoned('createdFrom', q.createdFrom),
      createdTo: zoned('createdTo', q.createdTo),
      updatedSince: zoned('updatedSince', q.updatedSince) ?? zoned('since', q.since),
    };
    const rows = await orders.listOrders(this.db, venueId, filter, limit, offset);
    // The total is an exact count with the page's filters (an index range scan), and it is
    // skipped when the page itself shows where the list ends: a poller at the head of the
    // stream, whose pages are rarely full, never pays for a count.
    const total =
      rows.length < limit && (rows.length > 0 || page === 1) ? offset + rows.length : await orders.countOrders(this.db, venueId, filter);
    return listEnvelope(await loadOrderViews(this.db, venueId, rows), total, page, limit);
  }

  /** Where a live stream starts: right after Last-Event-ID (a reconnect), at updatedSince, or now. */
  streamStart(lastEventId: string | undefined, q: OrderStreamQueryValue): StreamStart {
    const after = lastEventId ? zoned('Last-Event-ID', lastEventId.trim()) : undefined;
    if (after) return { after: new Date(after) };
    const since = zoned('updatedSince', q.updatedSince) ?? zoned('since', q.since);
    return since ? { since: new Date(since) } : { now: true };
  }

  /** The venue's order clock: the instant of its last order write (null before its first order). */
  orderClock(venueId: string): Promise<Date | null> {
    return orders.readOrderClock(this.db, venueId);
  }

  /**
   * The venue's orders changed after `after`, oldest first, at most `limit`, each with its change's
   * instant on the order clock (unique per venue write): a live stream's batch.
   */
  async changedAfter(venueId: string, after: Date, limit: number): Promise<{ at: number; view: OrderView }[]> {
    const rows = await orders.listOrders(this.db, venueId, { updatedAfter: after }, limit, 0);
    if (rows.length === 0) return [];
    const views = await loadOrderViews(this.db, venueId, rows);
    return views.map((view, i) => ({ at: rows[i].updated_at.getTime(), view }));
  }

  /** What a kitchen board shows: every order still open, and those finished since `dayStart`, oldest first. */
  async boardOrders(venueId: string, dayStart: Date): Promise<OrderView[]> {
    return loadOrderViews(this.db, venueId, await orders.openAndFinishedSince(this.db, venueId, dayStart));
  }

  async get(venueId: string, orderId: string): Promise<OrderView> {
    const row = isUuid(orderId) ? await orders.findOrder(this.db, venueId, orderId) : null;
    if (!row) throw errors.orderNotFound();
    return (await loadOrderViews(this.db, venueId, [row]))[0];
  }

  /** One transition table; the same status is a no-op 200; illegal jumps are 422. */
  async changeStatus(actor: Actor, orderId: string, to: OrderStatus): Promise<OrderView> {
    const venueId = actor.venue.venueId;
    if (!isUuid(orderId)) throw errors.orderNotFound();
    const notify = await this.events.wanted(venueId, 'order.updated');
    let queued = 0;
    const view = await this.db.transaction(
      async (tx) => {
        const current = await orders.findOrder(tx, venueId, orderId);
        if (!current) throw errors.orderNotFound();
        // The answer is the row the decision was made on (or the row just written, still locked):
        // a re-read after a no-op could show another request's later change under this 200.
        let row = current;
        let previousStatus: OrderStatus | null = null;
        if (current.status !== to) {
          // The clock lock serialises this venue's order writes: two racing updates of one order
          // apply one after the other, and the second sees the first's status.
          const ts = await orders.lockOrderClock(tx, venueId);
          const locked = (await orders.findOrder(tx, venueId, orderId, true))!;
          row = locked;
          if (locked.status !== to) {
            if (!canTransition(locked.status, to)) {
              throw errors.invalidStatusTransition(transitionErrorMessage(locked.status, to), {
                from: locked.status,
                to,
              });
            }
            await orders.updateOrderStatus(tx, venueId, orderId, to, ts);
            await audit(tx, actor, [
              { action: 'order.status_update', entityType: 'order', entityRef: orderId, changes: { from: locked.status, to } },
            ]);
            row = (await orders.findOrder(tx, venueId, orderId))!;
            previousStatus = locked.status;
          }
        }
        const order = (await loadOrderViews(tx, venueId, [row]))[0];
        if (notify && previousStatus)
          queued = await this.events.record(tx, venueId, 'order.updated', { order, previousStatus, status: to });
        return order;
      },
      { venueId },
    );
    this.events.queued(venueId, queued);
    return view;
  }
}
