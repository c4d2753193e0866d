import type { FastifyRequest, RouteShorthandOptions } from 'fastify';
import { actorOf as actor } from '../../http/actor.js';
import { isNotModified, sendNotModified } from '../../http/etag-reply.js';
import type { ErrorCode } from '../../errors.js';
import { limitIpOnMiss, type RateLimiter } from '../../http/rate-limit/limiter.js';
import { errorResponses, IdParams, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import { MEDIA_BODY_LIMIT_BYTES } from '../../limits.js';
import type { MediaService } from './media.service.js';
import { ProductRefParams } from '../menu/menu.schemas.js';
import { productImage } from '../menu/product-image.js';
import { bannerImage } from '../merch/banner-image.js';
import { logoImage } from '../settings/logo-image.js';
import type { ImageTarget } from './image-targets.js';
import { registerMediaBody } from './media-body.js';
import { ImageDeleted, ImageSourceBody, ImageUploadQuery, MediaFileParams, MediaImage, type ImageSourceInput } from './media.schemas.js';

/** The services these routes call. */
type RouteServices = { media: MediaService };

const tags = ['media'];

/** What every upload can answer from its source and bytes (decisions 7); each route adds its own rules. */
const SOURCE_ERRORS = [
  'INVALID_IMAGE_SOURCE',
  'INVALID_SOURCE_URL',
  'BLOCKED_SOURCE_URL',
  'SOURCE_FETCH_FAILED',
  'INVALID_IMAGE',
  'IMAGE_TOO_SMALL',
] as const;
const uploadErrors = (rules: readonly ErrorCode[], notFound: readonly ErrorCode[]) =>
  errorResponses({
    400: [...SOURCE_ERRORS, ...rules],
    ...(notFound.length > 0 ? { 404: notFound } : {}),
    413: ['FILE_TOO_LARGE', 'SOURCE_TOO_LARGE'],
    503: ['MEDIA_BUSY'],
  });

const UPLOAD_DESCRIPTION = [
  'The body is exactly one of `{ "base64": "..." }` or `{ "url": "https://..." }` (else 400 `INVALID_IMAGE_SOURCE`), at most 15 MB of image ' +
    '(413 `FILE_TOO_LARGE` for base64, `SOURCE_TOO_LARGE` for a URL) in a body of at most 21 MB.',
  '- A URL is http(s) without credentials (`INVALID_SOURCE_URL`); one whose host, at any of at most 3 redirects, resolves to a loopback, private, ' +
    'link-local or other reserved address, or does not resolve at all (the same answer, so internal names cannot be probed), is `BLOCKED_SOURCE_URL`; ' +
    'one that cannot be fetched is `SOURCE_FETCH_FAILED`.',
  '- Bytes that are not a JPEG, PNG, WebP, AVIF, GIF or TIFF are `INVALID_IMAGE`. The image is re-encoded as WebP without metadata.',
  '- Past processing capacity the request is 503 `MEDIA_BUSY` with Retry-After, once its body has arrived (or, past the uploads a venue may send ' +
    'at once, before it is read).',
].join('\n');

/**
 * Image ingest and removal under /v1 (decisions section 7). Uploads take a 21 MB body (spec 8.1),
 * draw from the media bucket (media-fast with ?preoptimized=true, spec 8.4), and are admitted once
 * their body has arrived (media-capacity.ts): past capacity the answer is 503 MEDIA_BUSY.
 */
export function mediaRoutes(services: RouteServices) {
  const { media } = services;
  /** Each upload's receiving place. */
  const releases = new WeakMap<FastifyRequest, () => void>();

  const upload = (preoptimizable: boolean): RouteShorthandOptions => ({
    bodyLimit: MEDIA_BODY_LIMIT_BYTES,
    // Both held until the response has gone (or the connection dropped), processing included; the
    // receiving place is let go as soon as the answer is sent: after an early one (413) the rest of
    // the body is only drained into nothing (lingering-close.ts), for up to 5 s.
    preParsing: async (request, reply, payload) => {
      const declared = Number(request.headers['content-length']);
      const bytes = Number.isFinite(declared) && declared > 0 ? Math.min(declared, MEDIA_BODY_LIMIT_BYTES) : MEDIA_BODY_LIMIT_BYTES;
      const release = media.capacity.receive(request.venue.liveVenueId, bytes);
      reply.raw.once('close', release);
      releases.set(request, release);
      return payload;
    },
    preValidation: async (_request, reply) => {
      reply.raw.once('close', media.capacity.admit());
    },
    onSend: async (request, _reply, payload) => {
      releases.get(request)?.();
      return payload;
    },
    config: {
      buckets: preoptimizable
        ? (request) => ((request.query as { preoptimized?: unknown }).preoptimized === 'true' ? ['media-fast'] : ['media'])
        : ['media'],
    },
  });

  /** An upload's work: the body as parsed, or as the streaming decoder already decoded it. */
  const ingest = (request: FastifyRequest, target: ImageTarget, ref: string, body: ImageSourceInput | undefined, preoptimized: boolean) =>
    media.upload(actor(request), target, ref, body ?? {}, { preoptimized, decoded: request.decodedUpload });

  return async function routes(app: App): Promise<void> {
    // The uploads' own JSON parser (media-body.ts); registered in this scope, it serves these routes only.
    registerMediaBody(app);

    app.post(
      '/products/:ref/image',
      {
        ...upload(true),
        schema: {
          operationId: 'uploadProductImage',
          tags,
          summary: "Set a product's image",
          description: [
            'Sets the image of a product of the draft (`ref`: its externalId or id): square within 2% (`IMAGE_NOT_SQUARE`) and at least 320x320 ' +
              '(`IMAGE_TOO_SMALL`), stored as WebP 1024, 512 and 256 (decisions 7). The draft menu shows it at once, guests after a publish.',
            UPLOAD_DESCRIPTION,
            '- `?preoptimized=true` (media-fast bucket) stores a ready 1024x1024 WebP of at most 1 MB as sent; other bytes are 400 `PREOPTIMIZED_INVALID`.',
            '',
            'Audited as `product.image` (sizes only); media bucket.',
          ].join('\n'),
          params: ProductRefParams,
          querystring: ImageUploadQuery,
          body: ImageSourceBody,
          response: { 201: MediaImage, ...uploadErrors(['IMAGE_NOT_SQUARE', 'PREOPTIMIZED_INVALID'], ['PRODUCT_NOT_FOUND']) },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await ingest(request, productImage, request.params.ref, request.body, request.query.preoptimized === true)),
    );

    app.delete(
      '/products/:ref/image',
      {
        schema: {
          operationId: 'deleteProductImage',
          tags,
          summary: "Remove a product's image",
          description:
            'Removes the image of a product of the draft (`ref`: its externalId or id); `deleted` is false when it had none. ' +
            'The files stay while a published snapshot shows them. Audited as `product.image`.',
          params: ProductRefParams,
          response: { 200: ImageDeleted, ...errorResponses({ 404: ['PRODUCT_NOT_FOUND'] }) },
        },
      },
      async (request) => media.remove(actor(request), productImage, request.params.ref),
    );

    app.post(
      '/banners/:id/image',
      {
        ...upload(true),
        schema: {
          operationId: 'uploadBannerImage',
          tags,
          summary: "Set a banner's image",
          description: [
            'Sets the image of a banner: 3:1 within 2% (`IMAGE_WRONG_ASPECT_RATIO`) and at least 960x320 (`IMAGE_TOO_SMALL`), stored as WebP 1536x512 and 768x256 ' +
              '(decisions 7). Guests see it at once.',
            UPLOAD_DESCRIPTION,
            '- `?preoptimized=true` (media-fast bucket) stores a ready 1536x512 WebP of at most 1 MB as sent; other bytes are 400 `PREOPTIMIZED_INVALID`.',
            '',
            'Audited as `banner.image` (sizes only); media bucket.',
          ].join('\n'),
          params: IdParams,
          querystring: ImageUploadQuery,
          body: ImageSourceBody,
          response: { 201: MediaImage, ...uploadErrors(['IMAGE_WRONG_ASPECT_RATIO', 'PREOPTIMIZED_INVALID'], ['BANNER_NOT_FOUND']) },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await ingest(request, bannerImage, request.params.id, request.body, request.query.preoptimized === true)),
    );

    app.delete(
      '/banners/:id/image',
      {
        schema: {
          operationId: 'deleteBannerImage',
          tags,
          summary: "Remove a banner's image",
          description: "Removes a banner's image; `deleted` is false when it had none. Audited as `banner.image`.",
          params: IdParams,
          response: { 200: ImageDeleted, ...errorResponses({ 404: ['BANNER_NOT_FOUND'] }) },
        },
      },
      async (request) => media.remove(actor(request), bannerImage, request.params.id),
    );

    app.post(
      '/logo',
      {
        ...upload(false),
        schema: {
          operationId: 'uploadLogo',
          tags,
          summary: "Set the venue's logo",
          description: [
            "Sets the venue's logo: square within 2% (`IMAGE_NOT_SQUARE`) and at least 320x320 (`IMAGE_TOO_SMALL`), stored as WebP 1024, 512 and 256 " +
              '(decisions 7). Settings and the guest menu show it at once, without a publish.',
            UPLOAD_DESCRIPTION,
            '',
            'Audited as `logo.image` (sizes only); media bucket.',
          ].join('\n'),
          body: ImageSourceBody,
          response: { 201: MediaImage, ...uploadErrors(['IMAGE_NOT_SQUARE'], []) },
        },
      },
      async (request, reply) => reply.status(201).send(await ingest(request, logoImage, '', request.body, false)),
    );

    app.delete(
      '/logo',
      {
        schema: {
          operationId: 'deleteLogo',
          tags,
          summary: "Remove the venue's logo",
          description: "Removes the venue's logo; `deleted` is false when it had none. Audited as `logo.image`.",
          response: { 200: ImageDeleted },
        },
      },
      async (request) => media.remove(actor(request), logoImage, ''),
    );
  };
}

/**
 * GET /media/<venueId>/<sha256>.webp: public, immutable bytes (decisions 7). The key is the hash of
 * the bytes, so it is the strong ETag and the URL never needs to change meaning. A miss counts
 * against the per-IP limits and a found image does not: a guest's menu page loads one image per
 * product at once and a CDN pulls from few addresses, while misses asked for in a stream would
 * each be a database (or bucket) look-up. A hot image is served before any limit is asked.
 */
export function mediaFileRoutes(services: RouteServices, limiter: RateLimiter | null) {
  const { media } = services;
  return async function routes(app: App): Promise<void> {
    app.get(
      '/:venueId/:file',
      {
        // Limited by the handler, not the gate: a blob in memory takes no slot.
        config: { rateLimit: false },
        schema: {
          operationId: 'getMediaFile',
          tags,
          summary: 'Download an image file',
          description:
            'One stored variant of an image, as the `imageUrl` and `variants[].url` of the reads link it (decisions 7): `<venueId>/<sha256>.webp`. ' +
            'Public and immutable: `Cache-Control: public, max-age=31536000, immutable`, with the hash as a strong ETag (If-None-Match answers 304). ' +
            'Per-IP rate limits: a request that finds its image takes no slot, one that does not (404) takes one; after a miss refused 429, ' +
            'until its Retry-After, only images the server holds in memory are served to that address.',
          params: MediaFileParams,
          response: {
            200: { description: 'The image bytes', content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } } },
            304: NotModified,
            // Read from the database unless an S3 bucket holds the bytes (MEDIA_S3_BUCKET).
            ...errorResponses({ 404: [{ message: 'Image not found' }], 429: ['RATE_LIMITED'], 503: ['DATABASE_UNAVAILABLE'] }),
          },
        },
      },
      async (request, reply) => {
        const { venueId, file } = request.params;
        const blob =
          media.hot(venueId, file) ??
          (limiter ? await limitIpOnMiss(limiter, request, reply, () => media.read(venueId, file)) : await media.read(venueId, file));
        const etag = `"${blob.key}"`;
        reply.header('etag', etag);
        reply.header('cache-control', 'public, max-age=31536000, immutable');
        reply.header('x-content-type-options', 'nosniff');
        if (isNotModified(request.headers['if-none-match'], etag)) {
          sendNotModified(reply);
          return reply;
        }
        // Bytes as they are stored: the 200 schema documents them, nothing serialises them.
        return reply.type('image/webp').send(blob.bytes as unknown as string);
      },
    );
  };
}
