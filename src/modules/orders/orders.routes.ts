import { errorResponses } from '../../http/schemas/common.js';
import { sendJson } from '../../http/send-json.js';
import { actorOf } from '../../http/actor.js';
import type { App } from '../../http/types.js';
import type { OrderStreams } from './order-stream.js';
import type { OrdersService } from './orders.service.js';
import type { ApiKeysService } from '../venues/index.js';
import { serveCached } from '../../http/serve-cached.js';
import { SSE_HEADERS, sseResponse } from '../../http/sse.js';
import {
  Order,
  OrderIdParams,
  OrderList,
  OrderListQuery,
  OrderStatusBody,
  OrderStreamHeaders,
  OrderStreamQuery,
} from './orders.schemas.js';
import { STREAM_RETRY_MS } from '../../shared/live-stream.js';

/** The services these routes call. */
type RouteServices = { apiKeys: ApiKeysService; orderStreams: OrderStreams; orders: OrdersService };

const tags = ['orders'];
// The Orders API needs a paid plan; the gate runs before validation and 404s.
// Orders carry customers' contact details: no cache stores an answer (Cache-Control: no-store).
const config = { planFeature: 'ordersApi' as const, noStore: true as const };

export function ordersRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.get(
      '/orders',
      {
        config,
        schema: {
          operationId: 'listOrders',
          tags,
          summary: 'List orders',
          description: [
            "The venue's orders in the list envelope, filtered by `status` (comma-separated), `type`, `createdFrom` and `createdTo` (inclusive).",
            '- Without `updatedSince`: newest first (createdAt, then id, descending).',
            '- With `updatedSince` (alias `since`; inclusive): oldest change first (updatedAt, then id, ascending). To poll without losing an order, ' +
              "take the last item's updatedAt as the next cursor and drop the (id, updatedAt) pairs already seen.",
            '- Timestamps need a timezone (`Z` or `+hh:mm`): a naive one is a 400 whose message names the parameter (no code).',
            '',
            'Paid plans only: 403 `PAID_PLAN_REQUIRED` on free.',
          ].join('\n'),
          querystring: OrderListQuery,
          response: {
            200: OrderList,
            ...errorResponses({
              400: [
                {
                  message: 'updatedSince must be an ISO 8601 timestamp with a timezone (Z or +hh:mm)',
                  when: 'likewise createdFrom, createdTo and since',
                },
              ],
            }),
          },
        },
      },
      (request, reply) =>
        serveCached(
          () => services.orders.peekListJson(request.venue.venueId, request.url),
          () => services.orders.listJson(request.venue.venueId, request.query, request.url),
          (json) => {
            sendJson(reply, json);
          },
        ),
    );

    app.get(
      '/orders/stream',
      {
        config,
        schema: {
          operationId: 'streamOrders',
          tags,
          summary: 'Follow order changes live (Server-Sent Events)',
          description: [
            "Every change of the venue's orders as it commits, oldest first, as Server-Sent Events (`text/event-stream`; docs/events.md).",
            '- Each event is `id: <updatedAt>`, `event: order.created` or `order.updated`, and `data:` the order as GET /v1/orders/:id answers it. ' +
              "A venue's order writes each have their own updatedAt, in commit order, so the id is a cursor.",
            '- A reconnect sends `Last-Event-ID` (EventSource does so itself) and resumes right after that event: nothing is missed, nothing repeated. ' +
              'A first connection starts now, or at `updatedSince` (inclusive, like polling) to catch up first.',
            '- An order that changes twice before it is sent is sent once, as it is then (as polling sees it); webhooks carry each status change.',
            `- A comment line (\`:\`) every 15 s keeps proxies from closing an idle stream; \`retry: ${STREAM_RETRY_MS}\` opens the stream.`,
            '- A reader that leaves what was sent unread for 30 s is disconnected. The stream ends when the key is revoked or the server shuts down: reconnect.',
            '',
            'At most 10 streams per venue on one server (429 `STREAM_LIMIT_REACHED`). Paid plans only: 403 `PAID_PLAN_REQUIRED` on free.',
          ].join('\n'),
          querystring: OrderStreamQuery,
          headers: OrderStreamHeaders,
          response: {
            200: { description: 'The event stream (it stays open)', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            ...errorResponses({
              400: [
                {
                  message: 'Last-Event-ID must be an ISO 8601 timestamp with a timezone (Z or +hh:mm)',
                  when: 'likewise updatedSince and since',
                },
              ],
              429: ['STREAM_LIMIT_REACHED'],
            }),
          },
        },
      },
      async (request, reply) => {
        const { venueId } = request.venue;
        const start = services.orders.streamStart(request.headers['last-event-id'], request.query);
        if (request.method === 'HEAD') return reply.headers(SSE_HEADERS).send('');
        const { authorization } = request.headers;
        await services.orderStreams.open(
          {
            venueId,
            start,
            // The key as it is now: revoked or regenerated (401), an inactive subscription (403), or
            // its venue's plan without the Orders API ends the stream. Memoised until the next write.
            stillAllowed: async () => {
              const venue = await services.apiKeys.authenticate(authorization);
              return venue.venueId === venueId && venue.planDefinition.features.ordersApi;
            },
            log: request.log,
          },
          () => sseResponse(reply),
        );
        return reply;
      },
    );

    app.get(
      '/orders/:id',
      {
        config,
        schema: {
          operationId: 'getOrder',
          tags,
          summary: 'Read one order',
          description:
            'One order with allowedTransitions, the statuses it can move to next. An unknown id is 404 `Order not found` with no code. ' +
            'Paid plans only: 403 `PAID_PLAN_REQUIRED` on free, checked before the 404.',
          params: OrderIdParams,
          response: { 200: Order, ...errorResponses({ 404: [{ message: 'Order not found' }] }) },
        },
      },
      async (request) => services.orders.get(request.venue.venueId, request.params.id),
    );

    app.patch(
      '/orders/:id/status',
      {
        config,
        schema: {
          operationId: 'updateOrderStatus',
          tags,
          summary: 'Change the status of an order',
          description: [
            'Moves an order along the status machine: new -> confirmed -> preparing -> (delivering ->) completed, ' +
              'and to cancelled from any status but a terminal one.',
            '- The status the order already has succeeds with 200 and changes nothing.',
            '- Any other jump is 422 `INVALID_STATUS_TRANSITION`; the message names both statuses and the allowed ones, and completed and cancelled allow none.',
            '- A real transition bumps updatedAt (confirmedAt and completedAt are set the first time) and is audited as `order.status_update`.',
            '',
            'Paid plans only: 403 `PAID_PLAN_REQUIRED` on free, checked before the 404 `Order not found` (no code).',
          ].join('\n'),
          params: OrderIdParams,
          body: OrderStatusBody,
          response: { 200: Order, ...errorResponses({ 404: [{ message: 'Order not found' }], 422: ['INVALID_STATUS_TRANSITION'] }) },
        },
      },
      async (request) => services.orders.changeStatus(actorOf(request), request.params.id, request.body.status),
    );
  };
}
