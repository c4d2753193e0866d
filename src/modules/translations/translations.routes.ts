import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { TranslationsBody, TranslationsResponse, type TranslationsInput } from './translations.schemas.js';

export function translationsRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.put('/translations', {
      config: { buckets: ['heavy'] },
      schema: {
        tags: ['translations'],
        summary: 'Bulk translation write, all or nothing (decisions section 6)',
        body: TranslationsBody,
        response: { 200: TranslationsResponse, ...errorResponses(400, 401, 403, 429) },
      },
    }, async (request) => services.translations.put({ venue: request.venue, requestId: request.id }, request.body as TranslationsInput));
  };
}
