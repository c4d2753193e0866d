import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { ApiKeysService } from './api-keys.service.js';
import type { VenuesService } from './venues.service.js';
import {
  ApiKeyCreateBody,
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyParams,
  Venue,
  VenueCreateBody,
  VenueParams,
  VenuePatchBody,
} from './venues.schemas.js';

/** The services these routes call. */
type RouteServices = { apiKeys: ApiKeysService; venues: VenuesService };

const tags = ['operator'];
// A response that shows a key: no cache may store it.
const showsKey = { noStore: true as const };

/** The operator API, mounted under /admin/v1. */
export function adminRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.post(
      '/venues',
      {
        schema: {
          operationId: 'createVenue',
          tags,
          summary: 'Create a venue',
          description:
            'Creates a venue with its sandbox twin (slug `<slug>-sandbox`), which test keys act on. `plan` defaults to free, ' +
            '`subscriptionStatus` to active, `defaultLanguage` to en; the slug is derived from the name when omitted. A taken slug is 409 `SLUG_ALREADY_EXISTS`.',
          body: VenueCreateBody,
          response: { 201: Venue, ...errorResponses({ 409: ['SLUG_ALREADY_EXISTS'] }) },
        },
      },
      async (request, reply) => reply.status(201).send(await services.venues.create(request.body)),
    );

    app.get(
      '/venues/:id',
      {
        schema: {
          operationId: 'getVenue',
          tags,
          summary: 'Read a venue',
          description: 'One venue with its plan, subscription status and sandbox twin.',
          params: VenueParams,
          response: { 200: Venue, ...errorResponses({ 404: ['VENUE_NOT_FOUND'] }) },
        },
      },
      async (request) => services.venues.get(request.params.id),
    );

    app.patch(
      '/venues/:id',
      {
        schema: {
          operationId: 'updateVenue',
          tags,
          summary: 'Update a venue',
          description:
            "Changes a venue's name, plan or subscription status; the sandbox follows. A plan change shows in GET /v1/reference on the next call; " +
            'a suspended or canceled subscription makes every /v1 call 403 `SUBSCRIPTION_INACTIVE`.',
          params: VenueParams,
          body: VenuePatchBody,
          response: { 200: Venue, ...errorResponses({ 404: ['VENUE_NOT_FOUND'] }) },
        },
      },
      async (request) => services.venues.update(request.params.id, request.body),
    );

    app.post(
      '/venues/:id/api-keys',
      {
        config: showsKey,
        schema: {
          operationId: 'createApiKey',
          tags,
          summary: 'Issue an API key',
          description:
            'Issues a live key (`carta_live_...`) or a test key (`carta_test_...`, acting on the sandbox), optionally read-only (writes are then ' +
            '403 `READ_ONLY_KEY`). The key is shown only in this response; only a hash is stored.',
          params: VenueParams,
          body: ApiKeyCreateBody,
          response: { 201: ApiKeyCreated, ...errorResponses({ 404: ['VENUE_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => reply.status(201).send(await services.apiKeys.create(request.params.id, request.body)),
    );

    app.get(
      '/venues/:id/api-keys',
      {
        schema: {
          operationId: 'listApiKeys',
          tags,
          summary: "List a venue's API keys",
          description: "A venue's keys, revoked ones included, each with the last 4 characters of the key (`hint`), never the key.",
          params: VenueParams,
          response: { 200: ApiKeyList, ...errorResponses({ 404: ['VENUE_NOT_FOUND'] }) },
        },
      },
      async (request) => services.apiKeys.list(request.params.id),
    );

    app.post(
      '/api-keys/:id/regenerate',
      {
        config: showsKey,
        schema: {
          operationId: 'regenerateApiKey',
          tags,
          summary: 'Regenerate an API key',
          description:
            'Replaces the key with a new one of the same mode and flags, shown only in this response; the old key is invalid at once.',
          params: ApiKeyParams,
          response: { 201: ApiKeyCreated, ...errorResponses({ 404: ['API_KEY_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => reply.status(201).send(await services.apiKeys.regenerate(request.params.id)),
    );

    app.delete(
      '/api-keys/:id',
      {
        schema: {
          operationId: 'revokeApiKey',
          tags,
          summary: 'Revoke an API key',
          description: 'Revokes a key: it is invalid at once.',
          params: ApiKeyParams,
          response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses({ 404: ['API_KEY_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => {
        await services.apiKeys.revoke(request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
