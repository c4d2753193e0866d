import { isNotModified, sendNotModified } from '../../http/etag-reply.js';
import { limitIpOnMiss, type RateLimiter } from '../../http/rate-limit/limiter.js';
import { errorResponses, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { MediaService } from './media.service.js';
import { MediaFileParams } from './media.schemas.js';

/** The services these routes call. */
type RouteServices = { media: MediaService };

const tags = ['media'];

/**
 * GET /media/<venueId>/<sha256>.webp: public, immutable bytes. The key is the hash of
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
            'One stored variant of an image, as the `imageUrl` and `variants[].url` of the reads link it: `<venueId>/<sha256>.webp`. ' +
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
