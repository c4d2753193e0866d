import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { VenueBucket } from '../limits.js';
import type { IpCharge } from './rate-limit/limiter.js';
import type { PlanFeatures } from '../modules/venues/plans.js';
import type { VenueContext } from '../modules/venues/api-keys.service.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression<RawServerDefault>,
  RawReplyDefaultExpression<RawServerDefault>,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A plan feature the route needs (403 PAID_PLAN_REQUIRED without it). */
    planFeature?: keyof PlanFeatures;
    /** Per-venue rate buckets the route draws from besides `general` (a function may look at the request). */
    buckets?: VenueBucket[] | ((request: FastifyRequest) => VenueBucket[]);
    /** Routes outside every rate limit (health and readiness probes). */
    rateLimit?: false;
    /** Routes answered even while the server sheds load (the probes; load-shedding.ts). */
    shed?: false;
    /** Open to anyone though its path is under an authenticated prefix (the OpenAPI document at /v1/openapi.json). */
    public?: true;
    /**
     * Path parameters that are credentials (a table's QR token, a guest order's token): masked in
     * every log line and in the error envelope's `path` (request-logger.ts, shownPath).
     */
    secretParams?: readonly string[];
    /** Responses carry order or customer data (or a secret): `Cache-Control: no-store`, set by the request gate. */
    noStore?: true;
  }
  interface FastifyRequest {
    /**
     * The matched route's pattern (`/v1/products/:ref`), set by the request gate; null for a path
     * no route matches. The access log and metrics read it (request.routeOptions builds an object per read).
     */
    routePattern: string | null;
    /** The caller's venue; set by the API-key plugin on every /v1 route that needs a key. */
    venue: VenueContext;
    /** The per-IP slots this request took (refunded if a venue bucket refuses it). */
    ipCharge?: IpCharge;
    /** sha256 of the raw JSON body, where the scope's parser records it (json-body.ts). */
    bodyDigest?: string;
  }
}
