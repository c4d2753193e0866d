import { actorOf as actor } from '../../http/actor.js';
import { conditionalView, withEtag } from '../../http/etag.js';
import { errorResponses, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { Banner, BannerCreateBody, BannerList, BannerPatchBody } from './banners.schemas.js';
import { Deleted, IdParams, ListQuery } from './merch.schemas.js';

const tags = ['banners'];

/** /v1/banners (decisions section 8). Images: POST|DELETE /v1/banners/:id/image (media routes). */
export function bannersRoutes(services: Services) {
  const { banners } = services;

  return async function routes(app: App): Promise<void> {
    app.get('/banners', {
      schema: { tags, summary: 'List banners (sortOrder, then oldest first)', querystring: ListQuery, response: { 200: BannerList, ...errorResponses(400, 401, 403, 429) } },
    }, async (request) => banners.list(request.venue.venueId, request.query));

    app.post('/banners', {
      schema: {
        tags,
        summary: 'Create a banner; 400 BANNER_LIMIT_REACHED past the plan, 404 PRODUCT_NOT_FOUND for an unknown productRef, 409 EXTERNAL_ID_ALREADY_EXISTS',
        body: BannerCreateBody,
        response: { 201: Banner, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    }, async (request, reply) => withEtag(reply, await banners.create(actor(request), request.body), 201));

    app.get('/banners/:id', {
      schema: { tags, summary: 'One banner, with the ETag PATCH takes in If-Match', params: IdParams, response: { 200: Banner, 304: NotModified, ...errorResponses(401, 403, 404, 429) } },
    }, async (request, reply) =>
      conditionalView(request.headers['if-none-match'], reply, await banners.get(request.venue.venueId, request.params.id)) ?? reply);

    app.patch('/banners/:id', {
      schema: {
        tags,
        summary: 'Change a banner (omitted keeps, null clears); If-Match -> 412 STALE_RESOURCE when stale',
        params: IdParams,
        body: BannerPatchBody,
        response: { 200: Banner, ...errorResponses(400, 401, 403, 404, 409, 412, 429) },
      },
    }, async (request, reply) => withEtag(reply, await banners.patch(actor(request), request.params.id, request.body, request.headers['if-match'])));

    app.delete('/banners/:id', {
      schema: { tags, summary: 'Delete a banner (and its image)', params: IdParams, response: { 200: Deleted, ...errorResponses(401, 403, 404, 429) } },
    }, async (request) => banners.delete(actor(request), request.params.id));
  };
}
