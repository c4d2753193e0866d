import { errorResponses } from '../../http/schemas/common.js';
import { sendJson } from '../../http/send-json.js';
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
        tags,
        summary: 'List orders; poll with updatedSince (oldest change first) and drop ids already seen',
        querystring: OrderListQuery,
        response: { 200: OrderList, ...errorResponses(400, 401, 403, 429) },
      },
    }, async (request, reply) => sendJson(reply, await services.orders.listJson(request.venue.venueId, request.query)));

    app.get('/orders/:id', {
      config,
      schema: { tags, params: OrderIdParams, response: { 200: Order, ...errorResponses(401, 403, 404, 429) } },
    }, async (request) => services.orders.get(request.venue.venueId, request.params.id));

    app.patch('/orders/:id/status', {
      config,
      schema: {
        tags,
        summary: 'Move an order along the status machine (spec 3.1)',
        params: OrderIdParams,
        body: OrderStatusBody,
        response: { 200: Order, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    }, async (request) =>
      services.orders.changeStatus({ venue: request.venue, requestId: request.id }, request.params.id, request.body.status));
  };
}
