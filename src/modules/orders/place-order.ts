// Placing an order, read top to bottom in OrderPlacement.place: what the
// decision needs is read at once, the request is checked, judged available and priced against it,
// and the order is written with its Idempotency-Key and its `order.created` event in one statement.
// The guest surface (guest.service.ts) finds the venue open to guests and its published menu, as
// for its menu read, and hands them here.
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../db/port.js';
import { errors, type AppError } from '../../errors.js';
import { uuidv7 } from '../../ids.js';
import { instantOf } from '../../shared/timestamps.js';
import { stableStringify } from '../../stable-json.js';
import { type OrderingView, type AvailabilityService, type ScheduledCategory, scheduledForProblems } from '../availability/index.js';
import type { Hours } from '../../shared/opening-hours.js';
import type { GuestOrderInput } from './order-body.schemas.js';
import { promoPrice, type GuestMerch, type TablesService } from '../merch/index.js';
import { priceOrder, type UnavailableItem } from './pricing.js';
import type { MenuDocumentValue } from '../menu/index.js';
import type { OrderConfigValue } from '../settings/index.js';
import type { WebhookEvents } from '../webhooks/index.js';
import { loadOrderViews } from './order-reads.js';
import { orderView } from './order-view.js';
import { deleteExpiredOrderKeys, findIdempotencyKey, findOrderWithToken, insertOrder, type OrderKey } from './orders.repository.js';
import type { OrderView } from './orders.schemas.js';

/** The venue an order is placed at, as the guest surface found it: open to guests, with its published menu. */
export interface OrderingVenue {
  id: string;
  currency: string;
  /** The IANA zone its merchandising schedules are read in. */
  timeZone: string;
  /** Its plan includes delivery. */
  hasDelivery: boolean;
  /** The order settings as guests meet them (delivery enabled only where the plan includes it). */
  orderConfig: OrderConfigValue;
  /** Its opening hours, which a scheduledFor must fall within. */
  hours: Hours;
  /** Whether guests can order now, as the guest menu shows it. */
  ordering: OrderingView;
  publicationId: string;
  /** The published menu: what can be ordered, at what price. */
  menu: MenuDocumentValue;
  /** The categories of that menu with a schedule, as guests see them. */
  scheduledCategories: readonly ScheduledCategory[];
}

export interface PlacedOrder {
  order: OrderView;
  /** The guest's token for the order's public view (null only for orders made before tokens existed). */
  token: string | null;
  /** true when an Idempotency-Key replay returned the first order. */
  replayed: boolean;
}

/** A dine-in order's table, or the problems of the tableId asked for. */
interface TableChoice {
  id: string | null;
  name: string | null;
  errors: string[];
}

/** 24 random bytes: a token nobody guesses, URL-safe as it is. */
const newGuestToken = () => randomBytes(24).toString('base64url');

/** One order in this many also clears the venue's expired keys (an indexed delete), as /v1 keys are cleared. */
const PURGE_EVERY = 64;

/**
 * The body's hash an Idempotency-Key is recorded with: a retry with the same content (in any
 * property order) is the same request.
 */
const requestHash = (input: GuestOrderInput) => createHash('sha256').update(stableStringify(input)).digest('hex');

export class OrderPlacement {
  constructor(
    private readonly db: Database,
    private readonly tables: TablesService,
    private readonly merch: GuestMerch,
    private readonly availability: AvailabilityService,
    private readonly events: WebhookEvents,
  ) {}

  async place(venue: OrderingVenue, input: GuestOrderInput, idempotencyKey: string | undefined): Promise<PlacedOrder> {
    const key: OrderKey | null = idempotencyKey === undefined ? null : { key: idempotencyKey, requestHash: requestHash(input) };

    // What the decision reads, at once: the venue's live promotions, sold-out marks and webhook
    // subscriptions are memos (no round trip while the venue is unchanged); a table is one read.
    const [merch, marks, table, eventWanted] = await Promise.all([
      this.merch.live(venue.id, venue.timeZone),
      this.availability.marks(venue.id),
      this.table(venue.id, input),
      this.events.wanted(venue.id, 'order.created'),
    ]);

    // The moment the order is for, and what is available then: now, or its scheduledFor.
    const config = venue.orderConfig;
    const { scheduledFor } = input;
    const scheduleErrors =
      scheduledFor === undefined ? [] : scheduledForProblems(scheduledFor, config, venue.hours, this.availability.clock());
    const availability =
      scheduledFor === undefined || scheduleErrors.length > 0
        ? this.availability.stateNow(marks, venue.scheduledCategories)
        : this.availability.stateAt(marks, venue.scheduledCategories, instantOf(scheduledFor).getTime());

    // The price from the published menu and the live promotions, never from the client.
    const priced = priceOrder(input, {
      doc: venue.menu,
      orderConfig: config,
      hasDelivery: venue.hasDelivery,
      promoPrice: (product) => promoPrice(product, merch)?.priceMinor ?? null,
      availability,
    });

    // Refusals in this order: orders not accepted or a bad scheduledFor (400), ordering
    // closed now (409), any other problem (400), then what is unavailable (409).
    const problems = [...table.errors, ...scheduleErrors, ...priced.errors];
    if (!config.acceptingOrders || scheduleErrors.length > 0) return this.refuse(venue.id, key, errors.validation(problems));
    if (scheduledFor === undefined && !venue.ordering.open) return this.refuse(venue.id, key, closedError(venue.ordering));
    if (problems.length > 0 || !priced.order) return this.refuse(venue.id, key, errors.validation(problems));
    if (priced.unavailable.length > 0) return this.refuse(venue.id, key, unavailableError(priced.unavailable, scheduledFor !== undefined));

    // The order, its key, its lines and its event in one statement committed on its own: the venue's
    // order lock is held while the database runs it, never across a round trip to this process.
    const token = newGuestToken();
    const order = {
      id: uuidv7(),
      ...guestFields(input),
      tableId: table.id,
      tableName: table.name,
      currency: venue.currency,
      publicationId: venue.publicationId,
      guestToken: token,
      ...priced.order,
    };
    const event = eventWanted ? this.events.head('order.created') : null;
    const inserted = await this.db.alone({ venueId: venue.id, ordersOnly: true }, (db, notify) =>
      insertOrder(db, venue.id, order, key, event, notify),
    );
    if (inserted === null) {
      // Two requests with one key: the insert that lost waited for the winner's commit, whose order
      // this one answers with (or 409 when its body differs).
      const replay = key && (await this.replay(venue.id, key));
      if (!replay) throw errors.idempotencyKeyReused();
      return replay;
    }
    this.events.queued(venue.id, inserted.queued);
    if (key !== null && Math.random() * PURGE_EVERY < 1) void this.purgeExpiredKeys(venue.id).catch(() => undefined);
    return { order: orderView(inserted.row, inserted.lines), token, replayed: false };
  }

  /** A dine-in order's table: an active table of this venue, named by its id; otherwise errors. */
  private async table(venueId: string, input: GuestOrderInput): Promise<TableChoice> {
    if (input.tableId === undefined) return { id: null, name: null, errors: [] };
    if (input.type !== 'dine_in') return { id: null, name: null, errors: ['tableId is only for dine_in orders'] };
    const table = await this.tables.activeTable(venueId, input.tableId);
    if (!table) return { id: null, name: null, errors: ['tableId is not an active table of this venue'] };
    return { ...table, errors: [] };
  }

  /**
   * A refusal, unless the request is the retry of one that already made its order: that order comes
   * back, even when the menu, the settings or the clock would now refuse the same
   * request. Looked up only here: a new key (the common case) is recorded by the order's statement.
   *
   * Guest orders keep keys of their own rather than the /v1 idempotency step, because a retried guest
   * order replays the order its key made (200), not the first response, and the order's one statement
   * records the key where the /v1 step would add two round trips to every order.
   */
  private async refuse(venueId: string, key: OrderKey | null, refusal: AppError): Promise<PlacedOrder> {
    const replay = key && (await this.replay(venueId, key));
    if (replay) return replay;
    throw refusal;
  }

  /** The order a live key made, or null; 409 IDEMPOTENCY_KEY_REUSED when the key came with another body. */
  private async replay(venueId: string, key: OrderKey): Promise<PlacedOrder | null> {
    const previous = await findIdempotencyKey(this.db, venueId, key.key);
    if (!previous) return null;
    if (previous.request_hash !== key.requestHash) throw errors.idempotencyKeyReused();
    const row = await findOrderWithToken(this.db, venueId, previous.order_id);
    if (!row) return null;
    return { order: (await loadOrderViews(this.db, venueId, [row]))[0], token: row.guest_token, replayed: true };
  }

  /** Deletes the venue's order keys past their 24 hours; a replay never sees them (findIdempotencyKey). */
  purgeExpiredKeys(venueId: string): Promise<void> {
    return this.db.transaction((tx) => deleteExpiredOrderKeys(tx, venueId), { venueId });
  }
}

/** What the guest wrote of the order, as stored (none given: null). */
function guestFields(input: GuestOrderInput) {
  return {
    type: input.type,
    customerName: input.customerName ?? null,
    customerPhone: input.customerPhone ?? null,
    customerEmail: input.customerEmail ?? null,
    deliveryAddress: input.deliveryAddress ?? null,
    deliveryNotes: input.deliveryNotes ?? null,
    paymentMethod: input.paymentMethod,
    comment: input.comment ?? null,
    changeFromAmount: input.changeFromAmount ?? null,
    scheduledFor: input.scheduledFor === undefined ? null : instantOf(input.scheduledFor),
  };
}

/** 409 ORDERING_CLOSED: paused or outside the opening hours now, with when it opens. */
function closedError(ordering: OrderingView): AppError {
  const when = ordering.opensAt === null ? '' : `; it opens at ${ordering.opensAt}`;
  return errors.orderingClosed(
    `Ordering is ${ordering.reason === 'paused' ? 'paused' : 'closed'} now${when}`,
    ordering.reason as string,
    ordering.opensAt,
  );
}

/** 409 ITEM_UNAVAILABLE: each thing asked for once, named in the message. */
function unavailableError(found: UnavailableItem[], scheduled: boolean): AppError {
  const unique = [...new Map(found.map((u) => [`${u.productId}:${u.optionId}`, u])).values()];
  const names = unique.map((u) => `${u.label}${u.until === null ? '' : ` (until ${u.until})`}`);
  return errors.itemUnavailable(
    `Not available ${scheduled ? 'at the scheduled time' : 'now'}: ${names.join(', ')}`,
    unique.map(({ productId, optionId, until }) => ({ productId, optionId, until })),
  );
}
