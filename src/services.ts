import type { Config } from './config.js';
import type { Database } from './db/port.js';
import { MEDIA_BINARY_CAP_BYTES, MEDIA_MAX_REDIRECTS } from './limits.js';
import { DatabaseBlobStore, type BlobStore } from './modules/media/blob-store.js';
import { ImageProcessor } from './modules/media/image-processor.js';
import { MediaCache } from './modules/media/media-cache.js';
import { MediaCapacity } from './modules/media/media-capacity.js';
import { MediaService } from './modules/media/media.service.js';
import { MediaUrls } from './modules/media/stored-image.js';
import { BannersService } from './modules/merch/banners.service.js';
import { GuestMerch } from './modules/merch/guest-merch.js';
import { PromotionsService } from './modules/merch/promotions.service.js';
import { TablesService } from './modules/merch/tables.service.js';
import { Metrics } from './http/metrics.js';
import { OutboundFetcher } from './outbound/fetch-bytes.js';
import type { OutboundLog, Resolver } from './outbound/guarded-connector.js';
import { AvailabilityService } from './modules/availability/availability.service.js';
import { AuditService } from './modules/audit/audit.service.js';
import { findItemKeysByRefs } from './modules/menu/item-refs.js';
import { CleanupService } from './modules/menu/cleanup.service.js';
import { PublicationsService } from './modules/menu/publications.service.js';
import { GuestService } from './modules/guest/guest.service.js';
import { IdempotencyService } from './modules/idempotency/idempotency.service.js';
import { MenuCache } from './modules/menu/menu-cache.js';
import { MenuService } from './modules/menu/menu.service.js';
import { ProductsService } from './modules/menu/products.service.js';
import { SyncService } from './modules/menu/sync.service.js';
import { OrdersService } from './modules/orders/orders.service.js';
import { OrderPlacement } from './modules/orders/place-order.js';
import { OrderStreams } from './modules/orders/order-stream.js';
import { ReferenceService, type RouteEntry } from './modules/reference/reference.service.js';
import { SettingsService } from './modules/settings/settings.service.js';
import { TranslationsService } from './modules/translations/translations.service.js';
import { ApiKeysService } from './modules/venues/api-keys.service.js';
import { VenuesService } from './modules/venues/venues.service.js';
import { consoleCookieNames } from './modules/console/csrf.js';
import { SignInBudget } from './http/rate-limit/sign-in-budget.js';
import { RateLimiter } from './http/rate-limit/limiter.js';
import { MemoryRateStore } from './http/rate-limit/memory-store.js';
import type { RateStore } from './http/rate-limit/store.js';
import { StaffService } from './modules/staff/staff.service.js';
import { BoardFeeds } from './modules/console/board-feed.js';
import { BoardService } from './modules/console/board.service.js';
import { PasswordHasher } from './modules/console/passwords.js';
import { ConsoleAuthService } from './modules/console/sessions.service.js';
import { GuestOrderStreams } from './modules/guest/guest-order-stream.js';
import type { LiveStreamOptions } from './shared/live-stream.js';
import { WebhookDeliveriesService } from './modules/webhooks/deliveries.service.js';
import { WebhookDispatcher, type DispatcherOptions } from './modules/webhooks/dispatcher.js';
import { WebhookEvents } from './modules/webhooks/webhook-events.js';
import { WebhookSender } from './modules/webhooks/webhook-sender.js';
import { WebhooksService } from './modules/webhooks/webhooks.service.js';

export interface ServiceDeps {
  config: Config;
  db: Database;
  /** The registered routes, for the reference resources index (empty outside the HTTP app). */
  routes?: () => readonly RouteEntry[];
  /** Name resolution for outbound requests (the system's by default; tests never reach real DNS). */
  resolve?: Resolver;
  /** Where the SSRF guard logs what it refused and why (the app's logger); the client is told less. */
  outboundLog?: OutboundLog;
  /** The time schedules are read at (tests move it). */
  clock?: () => number;
  /** Collect GET /metrics (the HTTP app, when METRICS is on). */
  metrics?: boolean;
  /** Tests: faster webhook retries and polling. */
  webhookDispatch?: DispatcherOptions;
  /** Tests: faster heartbeats, smaller caps. */
  orderStreams?: LiveStreamOptions;
  /** Tests: the console boards' heartbeats and caps. */
  boardFeeds?: LiveStreamOptions;
  /**
   * Where console sign-in counts its failures: the rate limiter's store (Redis when set); one of
   * its own in memory when rate limits are off, since the sign-in limits never are.
   */
  signInStore?: RateStore;
}

/** Where image bytes live, chosen once from config (the S3 SDK is loaded only when used). */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  if (!config.mediaS3) return new DatabaseBlobStore();
  const { S3BlobStore } = await import('./modules/media/s3-blob-store.js');
  return new S3BlobStore(config.mediaS3);
}

/** Every service, wired once; the HTTP app and the CLI both use this. */
export function createServices(
  {
    config,
    db,
    routes = () => [],
    resolve,
    outboundLog,
    clock = Date.now,
    metrics = false,
    webhookDispatch,
    orderStreams,
    boardFeeds: boardFeedOptions,
    signInStore,
  }: ServiceDeps,
  blobStore: BlobStore = new DatabaseBlobStore(),
) {
  const menuCache = new MenuCache();
  const urls = new MediaUrls(config.mediaPublicUrl);
  const media = new MediaService({
    db,
    store: blobStore,
    processor: new ImageProcessor(),
    // Bodies being received at once, by declared size: four times what may be admitted (media-capacity.ts).
    capacity: new MediaCapacity(config.mediaConcurrency, config.mediaQueue),
    cache: new MediaCache(config.mediaCacheBytes),
    urls,
    fetcher: new OutboundFetcher(
      { maxBytes: MEDIA_BINARY_CAP_BYTES, deadlineMs: config.mediaFetchTimeoutMs, maxRedirects: MEDIA_MAX_REDIRECTS },
      { resolve, allow: config.ssrfTestAllow, log: outboundLog },
    ),
  });
  const webhookEvents = new WebhookEvents(db);
  const webhookSender = new WebhookSender(
    { resolve, allow: config.ssrfTestAllow, log: outboundLog },
    { timeoutMs: webhookDispatch?.timeoutMs },
  );
  const dispatcher = new WebhookDispatcher(db, webhookSender, webhookDispatch);
  webhookEvents.onQueued = (venueId) => dispatcher.wake(venueId);
  webhookEvents.onSubscribed = () => dispatcher.arm();
  const availability = new AvailabilityService(db, webhookEvents, clock, findItemKeysByRefs);
  const menuService = new MenuService(db, menuCache, urls, webhookEvents, availability, media, clock);
  const venues = new VenuesService(db);
  const settings = new SettingsService(db, urls, clock);
  const staff = new StaffService(db, venues, config.publicBaseUrl, clock);
  // The console's sign-in budgets: buckets of their own over the app's rate store (sign-in-budget.ts).
  const signInLimiter = new RateLimiter(signInStore ?? new MemoryRateStore(), clock);
  const orders = new OrdersService(db, webhookEvents);
  const boardFeeds = new BoardFeeds(db, orders, boardFeedOptions);
  const tables = new TablesService(db, config.publicBaseUrl);
  const guestMerch = new GuestMerch(db, urls, clock);
  const orderPlacement = new OrderPlacement(db, tables, guestMerch, availability, webhookEvents);
  const guest = new GuestService(db, menuCache, urls, guestMerch, availability, orderPlacement);
  staff.onMembersChanged = (venueId) => boardFeeds.recheck(venueId);
  // A suspended or canceled venue's boards end as a disabled member's do: their sessions' check fails.
  venues.onSubscriptionChanged = (venueId) => boardFeeds.recheck(venueId);
  return {
    venues,
    apiKeys: new ApiKeysService(db),
    reference: new ReferenceService(db, routes),
    audit: new AuditService(db),
    settings,
    sync: new SyncService(db, config),
    menu: menuService,
    products: new ProductsService(db, urls, media, availability),
    media,
    availability,
    cleanup: new CleanupService(db),
    translations: new TranslationsService(db),
    orders,
    orderPlacement,
    orderStreams: new OrderStreams(db, orderStreams),
    guest,
    idempotency: new IdempotencyService(db),
    banners: new BannersService(db, urls, media),
    publications: new PublicationsService(db, menuService, availability, media, webhookEvents),
    promotions: new PromotionsService(db),
    tables,
    webhooks: new WebhooksService(db, config.ssrfTestAllow),
    webhookDeliveries: new WebhookDeliveriesService(db, webhookEvents),
    webhookEvents,
    webhookSender,
    // Staff accounts (the operator's side, staff/) and the console's sign-in and sessions (console/).
    staff,
    consoleAuth: new ConsoleAuthService(
      db,
      venues,
      clock,
      new PasswordHasher(config.scryptCost),
      new SignInBudget(signInLimiter, config.signInHashes),
      consoleCookieNames(config.publicBaseUrl).session,
    ),
    board: new BoardService(db, orders, settings, availability, clock),
    boardFeeds,
    guestOrderStreams: new GuestOrderStreams(db, guest),
    dispatcher,
    metrics: metrics ? new Metrics(db) : null,
    signInLimiter,
  };
}

export type Services = ReturnType<typeof createServices>;
