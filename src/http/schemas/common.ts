// Shared shapes, registered once by $id and referenced from every route.
import { Type, type TSchema } from 'typebox';
import { ERROR_CODE_DOCS, type ErrorCode } from '../../errors.js';

export const ErrorResponse = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.String(),
    code: Type.Optional(Type.String({ description: 'Machine-readable code; branch on this, not on message' })),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    errors: Type.Optional(Type.Array(Type.String(), { description: 'One entry per violated rule, starting with the field path' })),
    requestId: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    path: Type.String(),
  },
  { $id: 'ErrorResponse', description: 'The error envelope of every 4xx and 5xx response' },
);

export const ErrorRef = Type.Ref('ErrorResponse');

/** An error sent without a code (only some errors define one), named by its message. */
export interface Uncoded {
  message: string;
  when?: string;
}
/** One way a status can come about: a code of the catalogue (src/errors.ts), or an uncoded error. */
export type ErrorCase = ErrorCode | Uncoded;
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 414 | 422 | 429 | 503;
/** What an operation can answer besides success: by status, each way it comes about. */
export type ErrorCases = Partial<Record<ErrorStatus, readonly ErrorCase[]>>;

const STATUS_TITLES: Record<ErrorStatus, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Content too large',
  414: 'URI too long',
  422: 'Unprocessable content',
  429: 'Too many requests',
  503: 'Service unavailable',
};

/** The codes sent with a Retry-After header (whole seconds, at least 1). */
const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'RATE_LIMITED',
  'IDEMPOTENCY_KEY_IN_PROGRESS',
  'LOCK_TIMEOUT',
  'DATABASE_UNAVAILABLE',
  'MEDIA_BUSY',
]);

const isCoded = (c: ErrorCase): c is ErrorCode => typeof c === 'string';
const caseKey = (c: ErrorCase) => (isCoded(c) ? c : `'${c.message}'`);

/** `PRODUCT_NOT_FOUND` for a code, "Order not found" for an uncoded error's message. */
export const caseName = (c: ErrorCase) => (isCoded(c) ? `\`${c}\`` : `"${c.message}"`);

function caseLine(c: ErrorCase): string {
  if (isCoded(c)) return `- ${caseName(c)}: ${ERROR_CODE_DOCS[c]}`;
  return `- ${caseName(c)} (message, no code)${c.when ? `: ${c.when}` : ''}`;
}

// The cases behind each response built here, so documentRoute (src/http/openapi.ts) can add the
// ones every route of a surface shares and render the result again.
const casesOf = new WeakMap<object, readonly ErrorCase[]>();

/** The cases a response entry was built from; undefined for an entry not built by errorResponses. */
export function errorCasesOf(response: unknown): readonly ErrorCase[] | undefined {
  return typeof response === 'object' && response !== null ? casesOf.get(response) : undefined;
}

function errorResponse(status: ErrorStatus, cases: readonly ErrorCase[]) {
  const unique = [...new Map(cases.map((c) => [caseKey(c), c])).values()];
  const retrying = unique.filter(isCoded).filter((c) => RETRY_AFTER_CODES.has(c));
  const description = [`${STATUS_TITLES[status]}:`, ...unique.map(caseLine)].join('\n');
  const response = Type.Ref('ErrorResponse', {
    description,
    // Read by @fastify/swagger as the response's headers; the serialiser ignores the keyword.
    ...(retrying.length > 0
      ? {
          headers: {
            'retry-after': Type.Integer({
              minimum: 1,
              description: `Seconds to wait before retrying (${retrying.map((c) => `\`${c}\``).join(', ')})`,
            }),
          },
        }
      : {}),
  });
  casesOf.set(response, unique);
  return response;
}

/**
 * The error responses of an operation: the ErrorResponse envelope under each status, with
 * a description naming every code (or uncoded message) it can carry and, where a code comes with
 * one, the Retry-After header. A route lists what its own work can answer; documentRoute adds
 * what its surface answers for every route (authentication, limits, idempotency, shutdown).
 */
export function errorResponses(cases: ErrorCases): Record<number, typeof ErrorRef> {
  return Object.fromEntries(
    Object.entries(cases).map(([status, list]) => [status, errorResponse(Number(status) as ErrorStatus, list ?? [])]),
  );
}

/**
 * `responses` with the `shared` cases added, status by status (before the route's own). An entry
 * not built by errorResponses is left as it is: it is not the error envelope (GET /ready's 503).
 */
export function withErrorResponses(responses: Record<string, unknown>, shared: ErrorCases): Record<string, unknown> {
  const out = { ...responses };
  for (const [status, list] of Object.entries(shared)) {
    const existing = out[status];
    if (existing !== undefined && !errorCasesOf(existing)) continue;
    out[status] = errorResponse(Number(status) as ErrorStatus, [...(list ?? []), ...(errorCasesOf(existing) ?? [])]);
  }
  return out;
}

/** The list envelope around items of one shape. */
export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    totalPages: Type.Integer(),
  });
}

/**
 * `{ [DECIMALS_KEYWORD]: n }` on a number: at most n decimals. Our validators check it
 * (validation.ts); the published document leaves it out (openapi.ts), saying it in the description.
 */
export const DECIMALS_KEYWORD = 'x-decimals';

/** A time of day on a 24-hour clock. */
export const HhMm = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 00:00-23:59' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, millisecond precision' });
/** `schema` or null; a description given here sits on the union, where generated client types show it. */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** A string enum as `{ type: string, enum }`, which validators report as one readable rule. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const PageQuery = {
  // Bounded, so the offset it makes is a number the database takes (a page past the end is empty anyway).
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
};

/** A resource id in the path; an id that names nothing is the resource's own 404. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
/** A plain paginated list's query. */
export const ListQuery = Type.Object(PageQuery);

export const NotModified = Type.Null({ description: 'Not modified: the If-None-Match ETag is current' });

/** The Idempotency-Key header of the writes (docs/security.md): any printable ASCII, 1 to 255 characters. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[ -~]+$',
      description:
        'A key of your choosing (a UUID is ideal). The same key and request within 24 hours replays the first response with `Idempotent-Replayed: true`; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED.',
    }),
  ),
});
