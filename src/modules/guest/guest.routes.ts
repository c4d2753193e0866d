import { errorResponses, IdempotencyHeaders, NotModified } from '../../http/schemas/common.js';
import { sendCached } from '../../http/etag.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { Order } from '../orders/orders.schemas.js';
import { GuestMenu, GuestMenuQuery, GuestOrderBody, SlugParams } from './guest.schemas.js';

const tags = ['guest'];

/** Public routes, no key (decisions section 2); only the per-IP limits apply. */
export function guestRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.get('/venues/:slug/menu', {
      schema: {
        tags,
        summary: 'The latest published menu as guests see it; ?locale= with fallback to the venue default',
        params: SlugParams,
        querystring: GuestMenuQuery,
        response: { 200: GuestMenu, 304: NotModified, ...errorResponses(403, 404, 429) },
      },
    }, async (request, reply) => {
      const cached = await services.guest.menu(request.params.slug, request.query.locale);
      sendCached(request.headers['if-none-match'], reply, cached);
      return reply;
    });

    app.post('/venues/:slug/orders', {
      schema: {
        tags,
        summary: 'Place an order; prices come from the published menu. Idempotency-Key replays return the first order (200)',
        params: SlugParams,
        headers: IdempotencyHeaders,
        body: GuestOrderBody,
        response: { 200: Order, 201: Order, ...errorResponses(400, 403, 404, 409, 429) },
      },
    }, async (request, reply) => {
      const { order, replayed } = await services.guest.placeOrder(
        request.params.slug,
        request.body,
        request.headers['idempotency-key'],
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(replayed ? 200 : 201).send(order);
    });
  };
}
