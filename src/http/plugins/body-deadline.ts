import type { preParsingHookHandler, RouteOptions } from 'fastify';
import { BODY_LIMIT_BYTES } from '../../limits.js';
import { bodyTimedOut } from '../error-handler.js';

export interface BodyDeadlines {
  /** A JSON body must have arrived this long after its headers. */
  bodyMs: number;
  /** The same for routes that take more than the ordinary body limit (image uploads). */
  uploadMs: number;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Gives every route that takes a body its deadline for receiving it: a body that stops arriving
 * (or trickles in) is answered 408 on the socket, which closes, and what the request had taken
 * goes with it (an upload's receiving place; its processing place and any idempotency key come
 * only after the body). Node's own requestTimeout, past the longest deadline, is the backstop for
 * every request, the unknown paths' included.
 */
export function bodyDeadlines({ bodyMs, uploadMs }: BodyDeadlines) {
  const deadline =
    (ms: number): preParsingHookHandler =>
    (request, reply, payload, done) => {
      const raw = request.raw;
      if (!raw.complete) {
        const timer = setTimeout(() => {
          // Once answered, the rest of the body is lingering-close.ts's to drain, within its own bound.
          if (!raw.complete && !reply.raw.headersSent) bodyTimedOut(raw.socket, request.url);
        }, ms).unref();
        const stop = () => clearTimeout(timer);
        // A body read in full, or a request answered without reading it (413, 401), or gone.
        raw.once('end', stop);
        reply.raw.once('finish', stop);
        reply.raw.once('close', stop);
      }
      done(null, payload);
    };
  const json = deadline(bodyMs);
  const upload = deadline(uploadMs);

  /** An onRoute hook. */
  return (route: RouteOptions): void => {
    if (![route.method].flat().some((m) => BODY_METHODS.has(m))) return;
    const hook = (route.bodyLimit ?? BODY_LIMIT_BYTES) > BODY_LIMIT_BYTES ? upload : json;
    route.preParsing = [hook, ...[route.preParsing ?? []].flat()] as RouteOptions['preParsing'];
  };
}
