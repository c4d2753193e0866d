import { Type } from 'typebox';
import { limitVenue, type RateLimiter } from '../../http/rate-limit/limiter.js';
import { SSE_HEADERS, sseResponse } from '../../http/sse.js';
import type { App } from '../../http/types.js';
import { AvailabilityPutBody, AvailabilityPutResult, type AvailabilityService } from '../availability/index.js';
import { Order, OrderIdParams, OrderStatusBody, type OrdersService } from '../orders/index.js';
import {
  StaffCreateBody,
  StaffInvited,
  StaffList,
  StaffListQuery,
  StaffMember,
  StaffParams,
  StaffPatchBody,
  type StaffCall,
  type StaffService,
} from '../staff/index.js';
import { isSubscriptionActive, PLAN_DEFINITIONS } from '../venues/index.js';
import type { BoardFeeds } from './board-feed.js';
import type { BoardService } from './board.service.js';
import { consoleCall, isChange, type ConsoleCall } from './console-auth.js';
import { Board, BoardOrderingResult, BoardStreamQuery, OrderingPatchBody, PauseBody, Service } from './console.schemas.js';
import type { ConsoleAuthService } from './sessions.service.js';

type RouteServices = {
  availability: AvailabilityService;
  board: BoardService;
  boardFeeds: BoardFeeds;
  consoleAuth: ConsoleAuthService;
  orders: OrdersService;
  staff: StaffService;
};

// The board's API is the console page's own, not an API for integrators: left out of the OpenAPI document.
const hide = true;
// Orders, customers and invite links: no cache keeps an answer.
const staff = { noStore: true as const, role: 'staff' as const };
const manager = { noStore: true as const, role: 'manager' as const };
const owner = { noStore: true as const, role: 'owner' as const };
const Empty = Type.Null();

const staffCall = (call: ConsoleCall): StaffCall => ({
  requestId: call.actor.requestId,
  console: { venueId: call.session.venueId, member: { id: call.session.memberId, name: call.session.memberName } },
});

/**
 * The board's API under /console/api (docs/console.md): the session cookie, the venue's
 * subscription, the CSRF header on changes and the route's role (`consoleCall`), then a change's
 * venue rate limit, are checked before the body is validated and the handler runs; each change goes
 * through the service /v1 or the operator API uses, as the member (audit source `console`).
 */
export function consoleApiRoutes(services: RouteServices, limiter: RateLimiter | null = null) {
  return async function routes(app: App): Promise<void> {
    const authorize = consoleCall(services.consoleAuth);
    app.addHook('preValidation', async (request, reply) => {
      await authorize(request);
      // A change takes a slot in the venue's `general` bucket (and the route's own), as its /v1
      // twin does. Reads (the board, its stream, the service and staff lists) take none: a venue's
      // boards reload them, and an open board must not spend the integration's /v1 budget.
      if (limiter && isChange(request)) {
        const { session } = request.console;
        await limitVenue(
          limiter,
          request,
          reply,
          request.routeOptions.config,
          session.venueId,
          PLAN_DEFINITIONS[session.plan].rateLimitTier,
        );
      }
    });

    app.get('/board', { config: staff, schema: { hide, response: { 200: Board } } }, async (request) =>
      services.board.board(request.console.session),
    );

    app.get('/orders/stream', { config: staff, schema: { hide, querystring: BoardStreamQuery } }, async (request, reply) => {
      const { session, token } = request.console;
      const lastEventId = request.headers['last-event-id'];
      const start = services.orders.streamStart(typeof lastEventId === 'string' ? lastEventId : request.query.after, {});
      if (request.method === 'HEAD') return reply.headers(SSE_HEADERS).send('');
      await services.boardFeeds.open(
        {
          venueId: session.venueId,
          after: 'after' in start ? start.after : null,
          // The session as it is now: signed out, expired, its member disabled, removed or reset, or
          // the venue's subscription suspended or canceled.
          stillAllowed: async () => {
            const now = await services.consoleAuth.session(token);
            return now?.memberId === session.memberId && isSubscriptionActive(now.subscriptionStatus);
          },
          log: request.log,
        },
        () => sseResponse(reply),
      );
      return reply;
    });

    app.post(
      '/orders/:id/status',
      { config: staff, schema: { hide, params: OrderIdParams, body: OrderStatusBody, response: { 200: Order } } },
      async (request) => services.orders.changeStatus(request.console.actor, request.params.id, request.body.status),
    );

    app.get('/service', { config: staff, schema: { hide, response: { 200: Service } } }, async (request) =>
      services.board.service(request.console.session.venueId),
    );

    app.put(
      '/availability',
      { config: staff, schema: { hide, body: AvailabilityPutBody, response: { 200: AvailabilityPutResult } } },
      async (request) => services.availability.set(request.console.actor, request.body),
    );

    app.post('/pause', { config: staff, schema: { hide, body: PauseBody, response: { 200: BoardOrderingResult } } }, async (request) =>
      services.board.pause(request.console.actor, request.body.minutes),
    );

    app.patch(
      '/ordering',
      { config: manager, schema: { hide, body: OrderingPatchBody, response: { 200: BoardOrderingResult } } },
      async (request) => services.board.setOrdering(request.console.actor, request.body),
    );

    app.get('/staff', { config: owner, schema: { hide, querystring: StaffListQuery, response: { 200: StaffList } } }, async (request) =>
      services.staff.list(request.console.session.venueId, request.query),
    );

    app.post(
      '/staff',
      { config: owner, schema: { hide, body: StaffCreateBody, response: { 201: StaffInvited } } },
      async (request, reply) =>
        reply.status(201).send(await services.staff.invite(request.console.session.venueId, request.body, staffCall(request.console))),
    );

    app.patch(
      '/staff/:id',
      { config: owner, schema: { hide, params: StaffParams, body: StaffPatchBody, response: { 200: StaffMember } } },
      async (request) => services.staff.update(request.params.id, request.body, staffCall(request.console)),
    );

    app.post(
      '/staff/:id/invite',
      { config: owner, schema: { hide, params: StaffParams, response: { 201: StaffInvited } } },
      async (request, reply) => reply.status(201).send(await services.staff.reinvite(request.params.id, staffCall(request.console))),
    );

    app.delete('/staff/:id', { config: owner, schema: { hide, params: StaffParams, response: { 204: Empty } } }, async (request, reply) => {
      await services.staff.remove(request.params.id, staffCall(request.console));
      return reply.status(204).send(null);
    });
  };
}
