// The closed catalogue of application errors. Every error the service
// returns on purpose is made here, with its status, code and message, and rendered once by
// src/http/error-handler.ts into the error envelope.
import { ORDER_STREAMS_PER_VENUE, WEBHOOK_ENDPOINTS_PER_VENUE } from './limits.js';

// INGREDIENT_NOT_FOUND and MODIFIER_GROUP_NOT_FOUND are left out: no operation answers them
// (unknown ingredients are sync warnings, unknown modifier groups are listed in notFound), so they
// join the catalogue with the first error that sends them. Validation failures carry no code.
export type ErrorCode =
  | 'PAYLOAD_TOO_LARGE'
  | 'SYNC_TOO_LARGE'
  | 'READ_ONLY_KEY'
  | 'SUBSCRIPTION_INACTIVE'
  | 'PAID_PLAN_REQUIRED'
  | 'CATEGORY_BULK_LIMIT_EXCEEDED'
  | 'INGREDIENT_BULK_LIMIT_EXCEEDED'
  | 'PRODUCT_BULK_LIMIT_EXCEEDED'
  | 'PRODUCT_NOT_FOUND'
  | 'CATEGORY_NOT_FOUND'
  | 'VENUE_NOT_FOUND'
  | 'API_KEY_NOT_FOUND'
  | 'MENU_NOT_PUBLISHED'
  | 'PUBLICATION_NOT_FOUND'
  | 'SLUG_ALREADY_EXISTS'
  | 'EXTERNAL_ID_ALREADY_EXISTS'
  | 'STALE_RESOURCE'
  | 'INVALID_STATUS_TRANSITION'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_PROGRESS'
  | 'DELIVERY_NOT_AVAILABLE'
  | 'INVALID_LOCALE'
  | 'LOCALE_NOT_ENABLED'
  | 'EMPTY_TRANSLATION'
  | 'RATE_LIMITED'
  | 'LOCK_TIMEOUT'
  | 'DATABASE_UNAVAILABLE'
  | 'INVALID_IMAGE_SOURCE'
  | 'INVALID_SOURCE_URL'
  | 'BLOCKED_SOURCE_URL'
  | 'SOURCE_FETCH_FAILED'
  | 'INVALID_IMAGE'
  | 'FILE_TOO_LARGE'
  | 'SOURCE_TOO_LARGE'
  | 'IMAGE_TOO_SMALL'
  | 'IMAGE_NOT_SQUARE'
  | 'IMAGE_WRONG_ASPECT_RATIO'
  | 'PREOPTIMIZED_INVALID'
  | 'MEDIA_BUSY'
  | 'BANNER_NOT_FOUND'
  | 'PROMOTION_NOT_FOUND'
  | 'PROMOTION_ITEM_NOT_FOUND'
  | 'TABLE_NOT_FOUND'
  | 'DUPLICATE_PROMOTION_ITEM'
  | 'TABLE_NAME_ALREADY_EXISTS'
  | 'BANNER_LIMIT_REACHED'
  | 'TABLE_LIMIT_REACHED'
  | 'WEBHOOK_NOT_FOUND'
  | 'WEBHOOK_DELIVERY_NOT_FOUND'
  | 'WEBHOOK_ENDPOINT_LIMIT_REACHED'
  | 'STREAM_LIMIT_REACHED'
  | 'SERVER_BUSY'
  | 'ITEM_UNAVAILABLE'
  | 'ORDERING_CLOSED'
  | 'STAFF_NOT_FOUND'
  | 'STAFF_EMAIL_TAKEN'
  | 'SIGNED_OUT'
  | 'CSRF_TOKEN_INVALID'
  | 'ROLE_REQUIRED'
  | 'STAFF_SELF_CHANGE';

/**
 * What each code tells a client, as the OpenAPI document shows it beside every response that can
 * carry the code (src/http/schemas/common.ts). Exhaustive, so a new code cannot go undocumented.
 */
export const ERROR_CODE_DOCS: Readonly<Record<ErrorCode, string>> = {
  PAYLOAD_TOO_LARGE: "the body is over the route's cap (5 MB; 21 MB on image uploads)",
  SYNC_TOO_LARGE: 'the sync did not finish within its 30-second window; nothing was written: split the payload and retry',
  READ_ONLY_KEY: 'a write made with a read-only API key',
  SUBSCRIPTION_INACTIVE: "the venue's subscription is suspended or canceled",
  PAID_PLAN_REQUIRED: 'the Orders API or webhooks on the free plan',
  CATEGORY_BULK_LIMIT_EXCEEDED: "new categories would pass the plan's maxCategories; details { limit, available, requested }",
  INGREDIENT_BULK_LIMIT_EXCEEDED: "new ingredients would pass the plan's maxIngredients; details { limit, available, requested }",
  PRODUCT_BULK_LIMIT_EXCEEDED: "new products would pass the plan's maxProducts; details { limit, available, requested }",
  PRODUCT_NOT_FOUND: 'no product of this venue has that externalId or id',
  CATEGORY_NOT_FOUND: 'no category of this venue has that externalId or id',
  VENUE_NOT_FOUND: 'no venue has that id (or slug)',
  API_KEY_NOT_FOUND: 'no API key has that id (a revoked key cannot be regenerated either)',
  MENU_NOT_PUBLISHED: 'the menu has never been published',
  PUBLICATION_NOT_FOUND: 'no kept publication of this venue has that id (publications older than 90 days beyond the latest 20 are pruned)',
  SLUG_ALREADY_EXISTS: 'another venue has that slug',
  EXTERNAL_ID_ALREADY_EXISTS: 'another item of this type has that externalId',
  STALE_RESOURCE: 'If-Match does not match the current ETag: re-read and retry',
  INVALID_STATUS_TRANSITION: 'the order cannot move to that status; details name both statuses and the allowed ones',
  IDEMPOTENCY_KEY_REUSED: 'the Idempotency-Key was used with a different request',
  IDEMPOTENCY_KEY_IN_PROGRESS: 'a request with this Idempotency-Key is still running; retry after Retry-After for its response',
  DELIVERY_NOT_AVAILABLE: 'orderConfig needs a plan with delivery (features.hasDelivery)',
  INVALID_LOCALE: 'a translation locale is not one of the reference languages',
  LOCALE_NOT_ENABLED: "a translation locale is not in the venue's enabledLanguages",
  EMPTY_TRANSLATION: 'a translation locale with no text',
  RATE_LIMITED: 'a rate limit is used up (the message names the bucket); retry after Retry-After',
  LOCK_TIMEOUT: 'another write of this venue held its lock too long; retry after Retry-After',
  DATABASE_UNAVAILABLE: 'the database connection was lost (a write cut at commit may have landed); retry after Retry-After',
  INVALID_IMAGE_SOURCE: 'send exactly one of base64 or url',
  INVALID_SOURCE_URL: 'the url is not http(s), or carries credentials',
  BLOCKED_SOURCE_URL: 'the url leads to a loopback, private, link-local or otherwise reserved address, or its host does not resolve',
  SOURCE_FETCH_FAILED: 'the url could not be fetched',
  INVALID_IMAGE: 'the bytes are not an image Carta reads (JPEG, PNG, WebP, AVIF, GIF, TIFF)',
  FILE_TOO_LARGE: 'the decoded base64 image is over 15 MB',
  SOURCE_TOO_LARGE: 'the image at the url is over 15 MB',
  IMAGE_TOO_SMALL: 'the image is under the minimum size (320x320; banners 960x320)',
  IMAGE_NOT_SQUARE: 'product images and logos must be square within 2%',
  IMAGE_WRONG_ASPECT_RATIO: 'banner images must be 3:1 within 2%',
  PREOPTIMIZED_INVALID: 'with preoptimized=true the bytes must already be a WebP of the largest size, at most 1 MB',
  MEDIA_BUSY: 'image processing is at capacity; retry after Retry-After',
  SERVER_BUSY: 'the server is overloaded (its event loop or memory past a limit) and takes no new request; retry after Retry-After',
  BANNER_NOT_FOUND: 'no banner of this venue has that id',
  PROMOTION_NOT_FOUND: 'no promotion of this venue has that id',
  PROMOTION_ITEM_NOT_FOUND: 'no item of this promotion has that id',
  TABLE_NOT_FOUND: 'no (active) table has that id or token',
  DUPLICATE_PROMOTION_ITEM: 'the product is already in this promotion',
  TABLE_NAME_ALREADY_EXISTS: 'another table of this venue has that name',
  BANNER_LIMIT_REACHED: "the plan's maxBanners is reached; details { limit, available, requested }",
  TABLE_LIMIT_REACHED: "the plan's maxQrTables is reached; details { limit, available, requested }",
  WEBHOOK_NOT_FOUND: 'no webhook endpoint of this venue has that id',
  WEBHOOK_DELIVERY_NOT_FOUND: 'the endpoint has no delivery with that id',
  WEBHOOK_ENDPOINT_LIMIT_REACHED: `the venue has ${WEBHOOK_ENDPOINTS_PER_VENUE} webhook endpoints, the most it may; details { limit, available, requested }`,
  ITEM_UNAVAILABLE:
    'a product or option of the order is sold out or outside its category schedule at the time the order is for; details { items: [{ productId, optionId, until }] }',
  ORDERING_CLOSED:
    'the venue takes no orders for now (reason closed or paused); details { reason, opensAt }. A scheduled order into an open window is accepted',
  STAFF_NOT_FOUND: 'no staff member has that id',
  STAFF_EMAIL_TAKEN: 'another staff member of this venue has that email (compared in lower case)',
  SIGNED_OUT: 'console API: no console session, or it has ended (idle 12 h, 7 days, sign-out, disabled, removed, reset); sign in again',
  CSRF_TOKEN_INVALID: "console API: a change without the session's CSRF token in X-CSRF-Token (docs/console.md)",
  ROLE_REQUIRED: "console API: the member's role does not allow this (staff < manager < owner)",
  STAFF_SELF_CHANGE: 'console: an owner cannot change their own role, disable or remove themselves; another owner or the operator can',
  STREAM_LIMIT_REACHED: `the venue holds ${ORDER_STREAMS_PER_VENUE} order streams open on this server, the most it may (a guest's order stream: 500 per venue, 50 per address, 3 per order); close one, or retry after Retry-After`,
};

export interface AppErrorInit {
  statusCode: number;
  message: string;
  code?: ErrorCode;
  details?: Record<string, unknown>;
  errors?: string[];
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly statusCode: number;
  readonly code?: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly errors?: string[];
  readonly headers?: Record<string, string>;

  constructor(init: AppErrorInit) {
    super(init.message);
    this.name = 'AppError';
    this.statusCode = init.statusCode;
    this.code = init.code;
    this.details = init.details;
    this.errors = init.errors;
    this.headers = init.headers;
  }
}

export type MerchLimitCode = 'BANNER_LIMIT_REACHED' | 'TABLE_LIMIT_REACHED';

export type BulkLimitCode = 'CATEGORY_BULK_LIMIT_EXCEEDED' | 'INGREDIENT_BULK_LIMIT_EXCEEDED' | 'PRODUCT_BULK_LIMIT_EXCEEDED';

export const errors = {
  validation: (list: string[]) => new AppError({ statusCode: 400, message: 'Validation failed', errors: list }),
  /** A validation failure whose message itself must name the parameter. */
  invalidParameter: (message: string) => new AppError({ statusCode: 400, message, errors: [message] }),
  bulkLimit: (code: BulkLimitCode, details: { limit: number; available: number; requested: number }) =>
    new AppError({ statusCode: 400, message: 'Bad Request Exception', code, details }),
  /** A create past the plan's maxBanners / maxQrTables. */
  merchLimit: (code: MerchLimitCode, what: string, details: { limit: number; available: number; requested: number }) =>
    new AppError({ statusCode: 400, message: `The plan allows ${details.limit} ${what}; delete one or upgrade the plan`, code, details }),
  /** A webhook endpoint past the per-venue cap, in the shape of the plan limits. */
  webhookEndpointLimit: (details: { limit: number; available: number; requested: number }) =>
    new AppError({
      statusCode: 400,
      code: 'WEBHOOK_ENDPOINT_LIMIT_REACHED',
      message: `A venue can have ${details.limit} webhook endpoints; delete one first`,
      details,
    }),
  /** One more live order stream than a venue may hold open on one server. */
  streamLimit: (limit: number) =>
    new AppError({
      statusCode: 429,
      code: 'STREAM_LIMIT_REACHED',
      message: `This venue already has ${limit} order streams open; close one before opening another`,
      details: { limit },
      headers: { 'retry-after': '5' },
    }),
  /** A guest's live order page past its address's or its order's cap (guest-order-stream.ts). */
  guestStreamLimit: () =>
    new AppError({
      statusCode: 429,
      code: 'STREAM_LIMIT_REACHED',
      message: 'Too many live order pages are open from this address or for this order; the page follows the order by polling',
      headers: { 'retry-after': '5' },
    }),
  translation: (code: 'INVALID_LOCALE' | 'LOCALE_NOT_ENABLED' | 'EMPTY_TRANSLATION', message: string) =>
    new AppError({ statusCode: 400, message, code }),

  missingApiKey: () => new AppError({ statusCode: 401, message: 'Missing API key' }),
  malformedApiKey: () => new AppError({ statusCode: 401, message: 'Invalid API key format' }),
  invalidApiKey: () => new AppError({ statusCode: 401, message: 'Invalid API key' }),
  invalidAdminToken: () => new AppError({ statusCode: 401, message: 'Invalid admin token' }),

  readOnlyKey: () => new AppError({ statusCode: 403, code: 'READ_ONLY_KEY', message: 'This API key is read-only; writes are not allowed' }),
  subscriptionInactive: (status: string) =>
    new AppError({
      statusCode: 403,
      code: 'SUBSCRIPTION_INACTIVE',
      message: `The venue's subscription is ${status}; access resumes when it is active again`,
    }),
  paidPlanRequired: () =>
    new AppError({ statusCode: 403, code: 'PAID_PLAN_REQUIRED', message: 'The Orders API and webhooks require a paid plan' }),
  deliveryNotAvailable: () =>
    new AppError({
      statusCode: 403,
      code: 'DELIVERY_NOT_AVAILABLE',
      message: 'Order settings need a plan with delivery (features.hasDelivery)',
    }),

  routeNotFound: (method: string, url: string) => new AppError({ statusCode: 404, message: `Route ${method} ${url} not found` }),
  venueNotFound: () => new AppError({ statusCode: 404, code: 'VENUE_NOT_FOUND', message: 'Venue not found' }),
  apiKeyNotFound: () => new AppError({ statusCode: 404, code: 'API_KEY_NOT_FOUND', message: 'API key not found' }),
  productNotFound: () => new AppError({ statusCode: 404, code: 'PRODUCT_NOT_FOUND', message: 'Product not found' }),
  categoryNotFound: () => new AppError({ statusCode: 404, code: 'CATEGORY_NOT_FOUND', message: 'Category not found' }),
  menuNotPublished: () => new AppError({ statusCode: 404, code: 'MENU_NOT_PUBLISHED', message: 'Menu has not been published' }),
  imageNotFound: () => new AppError({ statusCode: 404, message: 'Image not found' }),
  publicationNotFound: () => new AppError({ statusCode: 404, code: 'PUBLICATION_NOT_FOUND', message: 'Publication not found' }),
  bannerNotFound: () => new AppError({ statusCode: 404, code: 'BANNER_NOT_FOUND', message: 'Banner not found' }),
  promotionNotFound: () => new AppError({ statusCode: 404, code: 'PROMOTION_NOT_FOUND', message: 'Promotion not found' }),
  promotionItemNotFound: () => new AppError({ statusCode: 404, code: 'PROMOTION_ITEM_NOT_FOUND', message: 'Promotion item not found' }),
  tableNotFound: () => new AppError({ statusCode: 404, code: 'TABLE_NOT_FOUND', message: 'Table not found' }),
  staffNotFound: () => new AppError({ statusCode: 404, code: 'STAFF_NOT_FOUND', message: 'Staff member not found' }),
  webhookNotFound: () => new AppError({ statusCode: 404, code: 'WEBHOOK_NOT_FOUND', message: 'Webhook endpoint not found' }),
  webhookDeliveryNotFound: () =>
    new AppError({ statusCode: 404, code: 'WEBHOOK_DELIVERY_NOT_FOUND', message: 'Webhook delivery not found' }),
  // Order lookups carry a message only, no code.
  orderNotFound: () => new AppError({ statusCode: 404, message: 'Order not found' }),

  // Conflicts name the field, not the value sent (docs/security.md); an externalId names the item.
  slugTaken: () => new AppError({ statusCode: 409, code: 'SLUG_ALREADY_EXISTS', message: 'The slug is already taken' }),
  externalIdTaken: (externalId: string) =>
    new AppError({
      statusCode: 409,
      code: 'EXTERNAL_ID_ALREADY_EXISTS',
      message: `externalId '${externalId}' is already used by another item of this type`,
    }),
  duplicatePromotionItem: () =>
    new AppError({ statusCode: 409, code: 'DUPLICATE_PROMOTION_ITEM', message: 'The product is already in this promotion' }),
  staffEmailTaken: () =>
    new AppError({ statusCode: 409, code: 'STAFF_EMAIL_TAKEN', message: 'Another staff member of this venue has that email' }),
  staffSelfChange: () =>
    new AppError({
      statusCode: 409,
      code: 'STAFF_SELF_CHANGE',
      message: 'You cannot change your own role, disable or remove yourself; ask another owner',
    }),
  signedOut: () => new AppError({ statusCode: 401, code: 'SIGNED_OUT', message: 'Sign in to the console' }),
  csrfInvalid: () =>
    new AppError({ statusCode: 403, code: 'CSRF_TOKEN_INVALID', message: 'The CSRF token is missing or wrong; reload the console' }),
  roleRequired: (role: string) =>
    new AppError({ statusCode: 403, code: 'ROLE_REQUIRED', message: `This needs the ${role} role`, details: { role } }),
  tableNameTaken: () =>
    new AppError({ statusCode: 409, code: 'TABLE_NAME_ALREADY_EXISTS', message: 'Another table of this venue has that name' }),
  idempotencyKeyReused: () =>
    new AppError({
      statusCode: 409,
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This Idempotency-Key was already used with a different request body',
    }),
  idempotencyInProgress: (retryAfterSec: number) =>
    new AppError({
      statusCode: 409,
      code: 'IDEMPOTENCY_KEY_IN_PROGRESS',
      message: 'A request with this Idempotency-Key is still running; retry after the Retry-After delay to get its response',
      headers: { 'retry-after': String(retryAfterSec) },
    }),
  staleResource: () =>
    new AppError({
      statusCode: 412,
      code: 'STALE_RESOURCE',
      message: 'The resource has changed since it was read (If-Match does not match); re-read and retry',
    }),
  /** The client closed the connection while its body was arriving: nobody reads this answer (error-handler.ts). */
  bodyCut: () => new AppError({ statusCode: 400, message: 'The request body did not arrive in full' }),
  payloadTooLarge: (limitBytes: number) =>
    new AppError({
      statusCode: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: `Request body is larger than ${Math.round(limitBytes / (1024 * 1024))} MB`,
    }),
  syncTooLarge: (windowMs: number) =>
    new AppError({
      statusCode: 413,
      code: 'SYNC_TOO_LARGE',
      message: `Sync did not finish within ${Math.round(windowMs / 1000)} s; nothing was written. Split the payload and retry`,
    }),
  // Media: 413 for the two size caps, 400 for every other media code.
  invalidImageSource: (message = 'Send exactly one of base64 or url') =>
    new AppError({ statusCode: 400, code: 'INVALID_IMAGE_SOURCE', message }),
  invalidSourceUrl: (message: string) => new AppError({ statusCode: 400, code: 'INVALID_SOURCE_URL', message }),
  blockedSourceUrl: (message: string) =>
    new AppError({ statusCode: 400, code: 'BLOCKED_SOURCE_URL', message: `The source URL is not allowed: ${message}` }),
  sourceFetchFailed: (message: string) =>
    new AppError({ statusCode: 400, code: 'SOURCE_FETCH_FAILED', message: `The source URL could not be fetched: ${message}` }),
  invalidImage: (message = 'The bytes are not an image Carta can read (JPEG, PNG, WebP, AVIF, GIF or TIFF)') =>
    new AppError({ statusCode: 400, code: 'INVALID_IMAGE', message }),
  fileTooLarge: (limitBytes: number) =>
    new AppError({
      statusCode: 413,
      code: 'FILE_TOO_LARGE',
      message: `The image is larger than ${Math.round(limitBytes / (1024 * 1024))} MB`,
    }),
  sourceTooLarge: (limitBytes: number) =>
    new AppError({
      statusCode: 413,
      code: 'SOURCE_TOO_LARGE',
      message: `The source is larger than ${Math.round(limitBytes / (1024 * 1024))} MB`,
    }),
  imageTooSmall: (message: string) => new AppError({ statusCode: 400, code: 'IMAGE_TOO_SMALL', message }),
  imageNotSquare: (message: string) => new AppError({ statusCode: 400, code: 'IMAGE_NOT_SQUARE', message }),
  imageWrongAspectRatio: (message: string) => new AppError({ statusCode: 400, code: 'IMAGE_WRONG_ASPECT_RATIO', message }),
  preoptimizedInvalid: (message: string) =>
    new AppError({ statusCode: 400, code: 'PREOPTIMIZED_INVALID', message: `preoptimized=true needs ${message}` }),
  mediaBusy: (retryAfterSec: number) =>
    new AppError({
      statusCode: 503,
      code: 'MEDIA_BUSY',
      message: 'Image processing is at capacity; retry after the Retry-After delay',
      headers: { 'retry-after': String(retryAfterSec) },
    }),
  itemUnavailable: (message: string, items: { productId: string; optionId: string | null; until: string | null }[]) =>
    new AppError({ statusCode: 409, code: 'ITEM_UNAVAILABLE', message, details: { items } }),
  orderingClosed: (message: string, reason: string, opensAt: string | null) =>
    new AppError({ statusCode: 409, code: 'ORDERING_CLOSED', message, details: { reason, opensAt } }),
  invalidStatusTransition: (message: string, details: Record<string, unknown>) =>
    new AppError({ statusCode: 422, code: 'INVALID_STATUS_TRANSITION', message, details }),
  rateLimited: (bucket: string, retryAfterSec: number) =>
    new AppError({
      statusCode: 429,
      code: 'RATE_LIMITED',
      message: `Rate limit exceeded for bucket '${bucket}'; retry after ${retryAfterSec} s`,
      headers: { 'retry-after': String(retryAfterSec) },
    }),
  lockTimeout: (retryAfterSec: number) =>
    new AppError({
      statusCode: 503,
      code: 'LOCK_TIMEOUT',
      message: 'Another write for this venue is in progress; retry shortly',
      headers: { 'retry-after': String(retryAfterSec) },
    }),
  serverBusy: (retryAfterSec: number) =>
    new AppError({
      statusCode: 503,
      code: 'SERVER_BUSY',
      message: 'The server is overloaded; retry after the Retry-After delay',
      headers: { 'retry-after': String(retryAfterSec) },
    }),
  /** The connection to the database was lost or could not be made (a write cut at commit may have landed). */
  databaseUnavailable: (retryAfterSec: number) =>
    new AppError({
      statusCode: 503,
      code: 'DATABASE_UNAVAILABLE',
      message: 'The database is unavailable; retry after the Retry-After delay',
      headers: { 'retry-after': String(retryAfterSec) },
    }),
} as const;
