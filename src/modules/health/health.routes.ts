import { Type } from 'typebox';
import type { Database } from '../../db/port.js';
import { MALFORMED_REQUEST } from '../../http/error-handler.js';
import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';

const tags = ['health'];
const Status = (description: string) => Type.Object({ status: Type.String() }, { description });

// The probes take no input and no credentials, so their own work refuses nothing; the one 4xx a
// probe's request can get is the server's, for bytes that are not an HTTP request it can read.
const probeErrors = errorResponses({
  400: [
    {
      message: MALFORMED_REQUEST.message,
      when: 'Node cannot parse the request line or a header; answered on the connection, which then closes',
    },
  ],
});

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

/**
 * Liveness without touching the database; readiness when the database answers and the server is
 * not shutting down.
 */
export function healthRoutes(db: Database) {
  return async function routes(app: App): Promise<void> {
    // Set as close() begins, before in-flight requests finish.
    let draining = false;
    app.addHook('preClose', async () => {
      draining = true;
    });

    app.get(
      '/health',
      {
        config: { rateLimit: false, shed: false },
        schema: {
          operationId: 'getHealth',
          tags,
          summary: 'Liveness probe',
          description: 'Answers `{ "status": "ok" }` while the process serves requests, without touching the database.',
          response: { 200: Status('Alive: `ok`'), ...probeErrors },
        },
      },
      async () => ({ status: 'ok' }),
    );

    app.get(
      '/ready',
      {
        config: { rateLimit: false, shed: false },
        schema: {
          operationId: 'getReadiness',
          tags,
          summary: 'Readiness probe',
          description:
            `Answers \`{ "status": "ready" }\` when the database answers within ${READY_TIMEOUT_MS / 1000} s, else 503 \`{ "status": "unavailable" }\`, ` +
            'also while the server shuts down: take the instance out of the load balancer until it is ready again.',
          response: {
            200: Status('Ready: `ready`'),
            503: Status('Not ready, `unavailable`: the database did not answer in time'),
            ...probeErrors,
          },
        },
      },
      async (request, reply) => {
        // Draining: the load balancer should stop sending here while in-flight requests finish.
        if (draining) return reply.status(503).send({ status: 'unavailable' });
        try {
          await within(READY_TIMEOUT_MS, db.query('select 1'));
          return { status: 'ready' };
        } catch (err) {
          request.log.warn({ err }, 'readiness check failed');
          return reply.status(503).send({ status: 'unavailable' });
        }
      },
    );
  };
}
