import { errorResponses, IdempotencyHeaders, NotModified } from '../../http/schemas/common.js';
import { conditionalView, sendCached } from '../../http/etag-reply.js';
import type { App } from '../../http/types.js';
import { SSE_HEADERS, sseResponse } from '../../http/sse.js';
import { clientKey } from '../../http/rate-limit/limiter.js';
import { STREAM_RETRY_MS } from '../../shared/live-stream.js';
import type { GuestOrderStreams } from './guest-order-stream.js';
import type { GuestService } from './guest.service.js';
import { Order, GuestOrderBody } from '../orders/index.js';
import { guestOrderPath } from './guest.paths.js';
import { GuestMenu, GuestMenuQuery, GuestOrder, GuestOrderParams, SlugParams } from './guest.schemas.js';

/** The services these routes call. */
type RouteServices = { guest: GuestService; guestOrderStreams: GuestOrderStreams };

const tags = ['guest'];
// An order's answers carry the guest's contact details or the order itself: never stored by a cache.
const orderConfig = { noStore: true as const };
// The order's token reads it: masked in logs and error paths like a key.
const orderViewConfig = { noStore: true as const, secretParams: ['token'] };

/** Public routes, no key; only the per-IP limits apply. */
export function guestRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.get(
      '/venues/:slug/menu',
      {
        schema: {
          operationId: 'getGuestMenu',
          tags,
          summary: "Read a venue's menu as guests see it",
          description: [
            'The latest published snapshot, filtered for guests: active categories and visible products only, names in `?locale=` ' +
              "(falling back to the venue's default language), `effectivePriceMinor`, option ids for orders, and the live banners and promotions.",
            '- An unknown venue is 404 `VENUE_NOT_FOUND`; one that never published is 404 `MENU_NOT_PUBLISHED`; an inactive subscription is 403 `SUBSCRIPTION_INACTIVE`.',
            '- The response has an ETag; If-None-Match with it answers 304.',
            '',
            'Public: no key, per-IP limits only.',
          ].join('\n'),
          params: SlugParams,
          querystring: GuestMenuQuery,
          response: {
            200: GuestMenu,
            304: NotModified,
            ...errorResponses({ 403: ['SUBSCRIPTION_INACTIVE'], 404: ['VENUE_NOT_FOUND', 'MENU_NOT_PUBLISHED'] }),
          },
        },
      },
      async (request, reply) => {
        const cached = await services.guest.menu(request.params.slug, request.query.locale);
        sendCached(request.headers['if-none-match'], reply, cached);
        return reply;
      },
    );

    app.post(
      '/venues/:slug/orders',
      {
        config: orderConfig,
        schema: {
          operationId: 'placeGuestOrder',
          tags,
          summary: 'Place a guest order',
          description: [
            'Places an order at the venue; it starts in `new`. Products and options are the ids of GET /guest/v1/venues/{slug}/menu.',
            '- Prices come from the latest published snapshot, never from the client: unitPrice = effectivePriceMinor (or a live promotional price) + ' +
              'the options; deliveryFee from the settings for delivery orders.',
            '- 400 `Validation failed` (no code) with one errors[] entry per problem: an unknown or hidden product, an option not of that product, ' +
              "a group's modifier rules broken (minSelections, maxSelections, maxQuantityPerOption, counted in quantities; " +
              '`items[0].modifiers: Burger / Sauces: choose at least 2 (got 1)`), a quantity outside 1..99, delivery without deliveryAddress, an order type ' +
              'disabled in settings or not in the plan, changeFromAmount with a non-cash payment, orders not accepted, a subtotal under minOrderMinor.',
            '- An `Idempotency-Key` repeated with the same body within 24 hours returns the first order with 200; with another body it is 409 ' +
              '`IDEMPOTENCY_KEY_REUSED`.',
            "- The `Location` header names the order's guest view, GET /guest/v1/venues/{slug}/orders/{token}: its last segment is an unguessable " +
              'token that reads this order and nothing else (a replay gives the same one).',
            '- An unknown venue is 404 `VENUE_NOT_FOUND`; one that never published is 404 `MENU_NOT_PUBLISHED`; an inactive subscription is 403 `SUBSCRIPTION_INACTIVE`.',
            '',
            'Public: no key, per-IP limits only.',
          ].join('\n'),
          params: SlugParams,
          headers: IdempotencyHeaders,
          body: GuestOrderBody,
          response: {
            200: Order,
            201: Order,
            ...errorResponses({
              403: ['SUBSCRIPTION_INACTIVE'],
              404: ['VENUE_NOT_FOUND', 'MENU_NOT_PUBLISHED'],
              409: ['IDEMPOTENCY_KEY_REUSED'],
            }),
          },
        },
      },
      async (request, reply) => {
        const { order, token, replayed } = await services.guest.placeOrder(
          request.params.slug,
          request.body,
          request.headers['idempotency-key'],
        );
        if (token !== null) reply.header('location', guestOrderPath(request.params.slug, token));
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.status(replayed ? 200 : 201).send(order);
      },
    );

    app.get(
      '/venues/:slug/orders/:token',
      {
        config: orderViewConfig,
        schema: {
          operationId: 'getGuestOrder',
          tags,
          summary: 'Follow a placed order',
          description: [
            'The order a guest placed, as that guest sees it (docs/guest-page.md): status, items and totals, no contact details. `token` is the last ' +
              "segment of the creation response's `Location`; it reads this one order of this venue only.",
            '- An unknown token, or one of another venue, is 404 `Order not found`; an unknown venue is 404 `VENUE_NOT_FOUND`.',
            '- The response has an ETag that changes with the order; If-None-Match with it answers 304, so polling costs one indexed look-up.',
            '',
            'Public: no key, per-IP limits only.',
          ].join('\n'),
          params: GuestOrderParams,
          response: { 200: GuestOrder, 304: NotModified, ...errorResponses({ 404: ['VENUE_NOT_FOUND', { message: 'Order not found' }] }) },
        },
      },
      async (request, reply) => {
        const found = await services.guest.order(request.params.slug, request.params.token);
        const current = conditionalView(request.headers['if-none-match'], reply, { view: null, etag: found.etag });
        return current === undefined ? reply : found.view();
      },
    );

    app.get(
      '/venues/:slug/orders/:token/stream',
      {
        config: orderViewConfig,
        schema: {
          operationId: 'streamGuestOrder',
          tags,
          summary: 'Follow a placed order live (Server-Sent Events)',
          description: [
            "The guest's order as it changes (docs/guest-page.md): `event: order.updated`, `data:` the order as GET /guest/v1/venues/:slug/orders/:token answers it, " +
              '`id:` its ETag. The first event is the order as it is now, unless `Last-Event-ID` is its current ETag (a reconnect that missed nothing).',
            '- The stream ends once the order is completed or cancelled, and when the server shuts down (reconnect).',
            `- A comment line (\`:\`) every 15 s keeps proxies from closing it; \`retry: ${STREAM_RETRY_MS}\` opens it.`,
            '',
            'Public: no key, per-IP limits only (the stream takes one request of them). At most 500 per venue, 50 per address and 3 per order on one server (429 `STREAM_LIMIT_REACHED`; the page polls instead).',
          ].join('\n'),
          params: GuestOrderParams,
          response: {
            200: { description: 'The event stream (it stays open)', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            ...errorResponses({ 404: ['VENUE_NOT_FOUND', { message: 'Order not found' }], 429: ['STREAM_LIMIT_REACHED'] }),
          },
        },
      },
      async (request, reply) => {
        const { slug, token } = request.params;
        const found = await services.guest.order(slug, token);
        if (request.method === 'HEAD') return reply.headers(SSE_HEADERS).send('');
        const lastEventId = request.headers['last-event-id'];
        await services.guestOrderStreams.open(
          {
            venueId: found.venueId,
            token,
            // The rate limiter's key: an IPv6 client's whole /64 is one address, as it is for its budget.
            address: clientKey(request.ip),
            etag: typeof lastEventId === 'string' ? lastEventId : null,
            read: () => services.guest.order(slug, token),
            log: request.log,
          },
          () => sseResponse(reply),
        );
        return reply;
      },
    );
  };
}
