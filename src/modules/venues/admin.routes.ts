import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
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

const tags = ['operator'];
const security = [{ adminToken: [] }];

/** The operator API of decisions section 1, mounted under /admin/v1. */
export function adminRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.post('/venues', {
      schema: { tags, security, body: VenueCreateBody, response: { 201: Venue, ...errorResponses(400, 401, 409) } },
    }, async (request, reply) => reply.status(201).send(await services.venues.create(request.body)));

    app.get('/venues/:id', {
      schema: { tags, security, params: VenueParams, response: { 200: Venue, ...errorResponses(401, 404) } },
    }, async (request) => services.venues.get(request.params.id));

    app.patch('/venues/:id', {
      schema: { tags, security, params: VenueParams, body: VenuePatchBody, response: { 200: Venue, ...errorResponses(400, 401, 404) } },
    }, async (request) => services.venues.update(request.params.id, request.body));

    app.post('/venues/:id/api-keys', {
      schema: { tags, security, params: VenueParams, body: ApiKeyCreateBody, response: { 201: ApiKeyCreated, ...errorResponses(400, 401, 404) } },
    }, async (request, reply) => reply.status(201).send(await services.apiKeys.create(request.params.id, request.body)));

    app.get('/venues/:id/api-keys', {
      schema: { tags, security, params: VenueParams, response: { 200: ApiKeyList, ...errorResponses(401, 404) } },
    }, async (request) => services.apiKeys.list(request.params.id));

    app.post('/api-keys/:id/regenerate', {
      schema: { tags, security, params: ApiKeyParams, response: { 201: ApiKeyCreated, ...errorResponses(401, 404) } },
    }, async (request, reply) => reply.status(201).send(await services.apiKeys.regenerate(request.params.id)));

    app.delete('/api-keys/:id', {
      schema: { tags, security, params: ApiKeyParams, response: { 204: Type.Null(), ...errorResponses(401, 404) } },
    }, async (request, reply) => {
      await services.apiKeys.revoke(request.params.id);
      return reply.status(204).send(null);
    });
  };
}
