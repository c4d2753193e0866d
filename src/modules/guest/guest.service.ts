import { EpochMemo } from '../../db/epoch-memo.js';
import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { remember } from '../../lru.js';
import { type CachedBody, type MenuCache, publicationDocument, type MenuDocumentValue, guestVisible } from '../menu/index.js';
import {
  findGuestOrder,
  guestOrderClock,
  guestOrdersChangedAfter,
  loadOrderViews,
  type OrderPlacement,
  type PlacedOrder,
  type OrderView,
  type GuestOrderInput,
} from '../orders/index.js';
import type { MediaUrls } from '../media/index.js';
import { effectiveLanguages, effectiveOrderConfig, type OrderConfigValue } from '../settings/index.js';
import { PLAN_DEFINITIONS, requireActiveSubscription } from '../venues/index.js';
import { findGuestVenue, type GuestVenueRow } from './guest.repository.js';
import type { GuestMenuView, GuestOrderView } from './guest.schemas.js';
import { guestMenu, type GuestVenueInfo } from './guest-view.js';
import type { GuestMerch } from '../merch/index.js';
import {
  type AvailabilityService,
  type OrderingView,
  scheduledCategories,
  type ScheduledCategory,
  orderingAt,
} from '../availability/index.js';
import { sharedHours, type Hours } from '../../shared/opening-hours.js';

/** The order settings as guests meet them: delivery shows as enabled only where the plan includes it. */
function guestOrderConfig(v: GuestVenueRow): OrderConfigValue {
  const config = effectiveOrderConfig(v.order_config);
  return { ...config, deliveryEnabled: config.deliveryEnabled && PLAN_DEFINITIONS[v.plan].features.hasDelivery };
}

function venueInfo(v: GuestVenueRow, urls: MediaUrls): GuestVenueInfo {
  return {
    slug: v.slug,
    name: v.name,
    currency: v.currency,
    defaultLanguage: v.default_language,
    languages: effectiveLanguages(v.default_language, v.enabled_languages),
    cardStyle: v.card_style ?? 'minimalism',
    timezone: v.timezone ?? 'UTC',
    openingHours: v.opening_hours,
    orderConfig: guestOrderConfig(v),
    logo: urls.view(v.id, v.logo),
    accentColor: v.theme?.accentColor ?? null,
  };
}

export interface GuestMenuRead {
  venueId: string;
  info: GuestVenueInfo;
  locale: string;
  version: string;
  build: () => Promise<GuestMenuView>;
}

const GUEST_TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** A guest order's ETag: its last change on the venue's order clock. */
const guestEtag = (updatedAt: Date) => `"${updatedAt.getTime().toString(36)}"`;

/** A batch of the venue's changed guest orders (changedAfter): what each is now, and their views on demand. */
export interface GuestOrderChanges {
  changes: { token: string; at: number; etag: string; status: string }[];
  views: (tokens: ReadonlySet<string>) => Promise<Map<string, GuestOrderView>>;
}

/** The guest's view of an order: progress, lines and totals, no contact details. */
function guestOrderView(order: OrderView): GuestOrderView {
  return {
    orderNumber: order.orderNumber,
    status: order.status,
    type: order.type,
    paymentMethod: order.paymentMethod,
    tableName: order.tableName,
    currency: order.currency,
    items: order.items.map((it) => ({
      productName: it.productName,
      quantity: it.quantity,
      unitPrice: it.unitPrice,
      totalPrice: it.totalPrice,
      modifiers: it.modifiers.map((m) => ({
        groupName: m.groupName,
        ingredientName: m.ingredientName,
        priceAdjustment: m.priceAdjustment,
        quantity: m.quantity,
      })),
    })),
    subtotalAmount: order.subtotalAmount,
    deliveryFee: order.deliveryFee,
    discountAmount: order.discountAmount,
    totalAmount: order.totalAmount,
    scheduledFor: order.scheduledFor,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

/** Parsed published snapshots kept for pricing and the guest view (they never change). */
const MAX_SNAPSHOTS = 500;

/** The public guest surface: the published menu and order placement. */
export class GuestService {
  /** Parsed snapshots by publication id: immutable, so never stale. */
  private readonly snapshots = new Map<string, MenuDocumentValue>();

  /** The categories with a schedule of each parsed snapshot. */
  private readonly scheduled = new WeakMap<MenuDocumentValue, ScheduledCategory[]>();
  /** The ordering state last computed for a venue row (one per settings version), while it holds. */
  private readonly orderings = new WeakMap<GuestVenueRow, { at: number; validUntil: number; view: OrderingView; key: string }>();
  /** The opening hours of a venue row (one per settings version). */
  private readonly hoursOf = new WeakMap<GuestVenueRow, Hours>();

  private readonly venues: EpochMemo<GuestVenueRow | null>;

  constructor(
    private readonly db: Database,
    private readonly cache: MenuCache,
    private readonly urls: MediaUrls,
    private readonly merch: GuestMerch,
    private readonly availability: AvailabilityService,
    private readonly placement: OrderPlacement,
  ) {
    this.venues = new EpochMemo(db);
  }

  private scheduledOf(doc: MenuDocumentValue): ScheduledCategory[] {
    let categories = this.scheduled.get(doc);
    if (!categories) {
      // Only what guests see: a hidden category's schedule changes nothing on the guest menu.
      categories = scheduledCategories(guestVisible(doc));
      this.scheduled.set(doc, categories);
    }
    return categories;
  }

  private hours(venue: GuestVenueRow): Hours {
    let hours = this.hoursOf.get(venue);
    if (!hours) this.hoursOf.set(venue, (hours = sharedHours(venue.opening_hours, venue.timezone ?? 'UTC')));
    return hours;
  }

  /** Whether guests can order now, kept until the clock passes its next change. */
  private orderingNow(venue: GuestVenueRow): { view: OrderingView; key: string } {
    const now = this.availability.clock();
    const kept = this.orderings.get(venue);
    if (kept && kept.at <= now && now < kept.validUntil) return kept;
    const { view, validUntil } = orderingAt(guestOrderConfig(venue), this.hours(venue), now);
    const state = { at: now, validUntil, view, key: JSON.stringify(view) };
    this.orderings.set(venue, state);
    return state;
  }

  /** What is live now of availability for this snapshot, and of ordering. */
  private async liveAvailability(venue: GuestVenueRow, doc: MenuDocumentValue) {
    const marks = await this.availability.marks(venue.id);
    const availability = this.availability.stateNow(marks, this.scheduledOf(doc));
    const ordering = this.orderingNow(venue);
    return { availability, ordering: ordering.view, key: `${availability.key}|${ordering.key}` };
  }

  /** The venue a slug names, memoised; 404 when none does. */
  private async known(slug: string): Promise<GuestVenueRow> {
    const venue = await this.venues.get(
      slug,
      (venue) => (venue ? { venueId: venue.id } : undefined),
      () => findGuestVenue(this.db, slug),
    );
    if (!venue) throw errors.venueNotFound();
    return venue;
  }

  /** The venue, open to guests: an active subscription and a published menu. */
  private async venue(slug: string): Promise<GuestVenueRow & { latest_publication_id: string }> {
    const venue = await this.known(slug);
    requireActiveSubscription(venue.subscription_status);
    if (!venue.latest_publication_id) throw errors.menuNotPublished();
    return venue as GuestVenueRow & { latest_publication_id: string };
  }

  private async snapshot(venueId: string, publicationId: string): Promise<MenuDocumentValue> {
    const hit = this.snapshots.get(publicationId);
    if (hit) return hit;
    const text = await publicationDocument(this.db, venueId, publicationId);
    if (text === null) throw errors.menuNotPublished();
    const doc = JSON.parse(text) as MenuDocumentValue;
    remember(this.snapshots, publicationId, doc, MAX_SNAPSHOTS);
    return doc;
  }

  /** What is live of merchandising, by the venue's timezone (UTC until one is set, as in settings). */
  private liveMerch(venue: GuestVenueRow) {
    return this.merch.live(venue.id, venue.timezone ?? 'UTC');
  }

  /**
   * A venue's public facts (name, languages) with no subscription or publication check: what an
   * order's status page needs, which stays readable to the guest who ordered whatever the venue's
   * subscription does since (like its JSON, GET /guest/v1/venues/:slug/orders/:token).
   */
  async venueFacts(slug: string): Promise<{ venueId: string; info: GuestVenueInfo }> {
    const venue = await this.known(slug);
    return { venueId: venue.id, info: venueInfo(venue, this.urls) };
  }

  /**
   * The guest menu of a venue in the locale `choose` picks among its languages, as a version (what
   * it is built from) and a builder: the JSON route and the guest page cache their bytes by it.
   */
  async menuRead(slug: string, choose: (languages: string[], fallback: string) => string): Promise<GuestMenuRead> {
    const venue = await this.venue(slug);
    const info = venueInfo(venue, this.urls);
    const locale = choose(info.languages, info.defaultLanguage);
    const merch = await this.liveMerch(venue);
    const doc = await this.snapshot(venue.id, venue.latest_publication_id);
    const live = await this.liveAvailability(venue, doc);
    const version = `${venue.latest_publication_id}:${venue.settings_updated_at?.getTime() ?? 0}:${venue.plan}:${merch.version}:${live.key}`;
    return {
      venueId: venue.id,
      info,
      locale,
      version,
      build: async () =>
        guestMenu(doc, info, locale, venue.settings_updated_at, { merch, availability: live.availability, ordering: live.ordering }),
    };
  }

  async menu(slug: string, requestedLocale: string | undefined): Promise<CachedBody> {
    const read = await this.menuRead(slug, (languages, fallback) =>
      requestedLocale && languages.includes(requestedLocale) ? requestedLocale : fallback,
    );
    return this.cache.get(read.venueId, `guest:${read.locale}`, read.version, async () => JSON.stringify(await read.build()));
  }

  /** Places an order at a venue open to guests, against its published menu (orders/place-order.ts). */
  async placeOrder(slug: string, input: GuestOrderInput, idempotencyKey: string | undefined): Promise<PlacedOrder> {
    const venue = await this.venue(slug);
    const menu = await this.snapshot(venue.id, venue.latest_publication_id);
    const at = {
      id: venue.id,
      currency: venue.currency,
      timeZone: venue.timezone ?? 'UTC',
      hasDelivery: PLAN_DEFINITIONS[venue.plan].features.hasDelivery,
      orderConfig: guestOrderConfig(venue),
      hours: this.hours(venue),
      ordering: this.orderingNow(venue).view,
      publicationId: venue.latest_publication_id,
      menu,
      scheduledCategories: this.scheduledOf(menu),
    };
    return this.placement.place(at, input, idempotencyKey);
  }

  /**
   * The order a guest token names, as its guest sees it. The ETag is the order's last change, so a
   * status page polling with If-None-Match costs one indexed look-up and no lines read.
   */
  async order(
    slug: string,
    token: string,
  ): Promise<{ venueId: string; at: number; etag: string; status: string; tableId: string | null; view: () => Promise<GuestOrderView> }> {
    const venue = await this.known(slug);
    if (!GUEST_TOKEN.test(token)) throw errors.orderNotFound();
    const row = await findGuestOrder(this.db, venue.id, token);
    if (!row) throw errors.orderNotFound();
    return {
      venueId: venue.id,
      at: row.updated_at.getTime(),
      etag: guestEtag(row.updated_at),
      status: row.status,
      tableId: row.table_id,
      view: async () => guestOrderView((await loadOrderViews(this.db, venue.id, [row]))[0]),
    };
  }

  /** The venue's order clock: where the guest streams' shared reader of the venue starts. */
  orderClock(venueId: string): Promise<Date | null> {
    return guestOrderClock(this.db, venueId);
  }

  /**
   * The venue's guest orders changed after `after`, oldest first, at most `limit` (one statement),
   * and their views for the tokens asked (their lines in one more): the live status pages' batch.
   */
  async changedAfter(venueId: string, after: Date, limit: number): Promise<GuestOrderChanges> {
    const rows = await guestOrdersChangedAfter(this.db, venueId, after, limit);
    return {
      changes: rows.map((row) => ({
        token: row.guest_token,
        at: row.updated_at.getTime(),
        etag: guestEtag(row.updated_at),
        status: row.status,
      })),
      views: async (tokens) => {
        const wanted = rows.filter((row) => tokens.has(row.guest_token));
        const views = wanted.length === 0 ? [] : await loadOrderViews(this.db, venueId, wanted);
        return new Map(views.map((view, i) => [wanted[i].guest_token, guestOrderView(view)]));
      },
    };
  }
}
