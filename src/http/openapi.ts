import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { surfaceOf } from './plugins/request-gate.js';
import {
  caseName,
  DECIMALS_KEYWORD,
  errorCasesOf,
  withErrorResponses,
  type ErrorCase,
  type ErrorCases,
  type ErrorStatus,
} from './schemas/common.js';

export interface OpenApiOptions {
  version: string;
  /** The `servers` entry: PUBLIC_BASE_URL, or `/` (wherever the document was fetched from) when unset. */
  serverUrl: string;
}

/** Areas of the API, in the order a reader meets them. */
const TAGS = [
  {
    name: 'reference',
    description: 'The reference catalogue (units, statuses, languages, limits), the venue plan and its usage, and this document.',
  },
  {
    name: 'menu',
    description:
      'The draft menu: bulk sync of categories, ingredients and products by externalId, reads with ETags, ' +
      'one product at a time, publish to an immutable snapshot, cleanup and delete.',
  },
  {
    name: 'settings',
    description:
      'Venue settings: languages, card style, timezone, order configuration, opening hours, pauses and scheduled orders, with ETag and If-Match.',
  },
  { name: 'translations', description: 'Bulk translation writes for every translatable entity, all or nothing.' },
  {
    name: 'media',
    description:
      'Product and banner images and the venue logo, from base64 or a URL, checked and stored as WebP variants; ' +
      'the public, immutable image files under /media.',
  },
  {
    name: 'availability',
    description:
      'Live availability: products and ingredients sold out now or until a time. It takes effect at once on the menu reads, ' +
      'the guest menu and order placement, needs no publish and survives publishes. Opening hours and pauses are settings.',
  },
  { name: 'banners', description: 'Menu banners with an image, a link or a product, live by their schedule.' },
  { name: 'promotions', description: 'Promotions and their products at promotional prices, live by their schedule.' },
  { name: 'tables', description: 'QR tables: a link per table for guests, its QR code as SVG or PNG, and printable sheets.' },
  {
    name: 'orders',
    description:
      'Orders placed by guests: list, poll by updatedSince, read, and move along the status machine. ' +
      'Paid plans only (403 PAID_PLAN_REQUIRED on free).',
  },
  {
    name: 'webhooks',
    description:
      "Webhook endpoints: where the venue's events (order.created, order.updated, menu.published, menu.availability_changed) are sent, signed with a secret " +
      'in the Standard Webhooks format that can be rotated (docs/events.md). Paid plans only (403 PAID_PLAN_REQUIRED on free).',
  },
  { name: 'audit', description: 'The audit trail of every mutating call.' },
  {
    name: 'guest',
    description:
      "The public guest API: a venue's published menu, placing orders and following them by their token, and where a table's QR code leads. " +
      'No key; only the per-IP limits apply.',
  },
  { name: 'operator', description: 'Provisioning venues, plans and API keys with the operator token. Not audited.' },
  { name: 'health', description: 'Liveness and readiness probes for load balancers and orchestrators. Not rate limited.' },
];

const DESCRIPTION = `Venue menu and orders API: sync a venue's menu, publish it, and read and advance the orders its guests place.

- **Authentication.** Every \`/v1\` operation except this document takes \`Authorization: Bearer <API key>\`; a key belongs to one venue
  and all data is scoped to it (a \`carta_test_\` key acts on the venue's sandbox). \`/admin/v1\` takes the operator token.
  \`/guest/v1\`, \`/media\`, \`/health\` and \`/ready\` are public.
- **Errors.** Every 4xx and 5xx has the ErrorResponse envelope with a \`requestId\`; branch on \`code\`, not on \`message\`.
  Each operation lists the statuses and codes it can answer. A 500 shows nothing internal and is safe to retry with backoff.
- **Idempotency.** Every \`/v1\` write takes an optional \`Idempotency-Key\`: the same key and request within 24 hours replays
  the first response (\`Idempotent-Replayed: true\`); guest orders take one too.
- **Rate limits.** Per IP (10 per second, 50 per 10 s, 300 per minute) and per venue (general, media, media-fast and heavy
  buckets over a rolling minute; \`GET /v1/reference\` shows the venue's). Responses carry \`X-RateLimit-Limit-<bucket>\`,
  \`X-RateLimit-Remaining-<bucket>\` and \`X-RateLimit-Reset-<bucket>\`; a 429 carries \`Retry-After\` in seconds.
- **Conventions.** Money is an integer in minor units (21500 is 215.00). Timestamps are ISO 8601 in UTC with milliseconds.
  Every response carries \`x-request-id\` (an inbound one is echoed). Lists share one envelope: \`items\`, \`total\`, \`page\`, \`limit\`, \`totalPages\`.`;

export async function registerOpenApi(app: FastifyInstance, { version, serverUrl }: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Carta API',
        version,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Carta' },
      },
      servers: [
        {
          url: serverUrl,
          description: serverUrl === '/' ? 'The server this document was fetched from' : 'This deployment (PUBLIC_BASE_URL)',
        },
      ],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: "A venue's API key: `carta_live_` or `carta_test_` and 32 base62 characters, issued through the operator API.",
          },
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The operator token (ADMIN_TOKEN, at least 32 characters). Without one the /admin/v1 routes answer 404.',
          },
        },
      },
    },
    // A validator keyword of ours is not a JSON Schema keyword: strict validators refuse a schema
    // with one (Ajv by default), so the document says it in the field's description instead.
    transformObject: (document) =>
      withoutKeyword('openapiObject' in document ? document.openapiObject : document.swaggerObject, DECIMALS_KEYWORD) as Record<
        string,
        never
      >,
    // Shared schemas keep their $id as their component name (ErrorResponse, ...).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
}

/** `value` copied without `keyword` in any object (a property of that name under `properties` stays). */
function withoutKeyword(value: unknown, keyword: string, inProperties = false): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutKeyword(v, keyword));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([k, v]) =>
      k === keyword && !inProperties ? [] : [[k, withoutKeyword(v, keyword, k === 'properties' && !inProperties)]],
    ),
  );
}

/** GET /v1/openapi.json, which lists itself like any other operation. */
export const OPENAPI_ROUTE_SCHEMA = {
  operationId: 'getOpenApiDocument',
  tags: ['reference'],
  summary: 'This OpenAPI document',
  description:
    'The machine-readable catalogue of the API: OpenAPI 3.1, generated from the schemas the routes validate and ' +
    'serialise with, so it cannot drift from them. No key needed; an Authorization header is ignored.',
  // Sent as the text built once (openApiDocument), so this documents the body and serialises nothing.
  response: {
    200: {
      description: 'An OpenAPI 3.1 document',
      content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
    },
  },
};

/** The generated document, built once after the routes are registered. */
export function openApiDocument(app: FastifyInstance): () => string {
  let cached: string | null = null;
  return () => (cached ??= JSON.stringify(app.swagger()));
}

const VALIDATION: ErrorCase = {
  message: 'Validation failed',
  when: 'errors[] has one entry per broken rule, starting with the field path (a malformed JSON body or path included)',
};

/**
 * The errors a route answers whatever its own work, from what the request gate, the body parser,
 * the router and the idempotency step do with a route of its surface, method and path.
 */
function sharedErrors(route: RouteOptions): ErrorCases {
  const surface = surfaceOf(route);
  const write = [route.method].flat().some((m) => m !== 'GET' && m !== 'HEAD');
  const hasPathParams = route.url.includes('/:');
  const cases: { [S in ErrorStatus]?: ErrorCase[] } = {};
  const add = (status: ErrorStatus, ...more: ErrorCase[]) => (cases[status] = [...(cases[status] ?? []), ...more]);

  // Every write's body is parsed (whatever its schema) and a path parameter is decoded and checked.
  if (write || hasPathParams || route.schema?.querystring || route.schema?.headers) add(400, VALIDATION);
  if (surface?.auth === 'apiKey') {
    add(
      401,
      { message: 'Missing API key' },
      { message: 'Invalid API key format' },
      { message: 'Invalid API key', when: 'unknown, revoked or regenerated' },
    );
    add(403, 'SUBSCRIPTION_INACTIVE');
    if (write) add(403, 'READ_ONLY_KEY');
    if (route.config?.planFeature) add(403, 'PAID_PLAN_REQUIRED');
    // src/http/plugins/idempotency.ts, installed on every /v1 write.
    if (write) add(409, 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS');
  }
  if (surface?.auth === 'operator') {
    add(401, { message: 'Invalid admin token' });
    add(404, { message: 'Route {method} {path} not found', when: 'the server has no ADMIN_TOKEN, so the operator API is off' });
  }
  if (write) add(413, 'PAYLOAD_TOO_LARGE');
  if (hasPathParams) add(414, { message: 'A path segment is longer than 512 characters' });
  if (route.config?.rateLimit !== false || surface?.auth === 'apiKey') add(429, 'RATE_LIMITED');
  // Every surface reads the database (strict reads catch up with it first); writes take row locks.
  if (surface && write) add(503, 'LOCK_TIMEOUT');
  if (surface) add(503, 'DATABASE_UNAVAILABLE');
  return cases;
}

/** `**Errors:** 400 ("Validation failed", `PRODUCT_BULK_LIMIT_EXCEEDED`); 401 (...).`, for the description. */
function errorSummary(responses: Record<string, unknown>): string | null {
  const parts = Object.entries(responses).flatMap(([status, response]) => {
    const cases = errorCasesOf(response);
    return cases ? [`${status} (${cases.map(caseName).join(', ')})`] : [];
  });
  return parts.length > 0 ? `**Errors:** ${parts.join('; ')}.` : null;
}

/**
 * An onRoute step that completes a route's OpenAPI entry from the same facts that decide its
 * behaviour: the security of its surface (request-gate.ts) and the errors every route of that
 * surface can answer, added to the route's own and named at the end of its description. Routes
 * declare only what their own work does (operationId, summary, description, their own errors).
 */
export function documentRoute(route: RouteOptions): void {
  const schema = route.schema ?? {};
  // Hidden routes (pages, not operations) and Fastify's HEAD twins of GETs are not in the document.
  if (schema.hide || [route.method].flat().every((m) => m === 'HEAD')) return;
  const auth = surfaceOf(route)?.auth;
  const response = withErrorResponses((schema.response ?? {}) as Record<string, unknown>, sharedErrors(route));
  const description = [schema.description, errorSummary(response)].filter(Boolean).join('\n\n');
  route.schema = {
    ...schema,
    description,
    security: auth === 'apiKey' ? [{ apiKey: [] }] : auth === 'operator' ? [{ adminToken: [] }] : [],
    response,
  };
}
