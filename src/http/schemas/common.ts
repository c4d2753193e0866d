// Shared shapes, registered once by $id and referenced from every route.
import { Type, type TSchema } from 'typebox';

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
  { $id: 'ErrorResponse', description: 'The error envelope of every 4xx and 5xx response (spec section 7)' },
);

export const ErrorRef = Type.Ref('ErrorResponse');

/** OpenAPI response entries for the error statuses a route can answer. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorRef> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorRef]));
}

/** The list envelope (spec 4.6) around items of one shape. */
export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    totalPages: Type.Integer(),
  });
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, millisecond precision' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A string enum as `{ type: string, enum }`, which validators report as one readable rule. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const PageQuery = {
  // Bounded, so the offset it makes is a number the database takes (a page past the end is empty anyway).
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
};

export const NotModified = Type.Null({ description: 'Not modified: the If-None-Match ETag is current' });

/** The Idempotency-Key header of the writes (docs/security.md): any printable ASCII, 1 to 255 characters. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[ -~]+$',
      description: 'A key of your choosing (a UUID is ideal). The same key and request within 24 hours replays the first response with `Idempotent-Replayed: true`; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED.',
    }),
  ),
});
