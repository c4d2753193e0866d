import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { shownPath } from '../request-logger.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Operator routes: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time (both sides
 * hashed first so their lengths match). Without a configured token the routes do not exist.
 */
export function adminAuth(adminToken: string | null) {
  const expected = adminToken ? digest(adminToken) : null;
  return async function authenticateOperator(request: FastifyRequest): Promise<void> {
    if (!expected) throw errors.routeNotFound(request.method, shownPath(request.url));
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) throw errors.invalidAdminToken();
  };
}
