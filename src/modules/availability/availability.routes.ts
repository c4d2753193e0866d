import { actorOf } from '../../http/actor.js';
import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { AvailabilityService } from './availability.service.js';
import { AvailabilityList, AvailabilityPutBody, AvailabilityPutResult } from './availability.schemas.js';

/** The services these routes call. */
type RouteServices = { availability: AvailabilityService };

const tags = ['availability'];

/** /v1/availability: sold-out marks, live, without a publish. */
export function availabilityRoutes(services: RouteServices) {
  const { availability } = services;

  return async function routes(app: App): Promise<void> {
    app.get(
      '/availability',
      {
        schema: {
          operationId: 'listAvailability',
          tags,
          summary: 'List what is sold out now',
          description:
            'The products and ingredients marked sold out now, by name, each with `until` (null: until marked available). ' +
            'A mark whose `until` has passed is not listed: it ended by itself.',
          response: { 200: AvailabilityList },
        },
      },
      async (request) => availability.list(request.venue.venueId),
    );

    app.put(
      '/availability',
      {
        schema: {
          operationId: 'setAvailability',
          tags,
          summary: 'Mark products and ingredients sold out, or available again',
          description: [
            'Takes effect at once on the menu reads, the guest menu and order placement; needs no publish and survives publishes.',
            '- `available: false` marks the item sold out until `until` (ISO 8601 with an offset, in the future, at most 30 days ahead), or until marked available when `until` is omitted or null.',
            '- `available: true` clears the mark (no mark: nothing happens).',
            '- A sold-out ingredient makes unavailable every product whose composition includes it and every `add` option on it; a product whose required choice has no option left is unavailable.',
            '- `ref` is an externalId, else an opaque id. At most 500 entries per section.',
            '- All or nothing: an unknown ref is a 400 naming the entry (`products[2].ref "p9" not found`), and nothing is written.',
            '',
            '`updated` counts the entries whose state changed. Audited as `availability.update`; webhook event `menu.availability_changed` when something changed.',
          ].join('\n'),
          body: AvailabilityPutBody,
          response: {
            200: AvailabilityPutResult,
            ...errorResponses({
              400: [{ message: 'Validation failed', when: 'an unknown ref, or an until in the past or more than 30 days ahead' }],
            }),
          },
        },
      },
      async (request) => availability.set(actorOf(request), request.body),
    );
  };
}
