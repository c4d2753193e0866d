import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import type { ApiKeysService } from '../../modules/venues/api-keys.service.js';
import { limitVenue, type RateLimiter } from '../rate-limit/limiter.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The /v1 gate of one route, in the order of decisions section 11: authentication and
 * subscription (in the service), the read-only flag on writes, the route's plan feature, then the
 * venue's rate limits. (The per-IP limits ran before this.)
 */
export function apiKeyAuth(apiKeys: ApiKeysService, limiter: RateLimiter | null, config: FastifyContextConfig) {
  const feature = config.planFeature;
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const venue = await apiKeys.authenticate(request.headers.authorization);
    if (venue.readOnly && !READ_METHODS.has(request.method)) throw errors.readOnlyKey();
    if (feature && !venue.planDefinition.features[feature]) throw errors.paidPlanRequired();
    // Budgets belong to the venue account: a sandbox (test key) shares its live venue's.
    if (limiter) await limitVenue(limiter, request, reply, config, venue.liveVenueId, venue.planDefinition.rateLimitTier);
    request.venue = venue;
  };
}
