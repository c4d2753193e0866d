import { errorResponses } from '../../http/schemas/common.js';
import { actorOf } from '../../http/actor.js';
import type { App } from '../../http/types.js';
import type { TranslationsService } from './translations.service.js';
import { TranslationsBody, TranslationsResponse, type TranslationsInput } from './translations.schemas.js';

/** The services these routes call. */
type RouteServices = { translations: TranslationsService };

export function translationsRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.put(
      '/translations',
      {
        config: { buckets: ['heavy'] },
        schema: {
          operationId: 'updateTranslations',
          tags: ['translations'],
          summary: 'Write translations in bulk',
          description: [
            'Merges translations into products, categories and ingredients (by `ref`: externalId or id), modifier groups and banners (by `id`), ' +
              'at most 500 entries per section.',
            '- The merge rules: an omitted locale or field keeps its text, an empty string clears it. Allowed fields: products name, description, ' +
              'badgeLabel; banners title, subtitle; the others name.',
            '- All or nothing: a locale outside the reference languages, not enabled for the venue, or with no text is a 400 ' +
              '(`INVALID_LOCALE`, `LOCALE_NOT_ENABLED`, `EMPTY_TRANSLATION`) and nothing is written.',
            '- Entries that match nothing are listed in notFound, not errors.',
            '',
            'Changes the draft only. One audit entry per entity type touched (`product.translations`, ...); heavy bucket.',
          ].join('\n'),
          body: TranslationsBody,
          response: {
            200: TranslationsResponse,
            ...errorResponses({ 400: ['INVALID_LOCALE', 'LOCALE_NOT_ENABLED', 'EMPTY_TRANSLATION'] }),
          },
        },
      },
      async (request) => services.translations.put(actorOf(request), request.body as TranslationsInput),
    );
  };
}
