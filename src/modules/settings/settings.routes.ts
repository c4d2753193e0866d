import { errorResponses, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import { isNotModified, sendNotModified } from '../../http/etag.js';
import type { Services } from '../../services.js';
import { Settings, SettingsPatchBody } from './settings.schemas.js';

export function settingsRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.get('/settings', {
      schema: { tags: ['settings'], response: { 200: Settings, 304: NotModified, ...errorResponses(401, 403, 429) } },
    }, async (request, reply) => {
      const { settings, etag } = await services.settings.get(request.venue.venueId);
      reply.header('etag', etag);
      if (isNotModified(request.headers['if-none-match'], etag)) {
        sendNotModified(reply);
        return reply;
      }
      return settings;
    });

    app.patch('/settings', {
      schema: {
        tags: ['settings'],
        summary: 'Change venue settings; If-Match with the ETag makes a concurrent change fail with 412',
        body: SettingsPatchBody,
        response: { 200: Settings, ...errorResponses(400, 401, 403, 412, 429) },
      },
    }, async (request, reply) => {
      const { settings, etag } = await services.settings.update(
        { venue: request.venue, requestId: request.id },
        request.body,
        request.headers['if-match'],
      );
      reply.header('etag', etag);
      return settings;
    });
  };
}
