import Fastify from 'fastify';
import pino from 'pino';
import { AccessLogController } from './http/access-log.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Database } from './db/port.js';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH, registerErrorHandling } from './http/error-handler.js';
import { documentRoute, OPENAPI_ROUTE_SCHEMA, openApiDocument, registerOpenApi } from './http/openapi.js';
import { LoadShedder } from './http/load-shedding.js';
import { bodyDeadlines } from './http/plugins/body-deadline.js';
import { registerJsonBody } from './http/plugins/json-body.js';
import { type LingeringClose, registerLingeringClose } from './http/plugins/lingering-close.js';
import { hstsHeader, requestGate, surfaceOf } from './http/plugins/request-gate.js';
import { idempotency } from './http/plugins/idempotency.js';
import { genReqId } from './http/plugins/request-id.js';
import { RateLimiter } from './http/rate-limit/limiter.js';
import { MemoryRateStore } from './http/rate-limit/memory-store.js';
import { ErrorResponse } from './http/schemas/common.js';
import type { App } from './http/types.js';
import { requestLogBinder, rootLogger } from './http/request-logger.js';
import { lazySerializers } from './http/serialization.js';
import { validatorFactory, ValidatorWarmUp } from './http/validation.js';
import { BODY_LIMIT_BYTES } from './limits.js';
import { metricsRoutes } from './modules/health/metrics.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { docsRoutes } from './modules/docs/docs.routes.js';
import type { RouteEntry } from './modules/reference/reference.service.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { guestRoutes } from './modules/guest/guest.routes.js';
import { guestPageRoutes } from './modules/guest-page/page.routes.js';
import { imageRoutes } from './modules/media/image.routes.js';
import { mediaFileRoutes } from './modules/media/media.routes.js';
import { bannerImageRoutes } from './modules/merch/banner-image.js';
import { bannersRoutes } from './modules/merch/banners.routes.js';
import { promotionsRoutes } from './modules/merch/promotions.routes.js';
import { guestTableRoutes, tablesRoutes } from './modules/merch/tables.routes.js';
import { availabilityRoutes } from './modules/availability/availability.routes.js';
import { menuRoutes } from './modules/menu/menu.routes.js';
import { productImageRoutes } from './modules/menu/product-image.js';
import { publicationsRoutes } from './modules/menu/publications.routes.js';
import { ordersRoutes } from './modules/orders/orders.routes.js';
import { referenceRoutes } from './modules/reference/reference.routes.js';
import { logoImageRoutes } from './modules/settings/logo-image.js';
import { settingsRoutes } from './modules/settings/settings.routes.js';
import { translationsRoutes } from './modules/translations/translations.routes.js';
import { adminRoutes } from './modules/venues/admin.routes.js';
import { consoleRoutes } from './modules/console/console.routes.js';
import { consoleApiRoutes } from './modules/console/console-api.routes.js';
import { staffAdminRoutes } from './modules/staff/staff.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import type { Resolver } from './outbound/guarded-connector.js';
import type { DispatcherOptions } from './modules/webhooks/dispatcher.js';
import type { LiveStreamOptions } from './shared/live-stream.js';
import { createServices, openBlobStore, type Services } from './services.js';
import { VERSION } from './version.js';

export interface AppDeps {
  config: Config;
  db: Database;
  /** Where log lines go (stdout by default); tests pass a stream to read them. */
  logStream?: { write(line: string): void };
  /** Name resolution for outbound requests (tests pass one that never leaves the machine). */
  resolve?: Resolver;
  /** The time banner and promotion schedules are read at (tests move it). */
  clock?: () => number;
  /** Tests: faster webhook polling and retries. */
  webhookDispatch?: DispatcherOptions;
  /** Tests: faster order stream heartbeats, smaller caps. */
  orderStreams?: LiveStreamOptions;
  boardFeeds?: LiveStreamOptions;
  /** Tests: a shorter drain of an answered request's body before its connection closes. */
  lingeringClose?: LingeringClose;
  /**
   * Compile every body validator, with the explanations of its errors, before the app serves
   * (default). Tests that build a hundred apps, one per process, compile each on first use instead.
   */
  warmValidators?: boolean;
}

export interface BuiltApp {
  app: App;
  services: Services;
}

/** How often pending S3 deletions are retried (a failed flush after commit leaves them recorded). */
const MEDIA_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const CONSOLE_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** Plugins, then modules, registered explicitly. Never listens: main.ts and the tests do. */
export async function buildApp({
  config,
  db,
  logStream,
  resolve,
  clock,
  webhookDispatch,
  orderStreams,
  boardFeeds,
  lingeringClose,
  warmValidators = true,
}: AppDeps): Promise<BuiltApp> {
  const accessLog = new AccessLogController();
  const hsts = hstsHeader(config.publicBaseUrl);
  const warmUp = new ValidatorWarmUp();
  // The root logger is ours, not Fastify's: given a logger, Fastify adds 'finish' and 'error'
  // listeners to every response to report its completion, which the access log's one listener
  // does instead (access-log.ts). Nor a request logger factory: the request gate gives each
  // request its `log`, a child of this root made when it logs (requestLogBinder in
  // request-logger.ts).
  // Stdout through pino's default destination unless the server hands its buffer (serve.ts).
  const out = config.logLevel === 'silent' ? null : (logStream ?? pino.destination());
  const root = out ? rootLogger(config.logLevel, out) : null;
  const bindLog = root ? requestLogBinder(root) : undefined;
  const app = Fastify({
    logger: false,
    genReqId,
    requestIdHeader: false,
    logController: accessLog,
    bodyLimit: BODY_LIMIT_BYTES,
    // No request holds the server's capacity by arriving slowly (docs/security.md, "Timeouts"):
    // headers within headersTimeoutMs, every request whole within that and the longest body deadline
    // (the per-route ones are body-deadline.ts's), and no connection idle past idleTimeoutMs.
    // Node looks for expired requests every second, not every 30.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    requestTimeout: config.headersTimeoutMs + Math.max(config.bodyTimeoutMs, config.uploadTimeoutMs) + 1000,
    connectionTimeout: config.idleTimeoutMs,
    // proxy-addr takes a hop count too, which Fastify's types leave out.
    trustProxy: config.trustProxy as boolean | string[],
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Every error, whoever raises it (router, HTTP parser), in the error envelope.
    frameworkErrors: frameworkErrors(bindLog, hsts),
    clientErrorHandler,
    // A request read while closing is served like any other (the shutdown waits for it, then the
    // connection closes); Fastify's own 503 for it would also be outside the envelope.
    return503OnClosing: false,
    // Our own validator (validation.ts) and lazily built serialisers (serialization.ts). Naming the
    // validator here also spares Fastify building its default Ajv, which nothing would use.
    schemaController: { compilersFactory: { buildValidator: validatorFactory(warmUp), buildSerializer: lazySerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  if (root) {
    // Before any plugin: every encapsulated instance inherits `log` from this one.
    app.log = root;
    accessLog.root = root;
    accessLog.out = out;
  }

  app.decorateRequest('venue', null as never);
  app.decorateRequest('routePattern', null);
  // Declared up front, so every request object has the same shape (fast property access on hot paths).
  app.decorateRequest('decodedUpload', undefined);
  app.decorateRequest('idempotencyFinish', undefined);
  app.decorateRequest('ipCharge', undefined);
  app.decorateRequest('bodyDigest', undefined);
  registerJsonBody(app);
  registerLingeringClose(app, lingeringClose);

  // RATE_LIMITS=off turns every limiter off (local runs and functional tests only).
  // The Redis client is loaded only when REDIS_URL is set.
  const rateStore = config.rateLimits
    ? config.redisUrl
      ? new (await import('./http/rate-limit/redis-store.js')).RedisRateStore({
          url: config.redisUrl,
          prefix: config.redisKeyPrefix,
          timeoutMs: config.redisTimeoutMs,
          logger: app.log,
        })
      : new MemoryRateStore()
    : null;
  const limiter = rateStore ? new RateLimiter(rateStore) : null;
  if (limiter) app.addHook('onClose', async () => limiter.close());

  const routes: RouteEntry[] = [];
  const services = createServices(
    {
      config,
      db,
      routes: () => routes,
      resolve,
      outboundLog: root ?? undefined,
      clock,
      metrics: config.metrics,
      webhookDispatch,
      orderStreams,
      boardFeeds,
      signInStore: rateStore ?? undefined,
    },
    await openBlobStore(config),
  );
  const { metrics } = services;
  accessLog.metrics = metrics;
  metrics?.countStreams(() => services.orderStreams.count() + services.boardFeeds.count() + services.guestOrderStreams.count());
  if (limiter && metrics) limiter.onRejected = (bucket) => metrics.rejected(bucket);
  if (metrics) services.signInLimiter.onRejected = (bucket) => metrics.rejected(bucket);
  app.addHook('onClose', async () => services.media.close());
  // Every route is registered by now: the body validators and their explanations are compiled
  // before the app serves, so no request waits for one (validation.ts).
  if (warmValidators) app.addHook('onReady', async () => warmUp.compileAll());
  // Webhooks go out from every instance that serves (docs/events.md); a closing app stops claiming
  // first, and what it had not sent stays pending for the next run or another instance.
  app.addHook('onReady', async () => services.dispatcher.start());
  app.addHook('onClose', async () => {
    await services.dispatcher.stop();
    await services.webhookSender.close();
  });
  // Live order streams never end on their own: they are ended before the server waits for its
  // requests to finish, and their clients reconnect (to another instance, if there is one).
  app.addHook('preClose', async () => {
    services.orderStreams.closeAll();
    services.boardFeeds.closeAll();
    services.guestOrderStreams.closeAll();
  });
  // Ended console sessions and expired invite links are refused by the clock already; the sweep
  // deletes them, at start and every hour.
  {
    const sweep = () => services.consoleAuth.sweep().catch((err: unknown) => app.log.warn({ err }, 'console sweep failed; retrying later'));
    let timer: NodeJS.Timeout | null = null;
    app.addHook('onReady', async () => {
      void sweep();
      timer = setInterval(sweep, CONSOLE_SWEEP_INTERVAL_MS).unref();
    });
    app.addHook('onClose', async () => {
      if (timer) clearInterval(timer);
    });
  }
  if (config.mediaS3) {
    const sweep = () => services.media.sweep().catch((err: unknown) => app.log.warn({ err }, 'media sweep failed; retrying later'));
    let timer: NodeJS.Timeout | null = null;
    app.addHook('onReady', async () => {
      void sweep();
      timer = setInterval(sweep, MEDIA_SWEEP_INTERVAL_MS).unref();
    });
    app.addHook('onClose', async () => {
      if (timer) clearInterval(timer);
    });
  }
  // Every route gets its request id header, per-IP limits and its prefix's authentication as one
  // onRequest hook, built when the route is registered.
  const shedder = new LoadShedder({ maxDelayMs: config.overloadDelayMs, maxHeapShare: config.overloadHeapPercent / 100 });
  app.addHook('onClose', async () => shedder.close());
  const gate = requestGate({
    shedder,
    apiKeys: services.apiKeys,
    limiter,
    adminToken: config.adminToken,
    bindLog,
    catchUp: config.readConsistency === 'strict' && db.catchUp ? db.catchUp : undefined,
    hsts,
  });
  registerErrorHandling(app, gate.notFound, hsts);
  const withIdempotencyKey = idempotency(services.idempotency);
  const withBodyDeadline = bodyDeadlines({ bodyMs: config.bodyTimeoutMs, uploadMs: config.uploadTimeoutMs });
  app.addHook('onRoute', (route) => {
    // Path parameters reach the database only through a params schema (text-safety.ts decides
    // there what a NUL in a name means); a route without one is a mistake caught at start.
    if (route.url.includes('/:') && !route.schema?.params) throw new Error(`${route.url} has path parameters but no params schema`);
    // Request loggers come from the request gate (request-logger.ts), which has no per-route level.
    if (route.logLevel) throw new Error(`${route.url} sets logLevel, which request loggers do not take`);
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
    gate.install(route);
    withBodyDeadline(route);
    documentRoute(route);
    if (surfaceOf(route)?.auth === 'apiKey') withIdempotencyKey(route);
  });

  await registerOpenApi(app, { version: VERSION, serverUrl: config.apiServerUrl });
  app.addSchema(ErrorResponse);

  await healthRoutes(db)(app);
  if (metrics) await metricsRoutes(metrics, config.adminToken)(app);

  const document = openApiDocument(app);
  app.get('/v1/openapi.json', { config: { public: true }, schema: OPENAPI_ROUTE_SCHEMA }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(document()),
  );
  await docsRoutes(document)(app);

  // In this order, which is the OpenAPI document's. Each prefix is a Fastify plugin of its own.
  await app.register(
    async (v1) => {
      for (const routes of [
        referenceRoutes,
        menuRoutes,
        publicationsRoutes,
        availabilityRoutes,
        settingsRoutes,
        translationsRoutes,
        auditRoutes,
        ordersRoutes,
      ])
        await routes(services)(v1);
      // The uploads' own body parser (media-body.ts) stays in their scope.
      await v1.register(imageRoutes(services, [productImageRoutes, bannerImageRoutes, logoImageRoutes]));
      for (const routes of [bannersRoutes, promotionsRoutes, tablesRoutes, webhooksRoutes]) await routes(services)(v1);
    },
    { prefix: '/v1' },
  );
  await app.register(mediaFileRoutes(services, limiter), { prefix: '/media' });
  await app.register(
    async (guest) => {
      await guestRoutes(services)(guest);
      await guestTableRoutes(services)(guest);
    },
    { prefix: '/guest/v1' },
  );
  await guestPageRoutes(services, config)(app);
  await consoleRoutes(services, config.publicBaseUrl)(app);
  await app.register(consoleApiRoutes(services, limiter), { prefix: '/console/api' });
  await app.register(
    async (operator) => {
      await adminRoutes(services)(operator);
      await staffAdminRoutes(services)(operator);
    },
    { prefix: '/admin/v1' },
  );

  return { app, services };
}
