import { Type } from 'typebox';
import { actorOf as actor } from '../../http/actor.js';
import { errorResponses, IdParams, ListQuery } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import { WEBHOOK_ENDPOINTS_PER_VENUE } from '../../limits.js';
import type { WebhookDeliveriesService } from './deliveries.service.js';
import type { WebhooksService } from './webhooks.service.js';
import {
  WebhookCreateBody,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryParams,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookList,
  WebhookPatchBody,
} from './webhooks.schemas.js';

/** The services these routes call. */
type RouteServices = { webhookDeliveries: WebhookDeliveriesService; webhooks: WebhooksService };

const tags = ['webhooks'];
// Webhooks come with the Orders API: paid plans only, refused on free before validation and 404s.
// Endpoint URLs (a receiver's token may ride in one), delivery errors and, on create and rotate,
// the signing secret: no cache keeps any answer.
const config = { planFeature: 'ordersApi' as const, noStore: true as const };
const PAID_ONLY = 'Paid plans only: 403 `PAID_PLAN_REQUIRED` on free.';

/** /v1/webhooks (docs/events.md): the endpoints a venue's events are sent to. */
export function webhooksRoutes(services: RouteServices) {
  const { webhooks, webhookDeliveries } = services;

  return async function routes(app: App): Promise<void> {
    app.get(
      '/webhooks',
      {
        config,
        schema: {
          operationId: 'listWebhookEndpoints',
          tags,
          summary: 'List webhook endpoints',
          description: `The venue's webhook endpoints in the list envelope, oldest first. Signing secrets are never shown here, only \`secretHint\`. ${PAID_ONLY}`,
          querystring: ListQuery,
          response: { 200: WebhookList },
        },
      },
      async (request) => webhooks.list(request.venue.venueId, request.query),
    );

    app.post(
      '/webhooks',
      {
        config,
        schema: {
          operationId: 'createWebhookEndpoint',
          tags,
          summary: 'Register a webhook endpoint',
          description: [
            'Registers an endpoint for the events listed, in the mode of the key (a test key registers a sandbox endpoint, which receives test-mode events only).',
            '- The response carries the signing secret (`whsec_...`, Standard Webhooks), shown only here and on rotate: store it now.',
            '- `url` must be https, carry no credentials and not name a loopback, private, link-local or otherwise reserved address; ' +
              'a name is accepted and its addresses are checked at each delivery.',
            `- A venue has at most ${WEBHOOK_ENDPOINTS_PER_VENUE} endpoints: past that, 400 \`WEBHOOK_ENDPOINT_LIMIT_REACHED\` with details { limit, available, requested }.`,
            '',
            `Audited as \`webhook.create\`. ${PAID_ONLY}`,
          ].join('\n'),
          body: WebhookCreateBody,
          response: { 201: WebhookEndpointWithSecret, ...errorResponses({ 400: ['WEBHOOK_ENDPOINT_LIMIT_REACHED'] }) },
        },
      },
      async (request, reply) => reply.status(201).send(await webhooks.create(actor(request), request.body)),
    );

    app.get(
      '/webhooks/:id',
      {
        config,
        schema: {
          operationId: 'getWebhookEndpoint',
          tags,
          summary: 'Read one webhook endpoint',
          description: `One endpoint, without its signing secret. An unknown id, or another venue's, is 404 \`WEBHOOK_NOT_FOUND\`. ${PAID_ONLY}`,
          params: IdParams,
          response: { 200: WebhookEndpoint, ...errorResponses({ 404: ['WEBHOOK_NOT_FOUND'] }) },
        },
      },
      async (request) => webhooks.get(request.venue.venueId, request.params.id),
    );

    app.patch(
      '/webhooks/:id',
      {
        config,
        schema: {
          operationId: 'updateWebhookEndpoint',
          tags,
          summary: 'Update a webhook endpoint',
          description:
            'Changes the fields sent: an omitted field keeps its value, `description: null` clears it; a new `url` is checked as on create. ' +
            '`enabled: false` stops deliveries; `enabled: true` resumes them and clears `disabledReason` (set when delivery turned the endpoint off). ' +
            `A change is audited as \`webhook.update\` (changes.fields names the fields); a PATCH that changes nothing is not. ${PAID_ONLY}`,
          params: IdParams,
          body: WebhookPatchBody,
          response: { 200: WebhookEndpoint, ...errorResponses({ 404: ['WEBHOOK_NOT_FOUND'] }) },
        },
      },
      async (request) => webhooks.patch(actor(request), request.params.id, request.body),
    );

    app.delete(
      '/webhooks/:id',
      {
        config,
        schema: {
          operationId: 'deleteWebhookEndpoint',
          tags,
          summary: 'Delete a webhook endpoint',
          description: `Deletes an endpoint; nothing more is sent to it. Audited as \`webhook.delete\`. ${PAID_ONLY}`,
          params: IdParams,
          response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses({ 404: ['WEBHOOK_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => {
        await webhooks.delete(actor(request), request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        config,
        schema: {
          operationId: 'rotateWebhookSecret',
          tags,
          summary: "Rotate a webhook endpoint's signing secret",
          description:
            'Gives the endpoint a new signing secret, shown in this response only. For 24 hours deliveries are signed with both the new and the ' +
            'replaced secret (`previousSecretExpiresAt`), so the receiver can switch without rejecting any; a secret replaced before that stops at once. ' +
            `Audited as \`webhook.update\` with changes.fields \`["secret"]\`. ${PAID_ONLY}`,
          params: IdParams,
          response: { 200: WebhookEndpointWithSecret, ...errorResponses({ 404: ['WEBHOOK_NOT_FOUND'] }) },
        },
      },
      async (request) => webhooks.rotateSecret(actor(request), request.params.id),
    );

    app.post(
      '/webhooks/:id/test',
      {
        config,
        schema: {
          operationId: 'testWebhookEndpoint',
          tags,
          summary: 'Send a ping to a webhook endpoint',
          description:
            'Queues a `ping` event (`data: { endpointId }`) for this endpoint alone, whatever events it subscribes to, signed and retried like any ' +
            'other, and answers 202 with the delivery; its outcome shows in the delivery log. A disabled endpoint gets it once re-enabled. ' +
            `Audited as \`webhook.test\`. ${PAID_ONLY}`,
          params: IdParams,
          response: { 202: WebhookDelivery, ...errorResponses({ 404: ['WEBHOOK_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => reply.status(202).send(await webhookDeliveries.test(actor(request), request.params.id)),
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config,
        schema: {
          operationId: 'listWebhookDeliveries',
          tags,
          summary: "A webhook endpoint's delivery log",
          description:
            'Every delivery to this endpoint, newest first, in the list envelope: the event, its status (`pending`, `delivered`, `failed`), ' +
            `the last response code or error, when it is tried next, and every attempt with its duration. ${PAID_ONLY}`,
          params: IdParams,
          querystring: ListQuery,
          response: { 200: WebhookDeliveryList, ...errorResponses({ 404: ['WEBHOOK_NOT_FOUND'] }) },
        },
      },
      async (request) => webhookDeliveries.list(request.venue.venueId, request.params.id, request.query),
    );

    app.post(
      '/webhooks/:id/deliveries/:deliveryId/retry',
      {
        config,
        schema: {
          operationId: 'retryWebhookDelivery',
          tags,
          summary: 'Send a delivery again',
          description:
            "Queues the delivery's event for this endpoint again, as a new delivery at the end of its queue (the event keeps its id, so the " +
            `receiver can deduplicate), and answers 202 with it. Audited as \`webhook.retry\`. ${PAID_ONLY}`,
          params: WebhookDeliveryParams,
          response: { 202: WebhookDelivery, ...errorResponses({ 404: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND'] }) },
        },
      },
      async (request, reply) =>
        reply.status(202).send(await webhookDeliveries.retry(actor(request), request.params.id, request.params.deliveryId)),
    );
  };
}
