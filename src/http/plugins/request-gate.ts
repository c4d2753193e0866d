import type { FastifyContextConfig, FastifyReply, FastifyRequest, preValidationHookHandler, RouteOptions } from 'fastify';
import { declareSecretParams, type BindRequestLog } from '../request-logger.js';
import type { ApiKeysService } from '../../modules/venues/api-keys.service.js';
import type { LoadShedder } from '../load-shedding.js';
import { limitIp, type RateLimiter } from '../rate-limit/limiter.js';
import { adminAuth } from './admin-auth.js';
import { apiKeyAuth } from './api-key-auth.js';

/**
 * The API surfaces by prefix: who may call them. Routes elsewhere (health probes, the OpenAPI
 * document) are open and read no data.
 */
export interface Surface {
  auth: 'apiKey' | 'operator' | null;
}

const SURFACES: Record<string, Surface> = {
  '/v1': { auth: 'apiKey' },
  '/admin/v1': { auth: 'operator' },
  '/guest/v1': { auth: null },
};

/**
 * The surface a route belongs to by its path (/v1/menu belongs to /v1), or undefined for the open
 * routes: those outside every surface's prefix and those declared `public` inside one (the OpenAPI
 * document at /v1/openapi.json). The OpenAPI document and the idempotency step read it too.
 */
export function surfaceOf(route: { url: string; config?: FastifyContextConfig }): Surface | undefined {
  if (route.config?.public) return undefined;
  return Object.entries(SURFACES).find(([prefix]) => route.url === prefix || route.url.startsWith(`${prefix}/`))?.[1];
}

export interface GateDeps {
  apiKeys: ApiKeysService;
  limiter: RateLimiter | null;
  adminToken: string | null;
  /** Gives the request and its reply their logger (request-logger.ts); absent when nothing logs. */
  bindLog?: BindRequestLog;
  /** The database's catch-up (PostgreSQL): before any read, see every write committed so far. */
  catchUp?: () => Promise<void>;
  /** Answers 503 SERVER_BUSY while the server is overloaded (load-shedding.ts). */
  shedder?: LoadShedder;
  /** The Strict-Transport-Security value of every response, on an https deployment (hstsHeader). */
  hsts?: string | null;
}

/**
 * Browsers that reached an https deployment use only https for it for a year, so no later visit
 * (a typed address, an old http link) goes out in clear where its cookies could be read or set.
 */
export function hstsHeader(publicBaseUrl: string): string | null {
  return publicBaseUrl.startsWith('https:') ? 'max-age=31536000; includeSubDomains' : null;
}

/** A path parameter whose name says it is a credential. */
const CREDENTIAL_PARAM = /^:\w*(token|secret)\w*$/i;

/**
 * A route's secret path parameters, recorded for shownPath (request-logger.ts). A route with a
 * parameter named like a credential (`:token`) must declare it: one added later cannot log its
 * tokens by forgetting to.
 */
function declareSecrets(pattern: string, secretParams: readonly string[] | undefined): void {
  const undeclared = pattern.split('/').filter((s) => CREDENTIAL_PARAM.test(s) && !secretParams?.includes(s.slice(1)));
  if (undeclared.length > 0) throw new Error(`${pattern}: declare ${undeclared.join(', ')} in config.secretParams (it is a credential)`);
  if (secretParams && secretParams.length > 0) declareSecretParams(pattern, secretParams);
}

/** A step of the gate: done when it returns nothing, else when its promise settles. */
type Step = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/** Runs `steps` from `from` on, synchronously while each one finishes at once. */
function runSteps(steps: Step[], from: number, request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  for (let i = from; i < steps.length; i += 1) {
    const pending = steps[i](request, reply);
    if (pending) return pending.then(() => runSteps(steps, i + 1, request, reply));
  }
}

/**
 * Everything that runs before a route's own work, as one onRequest hook built per route when the
 * route is registered: the request's logger, the x-request-id header, the per-IP limits,
 * catching up with other instances' writes, then the prefix's authentication
 * (which applies the read-only flag, plan feature and venue limits).
 * Built once per route so a request pays no look-up of its route's options and no hook chain:
 * the hot reads (a 304, an idle poll) are mostly this hook. It is a callback hook, not an async
 * one: when every step finishes at once (a memoised key, no limits to ask a store about) the
 * request goes on in the same turn, without the promises and microtasks an async hook costs
 * (docs/performance.md, "What every request pays"). A step that throws is Fastify's to catch.
 */
export function requestGate({ apiKeys, limiter, adminToken, bindLog, catchUp, shedder, hsts = null }: GateDeps) {
  const authenticateOperator = adminAuth(adminToken);

  function gateFor(surface: Surface | undefined, config: FastifyContextConfig, pattern: string | null) {
    const steps: Step[] = [];
    if (shedder && config.shed !== false) steps.push(shedder.check);
    if (limiter && config.rateLimit !== false) steps.push(limitIp(limiter));
    if (surface && catchUp) steps.push(catchUp);
    if (surface?.auth === 'apiKey') steps.push(apiKeyAuth(apiKeys, limiter, config));
    if (surface?.auth === 'operator') steps.push(authenticateOperator);

    const noStore = config.noStore === true;
    return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
      if (bindLog) bindLog(request, reply);
      request.routePattern = pattern;
      reply.header('x-request-id', request.id);
      // Every response, errors and 304s included: a browser never guesses another type (docs/security.md).
      reply.header('x-content-type-options', 'nosniff');
      if (hsts) reply.header('strict-transport-security', hsts);
      if (noStore) reply.header('cache-control', 'no-store');
      const pending = runSteps(steps, 0, request, reply);
      if (pending) pending.then(() => done(), done);
      else done();
    };
  }

  return {
    /** An onRoute hook: puts the route's gate first among its onRequest hooks. */
    install(route: RouteOptions): void {
      declareSecrets(route.url, route.config?.secretParams);
      const gate = gateFor(surfaceOf(route), route.config ?? {}, route.url);
      route.onRequest = [gate, ...[route.onRequest ?? []].flat()] as RouteOptions['onRequest'];
    },
    /** Unknown paths are not routes but still count against the caller's IP. */
    notFound: { hook: gateFor(undefined, {}, null) as unknown as preValidationHookHandler, charge: limiter ? limitIp(limiter) : null },
  };
}
