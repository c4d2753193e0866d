import { Type } from 'typebox';
import type { Database } from '../../db/port.js';
import type { App } from '../../http/types.js';

const Status = Type.Object({ status: Type.String() });

/** Liveness without touching the database; readiness when the database answers (decisions 0). */
export function healthRoutes(db: Database) {
  return async function routes(app: App): Promise<void> {
    app.get('/health', { config: { rateLimit: false }, schema: { tags: ['health'], response: { 200: Status } } }, async () => ({ status: 'ok' }));

    app.get('/ready', { config: { rateLimit: false }, schema: { tags: ['health'], response: { 200: Status, 503: Status } } }, async (request, reply) => {
      try {
        await db.query('select 1');
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        return reply.status(503).send({ status: 'unavailable' });
      }
    });
  };
}
