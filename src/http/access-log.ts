// The access log (issue 15): one line per request, written when it completes, with what an
// operator looks for: method, route pattern, status, duration, request id and venue.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { levels, symbols } from 'pino';
import type { Metrics } from './metrics.js';
import { loggedPath } from './request-logger.js';

type RootLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/** An access line's fields (the request id aside: a request's own logger binds it). */
export function accessFields(request: FastifyRequest, reply: FastifyReply) {
  return {
    method: request.method,
    // The pattern, not the path: bounded, and free of ids and tokens. An unmatched path is
    // shown as the error envelope shows it.
    route: request.routePattern ?? loggedPath(request.url),
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 100) / 100,
    venueId: (request as { venue?: { venueId?: string } | null }).venue?.venueId,
  };
}

const INFO = levels.values.info;

type PinoInternals = RootLogger & { [symbols.chindingsSym]: string; [symbols.streamSym]: { write(line: string): void } };

/**
 * The line `root.info({ requestId, ...accessFields }, 'request')` writes, built here and handed to
 * the logger's own stream. pino's general path (a walk over the object, with a serializer and
 * redaction check per key) was a tenth of a 304's CPU in a profile; these fields are known,
 * numbers or strings that JSON.stringify escapes. Same bytes as pino's
 * (test/logging.test.ts compares them), so log shippers see no difference.
 */
function writeAccessLine(root: PinoInternals, request: FastifyRequest, reply: FastifyReply): void {
  const { method, route, status, ms, venueId } = accessFields(request, reply);
  root[symbols.streamSym].write(
    `{"level":${INFO},"time":${Date.now()}${root[symbols.chindingsSym]},"requestId":${JSON.stringify(request.id)},` +
      `"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"ms":${ms}` +
      `${venueId === undefined ? '' : `,"venueId":${JSON.stringify(venueId)}`},"msg":"request"}\n`,
  );
}

const ENDED = Symbol('carta.metrics');
type ClosingResponse = FastifyReply['raw'] & { [ENDED]?: { metrics: Metrics; request: FastifyRequest; reply: FastifyReply } };

function onResponseClose(this: ClosingResponse): void {
  const ended = this[ENDED];
  if (!ended) return;
  this[ENDED] = undefined;
  const { metrics, request, reply } = ended;
  // A response the client cut before it was answered has no status of its own (it would read 200):
  // it leaves the in-flight count and is not timed.
  metrics.requestEnded(request.method, request.routePattern ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000, this.writableEnded);
}

/**
 * Fastify writes two lines per request by default ("incoming request", "request completed"),
 * each through a child logger with the request serialised: together about the cost of a hot read.
 * Here the line is written once, by the root logger with the request id as a plain field (no
 * child logger is made), from fields that are already at hand. "incoming request" stays, at
 * debug. Errors keep their own lines (the error handler logs them with the error).
 */
export class AccessLogController extends LogController {
  /** Set once the app exists (the controller is built before it). */
  root: RootLogger | null = null;
  /** Request counts and durations for GET /metrics, when on. */
  metrics: Metrics | null = null;

  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (this.metrics) {
      this.metrics.requestStarted();
      // 'close' comes after the response is sent and on an aborted one alike, so a request cut
      // before its answer still leaves the in-flight gauge. One shared listener, no closure.
      (reply.raw as ClosingResponse)[ENDED] = { metrics: this.metrics, request, reply };
      reply.raw.on('close', onResponseClose);
    }
    if (this.root?.isLevelEnabled('debug')) this.root.debug({ requestId: request.id, method: request.method, url: loggedPath(request.url) }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const root = this.root;
    if (!root) return;
    const level = error ? 'error' : 'info';
    if (!root.isLevelEnabled(level)) return;
    if (error) root.error({ requestId: request.id, ...accessFields(request, reply), err: error }, 'request errored');
    else writeAccessLine(root as PinoInternals, request, reply);
  }
}
