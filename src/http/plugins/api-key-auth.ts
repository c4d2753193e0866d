import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { serveCached, whenReady } from '../serve-cached.js';
import type { ApiKeysService, VenueContext } from '../../modules/venues/api-keys.service.js';
import { limitVenue, type RateLimiter } from '../rate-limit/limiter.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The /v1 gate of one route, in this order: authentication and
 * subscription (in the service), the read-only flag on writes, the route's plan feature, then the
 * venue's rate limits. (The per-IP limits ran before this.) Synchronous while the key is
 * memoised and no limiter is on: the request gate then goes on in the same turn.
 */
export function apiKeyAuth(apiKeys: ApiKeysService, limiter: RateLimiter | null, config: FastifyContextConfig) {
  const feature = config.planFeature;
  const admit = (request: FastifyRequest, reply: FastifyReply, venue: VenueContext): void | Promise<void> => {
    if (venue.readOnly && !READ_METHODS.has(request.method)) throw errors.readOnlyKey();
    if (feature && !venue.planDefinition.features[feature]) throw errors.paidPlanRequired();
    // Budgets belong to the venue account: a sandbox (test key) shares its live venue's.
    const limited = limiter
      ? limitVenue(limiter, request, reply, config, venue.liveVenueId, venue.planDefinition.rateLimitTier)
      : undefined;
    return whenReady(limited, () => {
      request.venue = venue;
    });
  };
  return function authenticate(request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
    const { authorization } = request.headers;
    return serveCached(
      () => apiKeys.peek(authorization),
      () => apiKeys.authenticate(authorization),
      (venue) => admit(request, reply, venue),
    );
  };
}
