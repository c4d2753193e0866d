import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { pino, stdSerializers, type DestinationStream, type LoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** The process's pino logger as Carta uses it: Fastify's logger interface, and pino's level check. */
export type RootLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/**
 * A request's logger that becomes a pino child (with the request id bound) only when the request
 * logs something. Building the child on every request cost about 1.5 µs, a tenth of a hot read,
 * and at LOG_LEVEL=warn most requests log nothing. A line that is logged is the child's own, so
 * the output is the same as with an eager child.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: RootLogger,
    private readonly requestId: string,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child({ requestId: this.requestId }));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  private write(level: Level, args: unknown[]): void {
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/** Gives a request and its reply their `log`. */
export type BindRequestLog = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * The request gate's first step (request-gate.ts): the request's and the reply's `log`, a lazy child
 * of `root` with the request id bound. Fastify can make request loggers itself, through a
 * childLoggerFactory, but then checks on every request that the logger it got has seven methods,
 * by name: megamorphic look-ups that cost a hot read about 3,400 instructions, 5% of it
 * (docs/performance.md, issue 15 ninth part). Built without a logger or a factory (app.ts), Fastify
 * gives every request a shared logger that discards everything, which this replaces before
 * anything of the request's own can log. A route's own `logLevel` is refused at start (app.ts).
 */
export function requestLogBinder(root: RootLogger): BindRequestLog {
  return (request, reply) => {
    request.log = reply.log = new LazyRequestLogger(root, request.id) as unknown as FastifyBaseLogger;
  };
}

/**
 * The process's logger: pino at `level`, writing to `stream` (stdout by default), with the
 * serializers and redaction of docs/security.md. Fastify's own `res` serializer is kept, so a line
 * logged with `res` reads as it did when Fastify built the logger.
 */
export function rootLogger(level: string, stream?: { write(line: string): void }): RootLogger {
  const options: LoggerOptions = {
    level,
    serializers: { res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }), ...logSerializers },
    // Keys, tokens and bodies never reach the log (docs/security.md): the request serializer
    // logs no headers and no query string, the error serializer no database values, and
    // redact guards credential headers logged by hand.
    redact: ['req.headers.authorization', 'headers.authorization', 'authorization'],
  };
  return (stream ? pino(options, stream as DestinationStream) : pino(options)) as unknown as RootLogger;
}

// What the log may say about a request and an error (issue 12, docs/security.md): never a key, a
// token, a customer's contact details or any other value a client sent. Headers and bodies are
// never logged; these serializers cover the URL and errors, the two places values slip through.

/**
 * An API key (`carta_live_`, `carta_test_`) or a generated operator token (`carta_admin_`), the
 * underscores possibly percent-encoded.
 */
const CREDENTIAL = /carta(?:_|%5f)(live|test|admin)(?:_|%5f)[A-Za-z0-9]+/gi;
/** Every CREDENTIAL match contains it: a path without it (nearly all) skips the replace. */
const CREDENTIAL_HINT = /carta/i;

/**
 * The request path as the log and the error envelope show it: no query string (query values can
 * be anything a client put there, `?api_key=` included) and credential-shaped segments masked,
 * because keys do get pasted into URLs.
 */
export function shownPath(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!CREDENTIAL_HINT.test(path)) return path;
  return path.replace(CREDENTIAL, (_match, kind: string) => `carta_${kind.toLowerCase()}_[Redacted]`);
}

/**
 * A path as every log line shows it: as the envelope shows it (no query, credentials masked), and
 * the guest page's bearer segments masked too (a table's `/t/<token>`, an order's `/orders/<token>`).
 */
const BEARER_SEGMENT = /\/(t|orders)\/[^/]+/g;
export const loggedPath = (url: string) => shownPath(url).replace(BEARER_SEGMENT, '/$1/[Redacted]');

interface DatabaseError extends Error {
  code: string;
  severity: string;
  [field: string]: unknown;
}

const isDatabaseError = (err: Error): err is DatabaseError =>
  typeof (err as Partial<DatabaseError>).severity === 'string' && /^[0-9A-Z]{5}$/.test(String((err as Partial<DatabaseError>).code));

/**
 * What a database error may log: its SQLSTATE and the names of what it touched. Dropped: the
 * statement's parameter values (PGlite attaches `params`), `detail` (`Key (email)=(...) already
 * exists`, `Failing row contains (...)`), `where` and `hint`. A data exception (class 22) quotes
 * the offending input in its message (`invalid input syntax for type uuid: "..."`), so quoted
 * text is masked there.
 */
const NAMING_FIELDS = ['severity', 'routine', 'schema', 'table', 'column', 'dataType', 'constraint', 'query'] as const;

function databaseError(err: DatabaseError, serialized: { type: string; message: string; stack: string }) {
  const mask = (text: string) => (err.code.startsWith('22') ? text.replace(/"[^"\n]*"/g, '"[Redacted]"') : text);
  const named: Record<string, unknown> = {};
  for (const field of NAMING_FIELDS) if (err[field] !== undefined) named[field] = err[field];
  return { type: serialized.type, message: mask(serialized.message), stack: mask(serialized.stack), code: err.code, ...named };
}

/** Fastify's logger serializers: `req` without the query string, `err` without the values a database error carries. */
const logSerializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: loggedPath(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  err: (err: Error) => {
    const serialized = stdSerializers.err(err);
    return isDatabaseError(err) ? databaseError(err, serialized) : serialized;
  },
};
