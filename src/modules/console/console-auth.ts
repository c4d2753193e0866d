// Who calls the board's API (docs/console.md): the session cookie, the CSRF header on every
// change, and the role each route needs, all checked here on the server before a handler runs.
import type { FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import type { Actor } from '../audit/index.js';
import type { STAFF_ROLES } from '../staff/index.js';
import type { ConsoleAuthService, ConsoleSession } from './sessions.service.js';
import { PLAN_DEFINITIONS, requireActiveSubscription } from '../venues/index.js';
import { readCookies, sameToken, sessionCsrf, tokenValue } from './csrf.js';

/** A signed-in call: the session, its token (the board's stream re-checks it) and the actor its changes are made as. */
export interface ConsoleCall {
  session: ConsoleSession;
  token: string;
  actor: Actor;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role a console API route needs (staff < manager < owner). */
    role?: StaffRole;
  }
  interface FastifyRequest {
    /** The signed-in member of a console API call; set by `consoleCall`. */
    console: ConsoleCall;
  }
}

type StaffRole = (typeof STAFF_ROLES)[number];

export const CSRF_HEADER = 'x-csrf-token';
const RANK: Record<StaffRole, number> = { staff: 0, manager: 1, owner: 2 };
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The actor a member's changes are made as: the venue's rules, audited with source `console` and the member named. */
export function consoleActor(session: ConsoleSession, requestId: string): Actor {
  return {
    venue: { venueId: session.venueId, planDefinition: PLAN_DEFINITIONS[session.plan], currency: session.currency, mode: 'live' },
    requestId,
    member: { id: session.memberId, name: session.memberName },
  };
}

/**
 * Who calls, checked first on every console API route, in the order of /v1's gate:
 * 401 SIGNED_OUT without a live session; 403 SUBSCRIPTION_INACTIVE while the venue's subscription
 * is suspended or canceled (the rule /v1 applies, reads included); 403 CSRF_TOKEN_INVALID on a
 * change without the session's token in X-CSRF-Token; 403 ROLE_REQUIRED below the route's role.
 * An Authorization header means nothing here.
 */
export function consoleCall(auth: Pick<ConsoleAuthService, 'session' | 'sessionCookie'>) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = tokenValue(readCookies(request.headers.cookie).get(auth.sessionCookie));
    const session = token ? await auth.session(token) : null;
    if (!token || !session) throw errors.signedOut();
    requireActiveSubscription(session.subscriptionStatus);
    if (isChange(request) && !sameToken(request.headers[CSRF_HEADER], sessionCsrf(token))) throw errors.csrfInvalid();
    const needed = request.routeOptions.config.role ?? 'owner';
    if (RANK[session.role] < RANK[needed]) throw errors.roleRequired(needed);
    request.console = { session, token, actor: consoleActor(session, request.id) };
  };
}

/** Whether the call changes something (and so needs the CSRF token and a rate-limit slot). */
export function isChange(request: Pick<FastifyRequest, 'method'>): boolean {
  return !SAFE_METHODS.has(request.method);
}
