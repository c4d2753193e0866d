import { errorResponses, NotModified } from '../../http/schemas/common.js';
import { isNotModified, sendCached, sendNotModified } from '../../http/etag-reply.js';
import { actorOf } from '../../http/actor.js';
import type { App } from '../../http/types.js';
import type { Metrics } from '../../http/metrics.js';
import type { CleanupService } from './cleanup.service.js';
import type { MenuService } from './menu.service.js';
import type { ProductsService } from './products.service.js';
import type { SyncService } from './sync.service.js';
import { serveCached } from '../../http/serve-cached.js';
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

/** The services these routes call. */
type RouteServices = { cleanup: CleanupService; menu: MenuService; metrics: Metrics | null; products: ProductsService; sync: SyncService };

const tags = ['menu'];

export function menuRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.post(
      '/sync',
      {
        // A dry run skips the heavy bucket; the limiter reads the query for that.
        config: { buckets: (request) => ((request.query as { dryRun?: unknown }).dryRun === 'true' ? [] : ['heavy']) },
        schema: {
          operationId: 'syncMenu',
          tags,
          summary: 'Sync the draft menu',
          description: [
            'Bulk upsert of categories, ingredients and products (with modifier groups and inline translations) by `externalId`.',
            '- Unknown externalIds are created, known ones updated, identical ones skipped: repeating a request is safe.',
            '- Sections run in the order categories, ingredients, products, in one transaction; a product may reference items created earlier in the same request.',
            '- An omitted field keeps its stored value; `null` clears a nullable one; `[]` clears ingredientExternalIds or modifierGroups (a non-empty array replaces the whole set).',
            '- An unknown categoryExternalId or ingredientExternalId is skipped with a warning, and the product is still saved.',
            "- Per-item failures (INVALID_LOCALE, LOCALE_NOT_ENABLED, EMPTY_TRANSLATION; isSaleActive without a sale price; modifier rules no order could meet) are listed in the section's errors[]; the other items are saved.",
            '- Modifier rules: a fixed minSelections or maxSelections of single_choice or remove_ingredients sent with another value is replaced, with a warning.',
            '- Caps per request: 200 categories, 200 ingredients, 500 products (200 recommended); per product 20 modifier groups, 50 options each, 100 ingredient references.',
            '- Plan limits count new items only; past one, `CATEGORY_BULK_LIMIT_EXCEEDED`, `INGREDIENT_BULK_LIMIT_EXCEEDED` or `PRODUCT_BULK_LIMIT_EXCEEDED` rejects the whole request.',
            '- Past the 30-second window the request is 413 `SYNC_TOO_LARGE` and nothing is written: split the payload and retry.',
            '- `?dryRun=true` returns what a real call would do and the same errors, writes nothing, is not audited and skips the heavy bucket.',
            '',
            'Changes the draft only: guests see it after POST /v1/publish. Audited as `menu.sync`; heavy bucket.',
          ].join('\n'),
          querystring: SyncQuery,
          body: SyncBody,
          response: {
            201: SyncResponse,
            ...errorResponses({
              400: ['CATEGORY_BULK_LIMIT_EXCEEDED', 'INGREDIENT_BULK_LIMIT_EXCEEDED', 'PRODUCT_BULK_LIMIT_EXCEEDED'],
              413: ['SYNC_TOO_LARGE'],
            }),
          },
        },
      },
      async (request, reply) => {
        const dryRun = request.query.dryRun === true;
        const started = performance.now();
        const result = await services.sync.sync(actorOf(request), request.body, { dryRun, bodyDigest: request.bodyDigest });
        services.metrics?.synced(dryRun, (performance.now() - started) / 1000, {
          categories: request.body.categories?.length ?? 0,
          ingredients: request.body.ingredients?.length ?? 0,
          products: request.body.products?.length ?? 0,
        });
        return reply.status(201).send(result);
      },
    );

    app.get(
      '/menu',
      {
        schema: {
          operationId: 'getMenu',
          tags,
          summary: 'Read the menu',
          description:
            'The draft (`version=draft`, the default) or the latest published snapshot (`version=published`), with everything and its flags: ' +
            'hidden products and inactive categories included. The guest menu is the filtered view. ' +
            'The response has an ETag; If-None-Match with it answers 304. `version=published` before the first publish is 404 `MENU_NOT_PUBLISHED`.',
          querystring: MenuQuery,
          response: { 200: MenuDocument, 304: NotModified, ...errorResponses({ 404: ['MENU_NOT_PUBLISHED'] }) },
        },
      },
      (request, reply) => {
        const version = request.query.version ?? 'draft';
        return serveCached(
          () => services.menu.peek(request.venue, version),
          () => services.menu.read(request.venue, version),
          (cached) => sendCached(request.headers['if-none-match'], reply, cached),
        );
      },
    );

    app.post(
      '/publish',
      {
        config: { buckets: ['heavy'] },
        schema: {
          operationId: 'publishMenu',
          tags,
          summary: 'Publish the draft menu',
          description:
            'Makes an immutable snapshot of the draft, which guests see from then on; every call makes a new one. ' +
            'The body is absent or `{}`. Audited as `menu.publish`; heavy bucket.',
          body: PublishBody,
          response: { 201: PublishResponse },
        },
      },
      async (request, reply) => reply.status(201).send(await services.menu.publish(actorOf(request))),
    );

    app.post(
      '/cleanup',
      {
        config: { buckets: ['heavy'] },
        schema: {
          operationId: 'cleanupMenu',
          tags,
          summary: 'Clean up menu items',
          description: [
            'Cleans up the listed items; `ref` is an externalId or an id, at most 1000 items.',
            '- Products are hidden (`menuVisible` false) and soft-deleted: they still count toward the plan, and a later sync of their externalId restores them.',
            '- Categories and ingredients are deleted: products lose that category, compositions that ingredient, and options on it are removed.',
            '- Unknown refs are listed in notFound, not errors.',
            '- `items: []` with `force: true` cleans up every item of the venue; without force it is a 400 whose message says so (no code).',
            '',
            'Changes the draft only. Audited as `menu.cleanup`; heavy bucket.',
          ].join('\n'),
          body: CleanupBody,
          response: {
            201: CleanupResponse,
            ...errorResponses({
              400: [{ message: 'items is empty: send force: true to clean up every product, category and ingredient of the venue' }],
            }),
          },
        },
      },
      async (request, reply) => reply.status(201).send(await services.cleanup.cleanup(actorOf(request), request.body)),
    );

    app.get(
      '/products/:ref',
      {
        schema: {
          operationId: 'getProduct',
          tags,
          summary: 'Read one product',
          description:
            'One product of the draft in the read shape of GET /v1/menu; `ref` is its externalId or its id. ' +
            'The response has the ETag that PATCH takes in If-Match; If-None-Match with it answers 304.',
          params: ProductRefParams,
          response: { 200: ProductView, 304: NotModified, ...errorResponses({ 404: ['PRODUCT_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => {
        const { product, etag } = await services.products.get(request.venue.venueId, request.params.ref);
        reply.header('etag', etag);
        if (isNotModified(request.headers['if-none-match'], etag)) {
          sendNotModified(reply);
          return reply;
        }
        return product;
      },
    );

    app.patch(
      '/products/:ref',
      {
        schema: {
          operationId: 'updateProduct',
          tags,
          summary: 'Update one product',
          description: [
            'Partial update of one product of the draft; `ref` is its externalId or its id.',
            '- An omitted field keeps its value, `null` clears a nullable one, a value sets it.',
            '- The category is `categoryRef` (externalId or id; `null` detaches): an unknown one is 404 `CATEGORY_NOT_FOUND`, not a warning as in sync.',
            '- Translations are checked at once: 400 `INVALID_LOCALE`, `LOCALE_NOT_ENABLED` or `EMPTY_TRANSLATION`. isSaleActive true without a sale price (sent or stored) is a validation failure.',
            '- The response carries the new ETag: sent back in If-Match, it makes a concurrent change fail with 412 `STALE_RESOURCE`.',
            '',
            'Audited as `product.update` (the names of the changed fields).',
          ].join('\n'),
          params: ProductRefParams,
          body: ProductPatchBody,
          response: {
            200: ProductView,
            ...errorResponses({
              400: ['INVALID_LOCALE', 'LOCALE_NOT_ENABLED', 'EMPTY_TRANSLATION'],
              404: ['PRODUCT_NOT_FOUND', 'CATEGORY_NOT_FOUND'],
              412: ['STALE_RESOURCE'],
            }),
          },
        },
      },
      async (request, reply) => {
        const { product, etag } = await services.products.patch(
          actorOf(request),
          request.params.ref,
          request.body,
          request.headers['if-match'],
        );
        reply.header('etag', etag);
        return product;
      },
    );

    app.delete(
      '/products/:ref',
      {
        schema: {
          operationId: 'deleteProduct',
          tags,
          summary: 'Delete one product',
          description:
            'Deletes the product for good, which frees its plan capacity, and its image unless a published snapshot still shows it. ' +
            '`ref` is its externalId or its id. Audited as `product.delete`.',
          params: ProductRefParams,
          response: { 200: ProductDeleted, ...errorResponses({ 404: ['PRODUCT_NOT_FOUND'] }) },
        },
      },
      async (request) => services.products.delete(actorOf(request), request.params.ref),
    );
  };
}
