import { actorOf as actor } from '../../http/actor.js';
import { conditionalView, withEtag } from '../../http/etag-reply.js';
import { errorResponses, IdParams, ListQuery, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { PromotionsService } from './promotions.service.js';
import { Deleted } from './merch.schemas.js';
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

/** The services these routes call. */
type RouteServices = { promotions: PromotionsService };

const tags = ['promotions'];

/** /v1/promotions and /v1/promotions/:id/items. */
export function promotionsRoutes(services: RouteServices) {
  const { promotions } = services;

  return async function routes(app: App): Promise<void> {
    app.get(
      '/promotions',
      {
        schema: {
          operationId: 'listPromotions',
          tags,
          summary: 'List promotions',
          description: "The venue's promotions with their items in the list envelope, live or not, by sortOrder.",
          querystring: ListQuery,
          response: { 200: PromotionList },
        },
      },
      async (request) => promotions.list(request.venue.venueId, request.query),
    );

    app.post(
      '/promotions',
      {
        schema: {
          operationId: 'createPromotion',
          tags,
          summary: 'Create a promotion',
          description:
            'Creates a promotion, live while active and within its schedule (`startsAt` and `endsAt` without an offset are read in the venue ' +
            'timezone; endsAt must be after startsAt). Add its products with POST /v1/promotions/{id}/items. A taken externalId is 409 ' +
            '`EXTERNAL_ID_ALREADY_EXISTS`. The response has the ETag that PATCH takes in If-Match. Audited as `promotion.create`.',
          body: PromotionCreateBody,
          response: { 201: Promotion, ...errorResponses({ 409: ['EXTERNAL_ID_ALREADY_EXISTS'] }) },
        },
      },
      async (request, reply) => withEtag(reply, await promotions.create(actor(request), request.body), 201),
    );

    app.get(
      '/promotions/:id',
      {
        schema: {
          operationId: 'getPromotion',
          tags,
          summary: 'Read one promotion',
          description: 'One promotion with its items, and the ETag that PATCH takes in If-Match; If-None-Match with it answers 304.',
          params: IdParams,
          response: { 200: Promotion, 304: NotModified, ...errorResponses({ 404: ['PROMOTION_NOT_FOUND'] }) },
        },
      },
      async (request, reply) =>
        conditionalView(request.headers['if-none-match'], reply, await promotions.get(request.venue.venueId, request.params.id)) ?? reply,
    );

    app.patch(
      '/promotions/:id',
      {
        schema: {
          operationId: 'updatePromotion',
          tags,
          summary: 'Update a promotion',
          description:
            'Changes the fields sent: an omitted field keeps its value, `null` clears a nullable one; endsAt must stay after startsAt and an ' +
            'externalId must be free (409 `EXTERNAL_ID_ALREADY_EXISTS`). If-Match with the ETag of a read makes a concurrent change fail with 412 ' +
            '`STALE_RESOURCE`. Audited as `promotion.update`.',
          params: IdParams,
          body: PromotionPatchBody,
          response: {
            200: Promotion,
            ...errorResponses({ 404: ['PROMOTION_NOT_FOUND'], 409: ['EXTERNAL_ID_ALREADY_EXISTS'], 412: ['STALE_RESOURCE'] }),
          },
        },
      },
      async (request, reply) =>
        withEtag(reply, await promotions.patch(actor(request), request.params.id, request.body, request.headers['if-match'])),
    );

    app.delete(
      '/promotions/:id',
      {
        schema: {
          operationId: 'deletePromotion',
          tags,
          summary: 'Delete a promotion',
          description: 'Deletes a promotion and its items. Audited as `promotion.delete`.',
          params: IdParams,
          response: { 200: Deleted, ...errorResponses({ 404: ['PROMOTION_NOT_FOUND'] }) },
        },
      },
      async (request) => promotions.delete(actor(request), request.params.id),
    );

    app.get(
      '/promotions/:id/items',
      {
        schema: {
          operationId: 'listPromotionItems',
          tags,
          summary: "List a promotion's items",
          description: "The products of a promotion with their promotional prices, in the list envelope, in the promotion's order.",
          params: IdParams,
          querystring: ListQuery,
          response: { 200: PromotionItemList, ...errorResponses({ 404: ['PROMOTION_NOT_FOUND'] }) },
        },
      },
      async (request) => promotions.listItems(request.venue.venueId, request.params.id, request.query),
    );

    app.post(
      '/promotions/:id/items',
      {
        schema: {
          operationId: 'addPromotionItem',
          tags,
          summary: 'Add a product to a promotion',
          description:
            'Puts a product (`productRef`: its externalId or id; 404 `PRODUCT_NOT_FOUND`) in a promotion, with its promotional price. ' +
            'While the promotion is live, guests pay it (an order shows the difference as its discount; the lowest price wins when several promotions ' +
            'hold the product); a null price shows the product in the promotion at its own price. A product already in the promotion ' +
            'is 409 `DUPLICATE_PROMOTION_ITEM`. Audited as `promotion.item_add`.',
          params: IdParams,
          body: PromotionItemCreateBody,
          response: {
            201: PromotionItem,
            ...errorResponses({ 404: ['PROMOTION_NOT_FOUND', 'PRODUCT_NOT_FOUND'], 409: ['DUPLICATE_PROMOTION_ITEM'] }),
          },
        },
      },
      async (request, reply) => withEtag(reply, await promotions.addItem(actor(request), request.params.id, request.body), 201),
    );

    app.get(
      '/promotions/:id/items/:itemId',
      {
        schema: {
          operationId: 'getPromotionItem',
          tags,
          summary: 'Read one promotion item',
          description: 'One item of a promotion, with the ETag that PATCH takes in If-Match; If-None-Match with it answers 304.',
          params: ItemParams,
          response: {
            200: PromotionItem,
            304: NotModified,
            ...errorResponses({ 404: ['PROMOTION_NOT_FOUND', 'PROMOTION_ITEM_NOT_FOUND'] }),
          },
        },
      },
      async (request, reply) =>
        conditionalView(
          request.headers['if-none-match'],
          reply,
          await promotions.getItem(request.venue.venueId, request.params.id, request.params.itemId),
        ) ?? reply,
    );

    app.patch(
      '/promotions/:id/items/:itemId',
      {
        schema: {
          operationId: 'updatePromotionItem',
          tags,
          summary: 'Update a promotion item',
          description:
            "Changes an item's promotional price or its place in the promotion. If-Match with the ETag of a read makes a concurrent change fail with " +
            '412 `STALE_RESOURCE`. Audited as `promotion.item_update`.',
          params: ItemParams,
          body: PromotionItemPatchBody,
          response: {
            200: PromotionItem,
            ...errorResponses({ 404: ['PROMOTION_NOT_FOUND', 'PROMOTION_ITEM_NOT_FOUND'], 412: ['STALE_RESOURCE'] }),
          },
        },
      },
      async (request, reply) =>
        withEtag(
          reply,
          await promotions.patchItem(actor(request), request.params.id, request.params.itemId, request.body, request.headers['if-match']),
        ),
    );

    app.delete(
      '/promotions/:id/items/:itemId',
      {
        schema: {
          operationId: 'removePromotionItem',
          tags,
          summary: 'Remove a product from a promotion',
          description: 'Takes a product out of a promotion. Audited as `promotion.item_remove`.',
          params: ItemParams,
          response: { 200: Deleted, ...errorResponses({ 404: ['PROMOTION_NOT_FOUND', 'PROMOTION_ITEM_NOT_FOUND'] }) },
        },
      },
      async (request) => promotions.removeItem(actor(request), request.params.id, request.params.itemId),
    );
  };
}
