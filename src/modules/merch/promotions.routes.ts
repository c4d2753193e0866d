import { actorOf as actor } from '../../http/actor.js';
import { conditionalView, withEtag } from '../../http/etag.js';
import { errorResponses, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { Deleted, IdParams, ListQuery } from './merch.schemas.js';
import {
  ItemParams,
  Promotion,
  PromotionCreateBody,
  PromotionItem,
  PromotionItemCreateBody,
  PromotionItemList,
  PromotionItemPatchBody,
  PromotionList,
  PromotionPatchBody,
} from './promotions.schemas.js';

const tags = ['promotions'];

/** /v1/promotions and /v1/promotions/:id/items (decisions section 8). */
export function promotionsRoutes(services: Services) {
  const { promotions } = services;

  return async function routes(app: App): Promise<void> {
    app.get('/promotions', {
      schema: { tags, summary: 'List promotions with their items', querystring: ListQuery, response: { 200: PromotionList, ...errorResponses(400, 401, 403, 429) } },
    }, async (request) => promotions.list(request.venue.venueId, request.query));

    app.post('/promotions', {
      schema: {
        tags,
        summary: 'Create a promotion; 409 EXTERNAL_ID_ALREADY_EXISTS. Add products with POST /v1/promotions/:id/items',
        body: PromotionCreateBody,
        response: { 201: Promotion, ...errorResponses(400, 401, 403, 409, 429) },
      },
    }, async (request, reply) => withEtag(reply, await promotions.create(actor(request), request.body), 201));

    app.get('/promotions/:id', {
      schema: { tags, summary: 'One promotion with its items, and the ETag PATCH takes', params: IdParams, response: { 200: Promotion, 304: NotModified, ...errorResponses(401, 403, 404, 429) } },
    }, async (request, reply) =>
      conditionalView(request.headers['if-none-match'], reply, await promotions.get(request.venue.venueId, request.params.id)) ?? reply);

    app.patch('/promotions/:id', {
      schema: {
        tags,
        summary: 'Change a promotion (omitted keeps, null clears); If-Match -> 412 STALE_RESOURCE when stale',
        params: IdParams,
        body: PromotionPatchBody,
        response: { 200: Promotion, ...errorResponses(400, 401, 403, 404, 409, 412, 429) },
      },
    }, async (request, reply) => withEtag(reply, await promotions.patch(actor(request), request.params.id, request.body, request.headers['if-match'])));

    app.delete('/promotions/:id', {
      schema: { tags, summary: 'Delete a promotion and its items', params: IdParams, response: { 200: Deleted, ...errorResponses(401, 403, 404, 429) } },
    }, async (request) => promotions.delete(actor(request), request.params.id));

    app.get('/promotions/:id/items', {
      schema: { tags, summary: "A promotion's items", params: IdParams, querystring: ListQuery, response: { 200: PromotionItemList, ...errorResponses(400, 401, 403, 404, 429) } },
    }, async (request) => promotions.listItems(request.venue.venueId, request.params.id, request.query));

    app.post('/promotions/:id/items', {
      schema: {
        tags,
        summary: 'Put a product in a promotion, with its promotional price; 404 PRODUCT_NOT_FOUND, 409 DUPLICATE_PROMOTION_ITEM',
        params: IdParams,
        body: PromotionItemCreateBody,
        response: { 201: PromotionItem, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    }, async (request, reply) => withEtag(reply, await promotions.addItem(actor(request), request.params.id, request.body), 201));

    app.get('/promotions/:id/items/:itemId', {
      schema: { tags, summary: 'One promotion item', params: ItemParams, response: { 200: PromotionItem, 304: NotModified, ...errorResponses(401, 403, 404, 429) } },
    }, async (request, reply) =>
      conditionalView(request.headers['if-none-match'], reply, await promotions.getItem(request.venue.venueId, request.params.id, request.params.itemId)) ?? reply);

    app.patch('/promotions/:id/items/:itemId', {
      schema: {
        tags,
        summary: "Change an item's promotional price or order; If-Match -> 412 STALE_RESOURCE when stale",
        params: ItemParams,
        body: PromotionItemPatchBody,
        response: { 200: PromotionItem, ...errorResponses(400, 401, 403, 404, 412, 429) },
      },
    }, async (request, reply) => withEtag(reply, await promotions.patchItem(actor(request), request.params.id, request.params.itemId, request.body, request.headers['if-match'])));

    app.delete('/promotions/:id/items/:itemId', {
      schema: { tags, summary: 'Take a product out of a promotion', params: ItemParams, response: { 200: Deleted, ...errorResponses(401, 403, 404, 429) } },
    }, async (request) => promotions.removeItem(actor(request), request.params.id, request.params.itemId));
  };
}
