import { errorResponses } from '../../http/schemas/common.js';
import { sendJson } from '../../http/send-json.js';
import { actorOf } from '../../http/actor.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { Order, OrderIdParams, OrderList, OrderListQuery, OrderStatusBody } from './orders.schemas.js';

const tags = ['orders'];
// Spec 5 rule 7: the Orders API needs a paid plan; the gate runs before validation and 404s.
const config = { planFeature: 'ordersApi' as const };

export function ordersRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.get('/orders', {
      config,
      schema: {
        operationId: 'listOrders',
        tags,
        summary: 'List orders',
        description: [
          "The venue's orders in the list envelope (spec 4.4, decisions 5), filtered by `status` (comma-separated), `type`, `createdFrom` and `createdTo` (inclusive).",
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
            400: [{ message: 'updatedSince must be an ISO 8601 timestamp with a timezone (Z or +hh:mm)', when: 'likewise createdFrom, createdTo and since' }],
          }),
        },
      },
    }, async (request, reply) => sendJson(reply, await services.orders.listJson(request.venue.venueId, request.query)));

    app.get('/orders/:id', {
      config,
      schema: {
        operationId: 'getOrder',
        tags,
        summary: 'Read one order',
        description:
          'One order (spec 2.7) with allowedTransitions, the statuses it can move to next. An unknown id is 404 `Order not found` with no code (spec 4.4). ' +
          'Paid plans only: 403 `PAID_PLAN_REQUIRED` on free, checked before the 404.',
        params: OrderIdParams,
        response: { 200: Order, ...errorResponses({ 404: [{ message: 'Order not found' }] }) },
      },
    }, async (request) => services.orders.get(request.venue.venueId, request.params.id));

    app.patch('/orders/:id/status', {
      config,
      schema: {
        operationId: 'updateOrderStatus',
        tags,
        summary: 'Change the status of an order',
        description: [
          'Moves an order along the status machine (spec 3.1, decisions 5): new -> confirmed -> preparing -> (delivering ->) completed, ' +
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
    }, async (request) =>
      services.orders.changeStatus(actorOf(request), request.params.id, request.body.status));
  };
}
