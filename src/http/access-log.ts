// The access log: one line per request, written when it completes, with what an
// operator looks for: method, route pattern, status, duration, request id and venue.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { levels } from 'pino';
import type { Metrics } from './metrics.js';
import { BASE_JSON, shownPath, type LogStream, type RootLogger } from './request-logger.js';

/** An access line's fields (the request id aside: a request's own logger binds it). */
export function accessFields(request: FastifyRequest, reply: FastifyReply, ms: number) {
  return {
    method: request.method,
    // The pattern, not the path: bounded, and free of ids and tokens. An unmatched path is
    // shown as the error envelope shows it.
    route: request.routePattern ?? shownPath(request.url),
    status: reply.statusCode,
    ms: Math.round(ms * 100) / 100,
    venueId: (request as { venue?: { venueId?: string } | null }).venue?.venueId,
  };
}

const INFO = levels.values.info;

/**
 * The line `root.info({ requestId, ...accessFields }, 'request')` writes, built here and written to
 * the stream the root logger writes to (app.ts hands both the same one). pino's general path (a walk over the object, with a serializer and
 * redaction check per key) is a large share of a hot read's CPU; these fields are known,
 * numbers or strings that JSON.stringify escapes. Same bytes as pino's
 * (test/http/logging.test.ts compares them), so log shippers see no difference.
 */
function writeAccessLine(out: LogStream, request: FastifyRequest, reply: FastifyReply, elapsed: number): void {
  const { method, route, status, ms, venueId } = accessFields(request, reply, elapsed);
  // The request id is a UUID or an inbound id of [A-Za-z0-9._:-] (request-id.ts) and a venue id a
  // UUID: neither needs escaping. Methods and route patterns are few and the same strings on every
  // request: each is escaped once.
  out.write(
    `{"level":${INFO},"time":${Date.now()}${BASE_JSON},"requestId":"${request.id}",` +
      `"method":${quoted(method)},"route":${request.routePattern ? quoted(route) : JSON.stringify(route)},"status":${status},"ms":${ms}` +
      `${venueId === undefined ? '' : `,"venueId":"${venueId}"`},"msg":"request"}\n`,
  );
}

const QUOTED = new Map<string, string>();
/** A JSON string of one of a bounded set of strings (methods, route patterns), escaped once. */
function quoted(s: string): string {
  let q = QUOTED.get(s);
  if (q === undefined) QUOTED.set(s, (q = JSON.stringify(s)));
  return q;
}

const ENDED = Symbol('carta.request');
interface Ended {
  controller: AccessLogController;
  request: FastifyRequest;
  reply: FastifyReply;
  /** performance.now() when the request reached its route. */
  start: number;
}
type ClosingResponse = FastifyReply['raw'] & { [ENDED]?: Ended };

function onResponseClose(this: ClosingResponse): void {
  const ended = this[ENDED];
  if (!ended) return;
  this[ENDED] = undefined;
  ended.controller.ended(ended, this.writableEnded);
}

/**
 * Fastify writes two lines per request by default ("incoming request", "request completed"),
 * each through a child logger with the request serialised: together about the cost of a hot read.
 * Here the line is written once, by the root logger with the request id as a plain field (no
 * child logger is made), from fields that are already at hand. "incoming request" stays, at
 * debug. Errors keep their own lines (the error handler logs them with the error).
 *
 * Fastify is built without a logger of its own (app.ts), so it adds no 'finish' and 'error'
 * listeners to every response to call requestCompleted: the one 'close' listener here serves the
 * access line and the metrics, and only when one of them is on (at LOG_LEVEL=warn without metrics
 * a request gets none; docs/performance.md, "What every request pays").
 */
export class AccessLogController extends LogController {
  /** Set once the app exists (the controller is built before it). */
  root: RootLogger | null = null;
  /** The root logger's stream, which the access line is written to. */
  out: LogStream | null = null;
  /** Request counts and durations for GET /metrics, when on. */
  metrics: Metrics | null = null;

  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    const root = this.root;
    if (this.metrics) this.metrics.requestStarted();
    if (this.metrics || root?.isLevelEnabled('info')) {
      // 'close' comes after the response is sent and on an aborted one alike, so a request cut
      // before its answer still leaves the in-flight gauge. One shared listener, no closure.
      (reply.raw as ClosingResponse)[ENDED] = { controller: this, request, reply, start: performance.now() };
      reply.raw.on('close', onResponseClose);
    }
    if (root?.isLevelEnabled('debug'))
      root.debug({ requestId: request.id, method: request.method, url: shownPath(request.url) }, 'incoming request');
  }

  /** Fastify calls this only for a route with onResponse hooks: 'close' (ended) writes the line. */
  override requestCompleted(): void {}

  /** A response is closed: answered (`answered`, its end written), or cut before that. */
  ended({ request, reply, start }: Ended, answered: boolean): void {
    const ms = performance.now() - start;
    // A response the client cut before it was answered has no status of its own (it would read
    // 200): it leaves the in-flight count, is not timed and writes no access line.
    this.metrics?.requestEnded(request.method, request.routePattern ?? 'unmatched', reply.statusCode, ms / 1000, answered);
    const root = this.root;
    if (answered && this.out && root?.isLevelEnabled('info')) writeAccessLine(this.out, request, reply, ms);
  }
}
