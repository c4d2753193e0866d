import type { FastifyRequest, RouteShorthandOptions } from 'fastify';
import { actorOf as actor } from '../../http/actor.js';
import { isNotModified, sendNotModified } from '../../http/etag.js';
import { errorResponses, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import { MEDIA_BODY_LIMIT_BYTES } from '../../limits.js';
import type { Services } from '../../services.js';
import { ProductRefParams } from '../menu/menu.schemas.js';
import { IdParams } from '../merch/merch.schemas.js';
import { bannerImage, logoImage, productImage, type ImageTarget } from './image-targets.js';
import { registerMediaBody } from './media-body.js';
import { ImageDeleted, ImageSourceBody, ImageUploadQuery, MediaFileParams, MediaImage, type ImageSourceInput } from './media.schemas.js';

const tags = ['media'];

const UPLOAD_ERRORS = errorResponses(400, 401, 403, 404, 413, 429, 503);

/**
 * Image ingest and removal under /v1 (decisions section 7). Uploads take a 21 MB body (spec 8.1),
 * draw from the media bucket (media-fast with ?preoptimized=true, spec 8.4), and are admitted before
 * their body is read: past capacity the answer is 503 MEDIA_BUSY without reading it.
 */
export function mediaRoutes(services: Services) {
  const { media } = services;

  const upload = (preoptimizable: boolean): RouteShorthandOptions => ({
    bodyLimit: MEDIA_BODY_LIMIT_BYTES,
    preParsing: async (_request, reply, payload) => {
      // Held until the response has gone (or the connection dropped), processing included.
      reply.raw.once('close', media.capacity.admit());
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

    app.post('/products/:ref/image', {
      ...upload(true),
      schema: {
        tags,
        summary: "Set a product's image from base64 or a URL: WebP 1024/512/256; ?preoptimized=true stores a ready 1024x1024 WebP as sent",
        params: ProductRefParams,
        querystring: ImageUploadQuery,
        body: ImageSourceBody,
        response: { 201: MediaImage, ...UPLOAD_ERRORS },
      },
    }, async (request, reply) =>
      reply.status(201).send(await ingest(request, productImage, request.params.ref, request.body, request.query.preoptimized === true)));

    app.delete('/products/:ref/image', {
      schema: {
        tags,
        summary: "Remove a product's image",
        params: ProductRefParams,
        response: { 200: ImageDeleted, ...errorResponses(401, 403, 404, 429) },
      },
    }, async (request) => media.remove(actor(request), productImage, request.params.ref));

    app.post('/banners/:id/image', {
      ...upload(true),
      schema: {
        tags,
        summary: "Set a banner's image from base64 or a URL: 3:1 within 2%, at least 960x320, WebP 1536x512 and 768x256; ?preoptimized=true stores a ready 1536x512 WebP as sent",
        params: IdParams,
        querystring: ImageUploadQuery,
        body: ImageSourceBody,
        response: { 201: MediaImage, ...UPLOAD_ERRORS },
      },
    }, async (request, reply) =>
      reply.status(201).send(await ingest(request, bannerImage, request.params.id, request.body, request.query.preoptimized === true)));

    app.delete('/banners/:id/image', {
      schema: {
        tags,
        summary: "Remove a banner's image",
        params: IdParams,
        response: { 200: ImageDeleted, ...errorResponses(401, 403, 404, 429) },
      },
    }, async (request) => media.remove(actor(request), bannerImage, request.params.id));

    app.post('/logo', {
      ...upload(false),
      schema: {
        tags,
        summary: "Set the venue's logo from base64 or a URL: square, at least 320x320, WebP 1024/512/256",
        body: ImageSourceBody,
        response: { 201: MediaImage, ...UPLOAD_ERRORS },
      },
    }, async (request, reply) => reply.status(201).send(await ingest(request, logoImage, '', request.body, false)));

    app.delete('/logo', {
      schema: { tags, summary: "Remove the venue's logo", response: { 200: ImageDeleted, ...errorResponses(401, 403, 429) } },
    }, async (request) => media.remove(actor(request), logoImage, ''));
  };
}

/**
 * GET /media/<venueId>/<sha256>.webp: public, immutable bytes (decisions 7). The key is the hash of
 * the bytes, so it is the strong ETag and the URL never needs to change meaning. Outside the per-IP
 * API limits: a guest's menu page loads one image per product at once.
 */
export function mediaFileRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.get('/:venueId/:file', {
      config: { rateLimit: false },
      schema: {
        tags,
        summary: 'An image variant (WebP), cacheable forever',
        params: MediaFileParams,
        response: {
          200: { description: 'The image bytes', content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } } },
          304: NotModified,
          ...errorResponses(404),
        },
      },
    }, async (request, reply) => {
      const blob = await services.media.read(request.params.venueId, request.params.file);
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
    });
  };
}
