import { actorOf as actor } from '../../http/actor.js';
import { conditionalView, withEtag } from '../../http/etag-reply.js';
import { errorResponses, IdParams, ListQuery, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { BannersService } from './banners.service.js';
import { Banner, BannerCreateBody, BannerList, BannerPatchBody } from './banners.schemas.js';
import { Deleted } from './merch.schemas.js';

/** The services these routes call. */
type RouteServices = { banners: BannersService };

const tags = ['banners'];

/** /v1/banners. Images: POST|DELETE /v1/banners/:id/image (media routes). */
export function bannersRoutes(services: RouteServices) {
  const { banners } = services;

  return async function routes(app: App): Promise<void> {
    app.get(
      '/banners',
      {
        schema: {
          operationId: 'listBanners',
          tags,
          summary: 'List banners',
          description: "The venue's banners in the list envelope, live or not, by sortOrder, then oldest first.",
          querystring: ListQuery,
          response: { 200: BannerList },
        },
      },
      async (request) => banners.list(request.venue.venueId, request.query),
    );

    app.post(
      '/banners',
      {
        schema: {
          operationId: 'createBanner',
          tags,
          summary: 'Create a banner',
          description: [
            'Creates a banner, live from the moment it is active and within its schedule; its image is set with POST /v1/banners/{id}/image.',
            "- Past the plan's maxBanners: 400 `BANNER_LIMIT_REACHED` with details { limit, available, requested }.",
            '- `linkUrl` must be https; `productRef` (a product externalId or id) must exist: 404 `PRODUCT_NOT_FOUND`.',
            '- `startsAt` and `endsAt` without an offset are read in the venue timezone; endsAt must be after startsAt.',
            '- Translations (title, subtitle) are checked at once: 400 `INVALID_LOCALE`, `LOCALE_NOT_ENABLED`, `EMPTY_TRANSLATION`.',
            '- A taken externalId is 409 `EXTERNAL_ID_ALREADY_EXISTS`.',
            '',
            'The response has the ETag that PATCH takes in If-Match. Audited as `banner.create`.',
          ].join('\n'),
          body: BannerCreateBody,
          response: {
            201: Banner,
            ...errorResponses({
              400: ['BANNER_LIMIT_REACHED', 'INVALID_LOCALE', 'LOCALE_NOT_ENABLED', 'EMPTY_TRANSLATION'],
              404: ['PRODUCT_NOT_FOUND'],
              409: ['EXTERNAL_ID_ALREADY_EXISTS'],
            }),
          },
        },
      },
      async (request, reply) => withEtag(reply, await banners.create(actor(request), request.body), 201),
    );

    app.get(
      '/banners/:id',
      {
        schema: {
          operationId: 'getBanner',
          tags,
          summary: 'Read one banner',
          description: 'One banner, with the ETag that PATCH takes in If-Match; If-None-Match with it answers 304.',
          params: IdParams,
          response: { 200: Banner, 304: NotModified, ...errorResponses({ 404: ['BANNER_NOT_FOUND'] }) },
        },
      },
      async (request, reply) =>
        conditionalView(request.headers['if-none-match'], reply, await banners.get(request.venue.venueId, request.params.id)) ?? reply,
    );

    app.patch(
      '/banners/:id',
      {
        schema: {
          operationId: 'updateBanner',
          tags,
          summary: 'Update a banner',
          description: [
            'Changes the fields sent: an omitted field keeps its value, `null` clears a nullable one.',
            '- The rules of create apply: https `linkUrl`, an existing `productRef` (404 `PRODUCT_NOT_FOUND`), endsAt after startsAt, ' +
              'translations checked at once, a free externalId (409 `EXTERNAL_ID_ALREADY_EXISTS`).',
            '- If-Match with the ETag of a read makes a concurrent change fail with 412 `STALE_RESOURCE`.',
            '',
            'Audited as `banner.update` (the names of the changed fields).',
          ].join('\n'),
          params: IdParams,
          body: BannerPatchBody,
          response: {
            200: Banner,
            ...errorResponses({
              400: ['INVALID_LOCALE', 'LOCALE_NOT_ENABLED', 'EMPTY_TRANSLATION'],
              404: ['BANNER_NOT_FOUND', 'PRODUCT_NOT_FOUND'],
              409: ['EXTERNAL_ID_ALREADY_EXISTS'],
              412: ['STALE_RESOURCE'],
            }),
          },
        },
      },
      async (request, reply) =>
        withEtag(reply, await banners.patch(actor(request), request.params.id, request.body, request.headers['if-match'])),
    );

    app.delete(
      '/banners/:id',
      {
        schema: {
          operationId: 'deleteBanner',
          tags,
          summary: 'Delete a banner',
          description: 'Deletes a banner and its image. Audited as `banner.delete`.',
          params: IdParams,
          response: { 200: Deleted, ...errorResponses({ 404: ['BANNER_NOT_FOUND'] }) },
        },
      },
      async (request) => banners.delete(actor(request), request.params.id),
    );
  };
}
