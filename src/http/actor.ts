import type { FastifyRequest } from 'fastify';
import type { Actor } from '../modules/audit/audit.service.js';

/** Who makes a /v1 write: the key's venue and the request id its audit entries carry. */
export function actorOf(request: FastifyRequest): Actor {
  return { venue: request.venue, requestId: request.id };
}
