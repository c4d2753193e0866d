import type { FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import type { ApiKeysService } from '../../modules/venues/api-keys.service.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The /v1 gate, in the order of decisions section 11: authentication and subscription (in the
 * service), the read-only flag on writes, then the route's plan feature.
 */
export function apiKeyAuth(apiKeys: ApiKeysService) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const venue = await apiKeys.authenticate(request.headers.authorization);
    if (venue.readOnly && !READ_METHODS.has(request.method)) throw errors.readOnlyKey();
    const feature = request.routeOptions.config.planFeature;
    if (feature && !venue.planDefinition.features[feature]) throw errors.paidPlanRequired();
    request.venue = venue;
  };
}
