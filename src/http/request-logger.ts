import os from 'node:os';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { pino, stdSerializers, type DestinationStream, type LoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** The process's pino logger as Carta uses it: Fastify's logger interface, and pino's level check. */
export type RootLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/**
 * A request's logger that becomes a pino child (with the request id bound) only when the request
 * logs something: building a child costs every request, and at LOG_LEVEL=warn most requests log
 * nothing. A line that is logged is the child's own, so the output is the same as with an eager
 * child.
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
 * by name: look-ups that go megamorphic on the hot path (docs/performance.md, "What every request
 * pays"). Built without a logger or a factory (app.ts), Fastify gives every request a shared
 * logger that discards everything, which this replaces before anything of the request's own can
 * log. A route's own `logLevel` is refused at start (app.ts).
 */
export function requestLogBinder(root: RootLogger): BindRequestLog {
  return (request, reply) => {
    request.log = reply.log = new LazyRequestLogger(root, request.id) as unknown as FastifyBaseLogger;
  };
}

/** Where log lines go: a stream that takes whole lines (the server's LogBuffer, a test's array). */
export interface LogStream {
  write(line: string): unknown;
}

/** The fields every line carries after level and time, as pino's default base gives them. */
const BASE = { pid: process.pid, hostname: os.hostname() };
/** The same fields as JSON text, as they follow `"time":...` in a line (the access line writes them itself). */
export const BASE_JSON = `,"pid":${BASE.pid},"hostname":${JSON.stringify(BASE.hostname)}`;

/**
 * The process's logger: pino at `level`, writing to `stream`, with the serializers and redaction of
 * docs/security.md. Fastify's own `res` serializer is kept, so a line logged with `res` reads as it
 * did when Fastify built the logger.
 */
export function rootLogger(level: string, stream: LogStream): RootLogger {
  const options: LoggerOptions = {
    level,
    base: BASE,
    serializers: { res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }), ...logSerializers },
    // Keys, tokens and bodies never reach the log (docs/security.md): the request serializer
    // logs no headers and no query string, the error serializer no database values, and
    // redact guards credential headers logged by hand.
    redact: ['req.headers.authorization', 'headers.authorization', 'authorization', 'req.headers.cookie', 'headers.cookie', 'cookie'],
  };
  return pino(options, stream as DestinationStream) as unknown as RootLogger;
}

// What the log may say about a request and an error (docs/security.md): never a key, a
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
 * Path segments that are credentials by where they stand: a route declares its secret parameters
 * (`config.secretParams`, e.g. a table's QR token in `/t/:token`), and the request gate records its
 * pattern here as the route is registered (`declareSecretParams`). Held by the first static
 * segment, so a path whose first segment starts no such route (every /v1 path) costs one look-up.
 * Matched by prefix: a path that starts like a secret route (`/t/<token>/x`, a 404) has its
 * segment masked too. Every app of a process registers the same routes, so the table is the same
 * for all of them; it holds the shapes of paths, never a value.
 */
interface SecretPattern {
  /** The pattern's segments after the first: a static segment, or null for a parameter. */
  rest: (string | null)[];
  /** Which of `rest` are secret. */
  secret: boolean[];
}
const SECRET_PATTERNS = new Map<string, SecretPattern[]>();
const DECLARED = new Set<string>();

/** Records that `pattern`'s parameters `names` are credentials. Throws for a name the pattern lacks (a typo). */
export function declareSecretParams(pattern: string, names: readonly string[]): void {
  const segments = pattern.split('/').filter((s) => s !== '');
  for (const name of names) {
    if (!segments.includes(`:${name}`)) throw new Error(`${pattern} declares secret parameter '${name}', which it does not have`);
  }
  const key = `${pattern} ${names.join(',')}`;
  if (DECLARED.has(key)) return;
  DECLARED.add(key);
  const [first, ...rest] = segments;
  if (first === undefined || first.startsWith(':')) throw new Error(`${pattern}: a secret parameter needs a static first segment`);
  const list = SECRET_PATTERNS.get(first.toLowerCase()) ?? [];
  list.push({
    rest: rest.map((s) => (s.startsWith(':') ? null : s.toLowerCase())),
    secret: rest.map((s) => s.startsWith(':') && names.includes(s.slice(1))),
  });
  SECRET_PATTERNS.set(first.toLowerCase(), list);
}

/** A segment as the router compares it (percent-decoded; case folded, since a near miss is masked too). */
function segmentName(raw: string): string {
  if (!raw.includes('%')) return raw.toLowerCase();
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** `path` with every segment that stands where a declared secret parameter does replaced by `[Redacted]`. */
function maskSecretSegments(path: string): string {
  let start = 0;
  while (path.charCodeAt(start) === 47) start += 1;
  const end = path.indexOf('/', start);
  if (end === -1) return path;
  const patterns = SECRET_PATTERNS.get(segmentName(path.slice(start, end)));
  if (!patterns) return path;
  const parts = path.split('/');
  // Empty segments (`//t/x`) do not count: the position is the one the route would give.
  const at: number[] = [];
  for (let i = 0; i < parts.length; i += 1) if (parts[i] !== '') at.push(i);
  let masked = false;
  for (const { rest, secret } of patterns) {
    for (let j = 0; j < rest.length && j + 1 < at.length; j += 1) {
      const index = at[j + 1];
      if (rest[j] !== null && rest[j] !== segmentName(parts[index])) break;
      if (secret[j]) {
        parts[index] = '[Redacted]';
        masked = true;
      }
    }
  }
  return masked ? parts.join('/') : path;
}

/**
 * The request path as every log line and the error envelope show it: no query string (query
 * values can be anything a client put there, `?api_key=` included), credential-shaped segments
 * masked, because keys do get pasted into URLs, and the segments routes declare secret masked
 * (a table's QR token, a guest order's token: whoever holds the link reads what it names).
 */
export function shownPath(url: string): string {
  const query = url.indexOf('?');
  const path = maskSecretSegments(query === -1 ? url : url.slice(0, query));
  if (!CREDENTIAL_HINT.test(path)) return path;
  return path.replace(CREDENTIAL, (_match, kind: string) => `carta_${kind.toLowerCase()}_[Redacted]`);
}

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
    url: shownPath(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  err: (err: Error) => {
    const serialized = stdSerializers.err(err);
    return isDatabaseError(err) ? databaseError(err, serialized) : serialized;
  },
};
