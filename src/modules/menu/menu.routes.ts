import { errorResponses, NotModified } from '../../http/schemas/common.js';
import { isNotModified, sendCached, sendNotModified } from '../../http/etag.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import {
  CleanupBody,
  CleanupResponse,
  MenuDocument,
  MenuQuery,
  ProductDeleted,
  ProductPatchBody,
  ProductRefParams,
  ProductView,
  PublishBody,
  PublishResponse,
  SyncBody,
  SyncQuery,
  SyncResponse,
} from './menu.schemas.js';

const tags = ['menu'];

export function menuRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    // The JSON parser records the raw body's digest: an identical catalogue re-sent reuses its
    // item digests (item-digests.ts).
    await app.register(async (sync: App) => {
      sync.post('/sync', {
        // A dry run skips the heavy bucket (spec 4.1); the limiter reads the query for that.
        config: { buckets: (request) => ((request.query as { dryRun?: unknown }).dryRun === 'true' ? [] : ['heavy']) },
        schema: {
          tags,
          summary: 'Bulk upsert of the draft menu by externalId (spec 4.1); ?dryRun=true plans without writing',
          querystring: SyncQuery,
          body: SyncBody,
          response: { 201: SyncResponse, ...errorResponses(400, 401, 403, 413, 429) },
        },
      }, async (request, reply) => {
        const result = await services.sync.sync(
          { venue: request.venue, requestId: request.id },
          request.body,
          { dryRun: request.query.dryRun === true, bodyDigest: request.bodyDigest },
        );
        return reply.status(201).send(result);
      });
    });

    app.get('/menu', {
      schema: {
        tags,
        summary: 'The draft (default) or the latest published menu; ETag + If-None-Match',
        querystring: MenuQuery,
        response: { 200: MenuDocument, 304: NotModified, ...errorResponses(400, 401, 403, 404, 429) },
      },
    }, async (request, reply) => {
      const cached = await services.menu.read(request.venue, request.query.version ?? 'draft');
      sendCached(request.headers['if-none-match'], reply, cached);
      return reply;
    });

    app.post('/publish', {
      config: { buckets: ['heavy'] },
      schema: {
        tags,
        summary: 'Publish the draft as an immutable snapshot',
        body: PublishBody,
        response: { 201: PublishResponse, ...errorResponses(400, 401, 403, 429) },
      },
    }, async (request, reply) => reply.status(201).send(await services.menu.publish({ venue: request.venue, requestId: request.id })));

    app.post('/cleanup', {
      config: { buckets: ['heavy'] },
      schema: {
        tags,
        summary: 'Hide products, delete categories and ingredients (decisions section 4)',
        body: CleanupBody,
        response: { 201: CleanupResponse, ...errorResponses(400, 401, 403, 429) },
      },
    }, async (request, reply) =>
      reply.status(201).send(await services.cleanup.cleanup({ venue: request.venue, requestId: request.id }, request.body)));

    app.get('/products/:ref', {
      schema: {
        tags,
        summary: 'One product in the read shape, with the ETag PATCH uses',
        params: ProductRefParams,
        response: { 200: ProductView, 304: NotModified, ...errorResponses(401, 403, 404, 429) },
      },
    }, async (request, reply) => {
      const { product, etag } = await services.products.get(request.venue.venueId, request.params.ref);
      reply.header('etag', etag);
      if (isNotModified(request.headers['if-none-match'], etag)) {
        sendNotModified(reply);
        return reply;
      }
      return product;
    });

    app.patch('/products/:ref', {
      schema: {
        tags,
        summary: 'Partial update of one product (spec 4.2); If-Match -> 412 STALE_RESOURCE when stale',
        params: ProductRefParams,
        body: ProductPatchBody,
        response: { 200: ProductView, ...errorResponses(400, 401, 403, 404, 412, 429) },
      },
    }, async (request, reply) => {
      const { product, etag } = await services.products.patch(
        { venue: request.venue, requestId: request.id },
        request.params.ref,
        request.body,
        request.headers['if-match'],
      );
      reply.header('etag', etag);
      return product;
    });

    app.delete('/products/:ref', {
      schema: {
        tags,
        summary: 'Delete a product; frees plan capacity',
        params: ProductRefParams,
        response: { 200: ProductDeleted, ...errorResponses(401, 403, 404, 429) },
      },
    }, async (request) => services.products.delete({ venue: request.venue, requestId: request.id }, request.params.ref));
  };
}
