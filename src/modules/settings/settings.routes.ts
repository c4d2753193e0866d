import { errorResponses, NotModified } from '../../http/schemas/common.js';
import { actorOf } from '../../http/actor.js';
import type { App } from '../../http/types.js';
import { isNotModified, sendNotModified } from '../../http/etag-reply.js';
import type { SettingsService } from './settings.service.js';
import { Settings, SettingsPatchBody } from './settings.schemas.js';

/** The services these routes call. */
type RouteServices = { settings: SettingsService };

const tags = ['settings'];

export function settingsRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.get(
      '/settings',
      {
        // The venue's contact details and configuration: no cache stores it. The ETag stays: PATCH
        // takes it in If-Match, and a client that keeps its own copy may still send If-None-Match.
        config: { noStore: true },
        schema: {
          operationId: 'getSettings',
          tags,
          summary: 'Read the venue settings',
          description:
            "The venue's settings: name, languages, card style, timezone, order configuration and logo. " +
            'The response has the ETag that PATCH takes in If-Match; If-None-Match with it answers 304.',
          response: { 200: Settings, 304: NotModified },
        },
      },
      async (request, reply) => {
        const { settings, etag } = await services.settings.get(request.venue.venueId);
        reply.header('etag', etag);
        if (isNotModified(request.headers['if-none-match'], etag)) {
          sendNotModified(reply);
          return reply;
        }
        return settings;
      },
    );

    app.patch(
      '/settings',
      {
        schema: {
          operationId: 'updateSettings',
          tags,
          summary: 'Update the venue settings',
          description: [
            'Changes the fields sent; every field is optional.',
            '- `enabledLanguages` come from the reference languages; the default language is always enabled. Enable a locale here before syncing translations in it.',
            '- `timezone` is an IANA zone (e.g. Europe/Kyiv); banner and promotion schedules are read in it.',
            '- `orderConfig` fields other than `pausedUntil`, `prepTimeMinutes` and `scheduledOrders` need a plan with delivery: 403 `DELIVERY_NOT_AVAILABLE` otherwise.',
            '- `openingHours` (null: always open) and the pause and scheduled orders; nested objects merge field by field.',
            '- If-Match with the ETag of a read makes a concurrent change fail with 412 `STALE_RESOURCE`.',
            '',
            'Audited as `settings.update` (the names of the changed fields).',
          ].join('\n'),
          body: SettingsPatchBody,
          response: { 200: Settings, ...errorResponses({ 403: ['DELIVERY_NOT_AVAILABLE'], 412: ['STALE_RESOURCE'] }) },
        },
      },
      async (request, reply) => {
        const { settings, etag } = await services.settings.update(actorOf(request), request.body, request.headers['if-match']);
        reply.header('etag', etag);
        return settings;
      },
    );
  };
}
