import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions, preValidationHookHandler } from 'fastify';
import { isConnectionLost, LOCK_NOT_AVAILABLE, sqlState } from '../db/port.js';
import { AppError, errors } from '../errors.js';
import { BODY_LIMIT_BYTES } from '../limits.js';
import { shownPath, type BindRequestLog } from './request-logger.js';
import { formatValidationErrors } from './validation.js';

const VALIDATION_ROOT: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

/** Fastify's own errors (parsing, body size, content type) mapped into the catalogue. */
function fromFastifyError(err: FastifyError, request: FastifyRequest): AppError | null {
  if (err.validation) {
    const root = VALIDATION_ROOT[err.validationContext ?? 'body'] ?? 'body';
    return errors.validation(formatValidationErrors(err.validation as never, root));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(request.routeOptions.bodyLimit ?? BODY_LIMIT_BYTES);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.validation(['content-type must be application/json']);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.validation(['body must be valid JSON']);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.validation(['content-length does not match the body']);
    // The router's own (frameworkErrors, below).
    case 'FST_ERR_BAD_URL':
      return errors.validation(['path must be valid percent-encoded UTF-8']);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError({ statusCode: 414, message: `A path segment is longer than ${MAX_PARAM_LENGTH} characters` });
  }
  // A venue's lock held past lock_timeout: busy, not broken; the client retries shortly.
  if (sqlState(err) === LOCK_NOT_AVAILABLE) return errors.lockTimeout(2);
  // A connection cut (pg_terminate_backend, a restart, a network fault): the pool reconnects on
  // the next checkout, so the client retries shortly. Never retried here: a cut COMMIT may have landed.
  if (isConnectionLost(err)) return errors.databaseUnavailable(2);
  // JSON.parse failures and prototype-poisoning refusals surface as 400 SyntaxErrors.
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON|__proto__|constructor/i.test(err.message))) {
    return errors.validation(['body must be valid JSON']);
  }
  // Any other 4xx keeps its status, but not its message: Fastify's quote what was sent (a content
  // type, a URL), and an error never echoes a value (docs/security.md).
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError({ statusCode: err.statusCode, message: STATUS_CODES[err.statusCode] ?? 'Bad Request' });
  }
  return null;
}

export function envelope(err: AppError, request: { id: string; url: string }) {
  const path = shownPath(request.url);
  return {
    statusCode: err.statusCode,
    message: err.message,
    ...(err.code ? { code: err.code } : {}),
    ...(err.details ? { details: err.details } : {}),
    ...(err.errors ? { errors: err.errors } : {}),
    requestId: request.id,
    timestamp: new Date().toISOString(),
    path,
  };
}

const internalError = () => new AppError({ statusCode: 500, message: 'Internal server error' });

/**
 * The client closed the connection while its body was arriving (an upload cut short): Node's
 * 'aborted' error on the request stream, which carries ECONNRESET and would otherwise read as a
 * database connection lost.
 */
function cutByClient(error: unknown, request: FastifyRequest): boolean {
  return sqlState(error) === 'ECONNRESET' && request.raw.destroyed;
}

function send(reply: FastifyReply, request: FastifyRequest, err: AppError, hsts: string | null) {
  if (err.headers) reply.headers(err.headers);
  // Set here too for the errors raised before any route's gate (router, body parser on an unknown path).
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  if (hsts) reply.header('strict-transport-security', hsts);
  return reply.status(err.statusCode).type('application/json; charset=utf-8').send(envelope(err, request));
}

export interface NotFoundGate {
  /** Runs before the 404 of an unknown path (the per-IP limits). */
  hook: preValidationHookHandler;
  /** The same limits for an unknown path whose request failed before the hook (a bad body). */
  charge: ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | null;
}

/** The error envelope for every failure. */
export function registerErrorHandling(app: FastifyInstance, notFound: NotFoundGate, hsts: string | null): void {
  app.setErrorHandler(async (error: FastifyError | AppError | Error, request, reply) => {
    if (notFound.charge && request.is404 && request.ipCharge === undefined) {
      try {
        await notFound.charge(request, reply);
      } catch (limited) {
        if (limited instanceof AppError) return send(reply, request, limited, hsts);
        throw limited;
      }
    }
    if (cutByClient(error, request)) {
      // Nothing failed here and nobody is left to answer: one line at info, without a stack.
      request.log.info(
        { route: request.routePattern, code: 'ECONNRESET' },
        'the client closed the connection before its request body arrived',
      );
      return send(reply, request, errors.bodyCut(), hsts);
    }
    const known = error instanceof AppError ? error : fromFastifyError(error as FastifyError, request);
    if (known) {
      // A 503 of ours (MEDIA_BUSY, LOCK_TIMEOUT) is the service working as designed under load: a
      // warning with its code, not an error with a stack per refused request.
      if (error instanceof AppError && known.statusCode >= 500) request.log.warn({ code: known.code }, known.message);
      else if (known.statusCode >= 500) request.log.error({ err: error }, known.message);
      return send(reply, request, known, hsts);
    }
    // Never show a stack or SQL to the client: log it with the request id instead.
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, request, internalError(), hsts);
  });

  app.setNotFoundHandler({ preValidation: notFound.hook }, (request, reply) =>
    send(reply, request, errors.routeNotFound(request.method, shownPath(request.url)), hsts),
  );
}

/** The router's limit on one decoded path parameter: an externalId (255 characters) must fit. */
export const MAX_PARAM_LENGTH = 512;

/**
 * Errors the router raises before any route or hook runs (a path that is not valid
 * percent-encoded UTF-8, a parameter over MAX_PARAM_LENGTH): Fastify's own JSON otherwise. The
 * request gate never sees them, so their logger is given here (`bindLog`, none when nothing logs);
 * their access line is the access log's, as for any request.
 */
export function frameworkErrors(
  bindLog: BindRequestLog | undefined,
  hsts: string | null,
): NonNullable<FastifyServerOptions['frameworkErrors']> {
  return (error, request, reply) => {
    if (bindLog) bindLog(request, reply);
    void send(reply, request, fromFastifyError(error, request) ?? internalError(), hsts);
  };
}

/** Node's code for a parser error -> its answer; any other is a malformed request. */
const CLIENT_ERRORS = new Map([
  ['ERR_HTTP_REQUEST_TIMEOUT', { statusCode: 408, message: 'The request did not arrive in time' }],
  ['HPE_HEADER_OVERFLOW', { statusCode: 431, message: 'Request headers are too large' }],
]);
export const MALFORMED_REQUEST = { statusCode: 400, message: 'Malformed HTTP request' };

/**
 * Errors Node's HTTP parser raises before a request exists (a malformed request line, headers
 * over the size limit, a request that did not arrive within requestTimeout): answered in the
 * envelope on the raw socket, which is then closed, as Fastify's default handler does.
 */
export function clientErrorHandler(error: Error, socket: Socket): void {
  const err = error as NodeJS.ErrnoException & { rawPacket?: Buffer };
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // The request line may be readable even when the rest is not; the path is only ever echoed
  // as far as it is plain printable ASCII.
  const line = err.rawPacket?.subarray(0, 2048).toString('latin1').split('\r\n')[0] ?? '';
  const target = /^[A-Z]+ (\/[\x21-\x7e]*) HTTP\/1\.[01]$/.exec(line)?.[1] ?? '/';
  answerOnSocket(socket, CLIENT_ERRORS.get(err.code ?? '') ?? MALFORMED_REQUEST, target);
}

/**
 * A body that stopped arriving before its route's deadline (app.ts): 408, as Node's own request
 * timeout answers, on the socket, which closes; what the request held is released as it closes.
 */
export function bodyTimedOut(socket: Socket, url: string): void {
  if (!socket.destroyed) answerOnSocket(socket, CLIENT_ERRORS.get('ERR_HTTP_REQUEST_TIMEOUT')!, url);
}

function answerOnSocket(socket: Socket, { statusCode, message }: { statusCode: number; message: string }, url: string): void {
  const body = JSON.stringify(envelope(new AppError({ statusCode, message }), { id: randomUUID(), url }));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
