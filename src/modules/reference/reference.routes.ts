import { errorResponses } from '../../http/schemas/common.js';
import { sendJson } from '../../http/send-json.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { Reference } from './reference.schemas.js';

export function referenceRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.get('/reference', {
      schema: {
        tags: ['reference'],
        security: [{ apiKey: [] }],
        summary: 'Reference catalog and the venue plan limits (spec 2.9)',
        response: { 200: Reference, ...errorResponses(401, 403, 429) },
      },
    }, async (request, reply) =>
      sendJson(reply, await services.reference.json(request.venue)));
  };
}
