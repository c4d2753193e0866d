import { sendJson } from '../../http/send-json.js';
import type { App } from '../../http/types.js';
import type { ReferenceService } from './reference.service.js';
import { serveCached } from '../../http/serve-cached.js';
import { Reference } from './reference.schemas.js';

/** The services these routes call. */
type RouteServices = { reference: ReferenceService };

export function referenceRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.get(
      '/reference',
      {
        schema: {
          operationId: 'getReference',
          tags: ['reference'],
          summary: 'Read the reference catalogue and plan limits',
          description:
            'Static catalogue data (units, badge colours, modifier types, order statuses and transitions, card styles, currencies, languages, ' +
            'request and rate limits, the resources index) and the venue plan: its limits, usage and features. ' +
            'A plan change shows on the next call. Available on every plan with an active subscription.',
          response: { 200: Reference },
        },
      },
      (request, reply) =>
        serveCached(
          () => services.reference.peekJson(request.venue),
          () => services.reference.json(request.venue),
          (json) => {
            sendJson(reply, json);
          },
        ),
    );
  };
}
