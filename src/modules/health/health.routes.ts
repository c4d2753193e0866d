import { Type } from 'typebox';
import type { Database } from '../../db/port.js';
import type { App } from '../../http/types.js';

const Status = Type.Object({ status: Type.String() });

/**
 * A readiness probe answers within this: a database that does not answer (a connect waiting out
 * its 10 s timeout, a black-holed network) is not ready, and the probe must not hang on it.
 */
export const READY_TIMEOUT_MS = 2000;

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  // The check may still settle after the timeout: its outcome no longer matters.
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Liveness without touching the database; readiness when the database answers (decisions 0). */
export function healthRoutes(db: Database) {
  return async function routes(app: App): Promise<void> {
    app.get('/health', { config: { rateLimit: false }, schema: { tags: ['health'], response: { 200: Status } } }, async () => ({ status: 'ok' }));

    app.get('/ready', { config: { rateLimit: false }, schema: { tags: ['health'], response: { 200: Status, 503: Status } } }, async (request, reply) => {
      try {
        await within(READY_TIMEOUT_MS, db.query('select 1'));
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
        return reply.status(503).send({ status: 'unavailable' });
      }
    });
  };
}
