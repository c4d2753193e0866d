import { actorOf } from '../../http/actor.js';
import { errorResponses, ListQuery } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import { MenuDocument } from './menu.schemas.js';
import type { PublicationsService } from './publications.service.js';
import { MenuDiff, MenuDiffQuery, PublicationList, PublicationParams, RestoreBody, RestoreResponse } from './publications.schemas.js';

/** The services these routes call. */
type RouteServices = { publications: PublicationsService };

const tags = ['menu'];

/** Publication history, diff and restore. */
export function publicationsRoutes(services: RouteServices) {
  const { publications } = services;

  return async function routes(app: App): Promise<void> {
    app.get(
      '/publications',
      {
        schema: {
          operationId: 'listPublications',
          tags,
          summary: 'List publications',
          description:
            "The venue's kept publications in the list envelope, newest first. Kept: every publication of the last 90 days, " +
            'and always the latest 20; older ones are pruned at the next publish, with the images no kept snapshot or draft item uses.',
          querystring: ListQuery,
          response: { 200: PublicationList },
        },
      },
      async (request) => publications.list(request.venue.venueId, request.query),
    );

    app.get(
      '/publications/:id',
      {
        schema: {
          operationId: 'getPublication',
          tags,
          summary: 'Read one publication',
          description:
            'That snapshot in the read shape of GET /v1/menu (`version` `published`, its own `publicationId`), with live availability. Unknown: 404 `PUBLICATION_NOT_FOUND`.',
          params: PublicationParams,
          response: { 200: MenuDocument, ...errorResponses({ 404: ['PUBLICATION_NOT_FOUND'] }) },
        },
      },
      async (request) => publications.read(request.venue, request.params.id),
    );

    app.get(
      '/menu/diff',
      {
        schema: {
          operationId: 'diffMenus',
          tags,
          summary: 'Diff two menus',
          description: [
            'What changes from one menu to another; `from` and `to` are each `draft`, `published` or a publication id (defaults: from `published`, to `draft`).',
            '- Items match by `ref`, the externalId, else the id: `added`, `removed`, and `changed` with the read-shape field names that differ, in alphabetical order.',
            "- Not compared: `updatedAt`, ids, names copied from another item (a composition's and an option's ingredient names), and what derives from other fields (`effectiveAllergens`, `availability`, options' `allergens`).",
            '- A cleaned-up product is `changed` with `menuVisible`, not removed.',
            '- `published` before any publish: 404 `MENU_NOT_PUBLISHED`; an unknown publication: 404 `PUBLICATION_NOT_FOUND`.',
          ].join('\n'),
          querystring: MenuDiffQuery,
          response: { 200: MenuDiff, ...errorResponses({ 404: ['MENU_NOT_PUBLISHED', 'PUBLICATION_NOT_FOUND'] }) },
        },
      },
      async (request) => publications.diff(request.venue, request.query.from, request.query.to),
    );

    app.post(
      '/publications/:id/restore',
      {
        config: { buckets: ['heavy'] },
        schema: {
          operationId: 'restorePublication',
          tags,
          summary: 'Restore a publication into the draft',
          description: [
            "In one transaction the draft becomes that snapshot's content:",
            '- its categories, ingredients and products are written with its values (cleaned-up products come back as it had them, images included);',
            '- draft items it lacks are cleaned up as by POST /v1/cleanup: products hidden, categories and ingredients deleted;',
            '- with `{ "publish": true }` the result is published in the same transaction; the new publication\'s `restoredFrom` is this id.',
            '',
            "`counts` are the snapshot's totals; `publicationId` is the new publication's, or null without publish. Unknown id: 404 `PUBLICATION_NOT_FOUND`. " +
              'Audited as `menu.restore` (and `menu.publish` when publishing); heavy bucket.',
          ].join('\n'),
          params: PublicationParams,
          body: RestoreBody,
          response: { 200: RestoreResponse, ...errorResponses({ 404: ['PUBLICATION_NOT_FOUND'] }) },
        },
      },
      async (request) => publications.restore(actorOf(request), request.params.id, request.body ?? {}),
    );
  };
}
