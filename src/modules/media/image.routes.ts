import type { TSchema } from 'typebox';
import type { FastifyRequest, RouteShorthandOptions } from 'fastify';
import { actorOf as actor } from '../../http/actor.js';
import type { ErrorCode } from '../../errors.js';
import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import { MEDIA_BODY_LIMIT_BYTES } from '../../limits.js';
import type { ImageTarget } from './image-targets.js';
import { registerMediaBody } from './media-body.js';
import type { MediaService } from './media.service.js';
import { ImageDeleted, ImageSourceBody, ImageUploadQuery, MediaImage, type ImageSourceInput } from './media.schemas.js';

/**
 * The upload and removal routes of one kind of image, declared by the module the image belongs to
 * (the product's in menu/, the banner's in merch/, the logo's in settings/); media/ gives them the
 * body, the capacity and the rules every upload shares.
 */
export interface ImageRoutes {
  target: ImageTarget;
  /** The image's path under /v1 (`/products/:ref/image`, `/logo`). */
  path: string;
  params?: TSchema;
  /** The owner's reference in the path params ('' for the venue's one logo). */
  refOf(params: Record<string, string>): string;
  /** `?preoptimized=true` (the media-fast bucket) stores a ready WebP as sent: its rule in words. */
  preoptimized?: string;
  upload: { operationId: string; summary: string; about: string; rules: readonly ErrorCode[]; notFound: readonly ErrorCode[] };
  remove: { operationId: string; summary: string; description: string; notFound: readonly ErrorCode[] };
}

/** The services these routes call. */
type RouteServices = { media: MediaService };

const tags = ['media'];

/** What every upload can answer from its source and bytes; each route adds its own rules. */
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
 * Image ingest and removal under /v1, for each kind of image in `images`, in
 * that order. Uploads take a 21 MB body, draw from the media bucket (media-fast with
 * ?preoptimized=true), and are admitted once their body has arrived (media-capacity.ts): past
 * capacity the answer is 503 MEDIA_BUSY. One Fastify scope, so the uploads' own JSON parser
 * (media-body.ts) serves these routes only.
 */
export function imageRoutes(services: RouteServices, images: readonly ImageRoutes[]) {
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

  return async function routes(app: App): Promise<void> {
    registerMediaBody(app);
    for (const image of images) {
      const preoptimizable = image.preoptimized !== undefined;
      const params = image.params ? { params: image.params } : {};
      app.post(
        image.path,
        {
          ...upload(preoptimizable),
          schema: {
            operationId: image.upload.operationId,
            tags,
            summary: image.upload.summary,
            description: [
              image.upload.about,
              UPLOAD_DESCRIPTION,
              ...(preoptimizable ? [image.preoptimized] : []),
              '',
              `Audited as \`${image.target.action}\` (sizes only); media bucket.`,
            ].join('\n'),
            ...params,
            ...(preoptimizable ? { querystring: ImageUploadQuery } : {}),
            body: ImageSourceBody,
            response: { 201: MediaImage, ...uploadErrors(image.upload.rules, image.upload.notFound) },
          },
        },
        async (request, reply) => {
          const preoptimized = (request.query as { preoptimized?: boolean } | undefined)?.preoptimized === true;
          const decoded = request.decodedUpload;
          const body = (request.body as ImageSourceInput | undefined) ?? {};
          const ref = image.refOf(request.params as Record<string, string>);
          return reply.status(201).send(await media.upload(actor(request), image.target, ref, body, { preoptimized, decoded }));
        },
      );
      app.delete(
        image.path,
        {
          schema: {
            operationId: image.remove.operationId,
            tags,
            summary: image.remove.summary,
            description: image.remove.description,
            ...params,
            response: { 200: ImageDeleted, ...(image.remove.notFound.length > 0 ? errorResponses({ 404: image.remove.notFound }) : {}) },
          },
        },
        async (request) => media.remove(actor(request), image.target, image.refOf(request.params as Record<string, string>)),
      );
    }
  };
}
