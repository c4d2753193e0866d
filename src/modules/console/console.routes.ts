import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, errors } from '../../errors.js';
import { contentSecurityPolicy, pageHeaders } from '../../http/html.js';
import { clientKey } from '../../http/rate-limit/limiter.js';
import { shownPath } from '../../http/request-logger.js';
import type { App } from '../../http/types.js';
import type { BoardFeeds } from './board-feed.js';
import { IMMUTABLE, Representation, sendRepresentation } from '../docs/index.js';
import { type ConsoleAuthService, type ConsoleSession, LOCK_MS, SESSION_MAX_MS } from './sessions.service.js';
import { clearCookie, consoleCookieNames, cookie, newCsrfValue, readCookies, sameToken, sessionCsrf, tokenValue } from './csrf.js';
import { isSubscriptionActive } from '../venues/index.js';
import { CONSOLE_CSS, CONSOLE_CSS_PATH, homePage, inactivePage, invitePage, messagePage, signInPage } from './console.page.js';
import { CONSOLE_ASSETS_PATH, loadConsoleAssets } from './console.assets.js';

type RouteServices = { consoleAuth: ConsoleAuthService; boardFeeds: Pick<BoardFeeds, 'recheck'> };

// Pages for people, not API operations: left out of the OpenAPI document, like the guest page.
const hide = true;
// Every console page shows a member's data or a form's secret: no cache keeps it.
const page = { noStore: true as const };
const FORM_BODY_LIMIT = 16 * 1024;

const FormBody = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    password: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
type Form = { csrf?: string; email?: string; password?: string } | undefined;
const InviteParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
const AssetParams = Type.Object({ file: Type.String({ minLength: 1, maxLength: 200 }) });

const SIGN_IN_FAILED = `Email or password is incorrect, or sign-in is locked for ${LOCK_MS / 60_000} minutes after too many attempts.`;
const SIGN_IN_BUSY = 'Sign-in is busy. Try again in a moment.';
const signInLimited = (retryAfterSec: number) =>
  `Too many failed sign-ins from here or for this email. Try again in ${Math.ceil(retryAfterSec / 60)} minute${retryAfterSec > 60 ? 's' : ''}.`;
const FORM_EXPIRED = 'This form has expired. Reload the page and try again.';

/**
 * The venue console (docs/console.md): invite links, sign-in, sign-out and the
 * console's home. Its own scope, for the HTML forms' body parser; the session cookie is the only
 * credential it takes (an API key means nothing here, and /v1 never reads the cookie).
 */
export function consoleRoutes(services: RouteServices, publicBaseUrl: string) {
  const cookies = consoleCookieNames(publicBaseUrl);
  const headers = pageHeaders(contentSecurityPolicy());
  const css = new Representation('text/css; charset=utf-8', Buffer.from(CONSOLE_CSS));

  const html = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).headers(headers).type('text/html; charset=utf-8').send(body);

  /** The double-submit value of the pre-session forms: the cookie's, or a new one set now. */
  const formCsrf = (request: FastifyRequest, reply: FastifyReply): string => {
    const existing = tokenValue(readCookies(request.headers.cookie).get(cookies.csrf));
    if (existing) return existing;
    const value = newCsrfValue();
    reply.header('set-cookie', cookie(cookies, cookies.csrf, value));
    return value;
  };
  const formCsrfHolds = (request: FastifyRequest) =>
    sameToken((request.body as Form)?.csrf, tokenValue(readCookies(request.headers.cookie).get(cookies.csrf)));

  const sessionOf = async (request: FastifyRequest): Promise<{ session: ConsoleSession; token: string } | null> => {
    const token = tokenValue(readCookies(request.headers.cookie).get(cookies.session));
    if (!token) return null;
    const session = await services.consoleAuth.session(token);
    return session ? { session, token } : null;
  };

  return async function routes(parent: App): Promise<void> {
    await parent.register(async (app: App) => {
      // HTML forms post url-encoded fields; this scope alone reads them. A NUL is refused here, as
      // the JSON parser's text check refuses it: PostgreSQL cannot store one.
      app.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
        (_request, body, done) => {
          const fields = Object.fromEntries(new URLSearchParams(body as string));
          if (Object.values(fields).some((v) => v.includes('\u0000'))) done(errors.validation(['body must not contain NUL characters']));
          else done(null, fields);
        },
      );

      app.get('/console', { config: page, schema: { hide } }, async (request, reply) => {
        const signedIn = await sessionOf(request);
        if (!signedIn) return reply.redirect('/console/sign-in', 303);
        // The board's API refuses an inactive subscription: the page says why instead of a board that cannot load.
        if (!isSubscriptionActive(signedIn.session.subscriptionStatus))
          return html(reply, 403, inactivePage(signedIn.session, sessionCsrf(signedIn.token)));
        return html(reply, 200, homePage(signedIn.session, sessionCsrf(signedIn.token), assets));
      });

      app.get('/console/sign-in', { config: page, schema: { hide } }, async (request, reply) => {
        if (await sessionOf(request)) return reply.redirect('/console', 303);
        return html(reply, 200, signInPage(formCsrf(request, reply)));
      });

      app.post('/console/sign-in', { config: page, schema: { hide, body: FormBody } }, async (request, reply) => {
        if (!formCsrfHolds(request)) return html(reply, 403, signInPage(formCsrf(request, reply), FORM_EXPIRED));
        const { email = '', password = '' } = (request.body as Form) ?? {};
        const address = clientKey(request.ip);
        let outcome;
        try {
          outcome = await services.consoleAuth.signIn(email, password, address);
        } catch (err) {
          // A spent budget or no free hashing slot: refused before any hash, the page says when to retry.
          if (!(err instanceof AppError) || (err.statusCode !== 429 && err.statusCode !== 503)) throw err;
          const retryAfter = Number(err.headers?.['retry-after'] ?? 1);
          // The limit that refused it: `busy` (every hashing slot taken) or the bucket (sign-in-address, sign-in-email, sign-in-at-once).
          const reason = err.statusCode === 503 ? 'busy' : (/'([^']+)'/.exec(err.message)?.[1] ?? 'limited');
          request.log.info({ address, reason, retryAfter }, 'console sign-in refused');
          reply.header('retry-after', String(retryAfter));
          return html(
            reply,
            err.statusCode,
            signInPage(formCsrf(request, reply), err.statusCode === 503 || retryAfter <= 1 ? SIGN_IN_BUSY : signInLimited(retryAfter)),
          );
        }
        if (!outcome.ok) {
          // For operators: who, from where, why; never the password, nor an email no member has.
          request.log.warn({ address, member: outcome.memberId, reason: outcome.reason }, 'console sign-in failed');
          if (outcome.lockedUntil)
            request.log.warn({ address, member: outcome.memberId, until: outcome.lockedUntil.toISOString() }, 'console sign-in locked');
          return html(reply, 401, signInPage(formCsrf(request, reply), SIGN_IN_FAILED));
        }
        // The cookie lives no longer than the session may (7 days); idle expiry is the server's.
        reply.header('set-cookie', [
          cookie(cookies, cookies.session, outcome.token, SESSION_MAX_MS / 1000),
          clearCookie(cookies, cookies.csrf),
        ]);
        return reply.redirect('/console', 303);
      });

      app.post('/console/sign-out', { config: page, schema: { hide, body: FormBody } }, async (request, reply) => {
        const signedIn = await sessionOf(request);
        if (!signedIn) return reply.redirect('/console/sign-in', 303);
        if (!sameToken((request.body as Form)?.csrf, sessionCsrf(signedIn.token))) {
          return html(reply, 403, messagePage('Form expired', FORM_EXPIRED, { href: '/console', text: 'Back to the console' }));
        }
        await services.consoleAuth.signOut(signedIn.session);
        // The session's open boards on this server end now (another server's at their next heartbeat).
        services.boardFeeds.recheck(signedIn.session.venueId);
        reply.header('set-cookie', clearCookie(cookies, cookies.session));
        return reply.redirect('/console/sign-in', 303);
      });

      const inviteGone = (reply: FastifyReply) =>
        html(
          reply,
          404,
          messagePage(
            'Invite link not valid',
            'This invite link has been used, has expired or was replaced by a newer one. Ask for a new one.',
          ),
        );

      // The token is the link's secret: masked in every log line (secretParams).
      const invite = { config: { ...page, secretParams: ['token'] } };
      app.get('/console/invite/:token', { ...invite, schema: { hide, params: InviteParams } }, async (request, reply) => {
        if (!(await services.consoleAuth.inviteValid(request.params.token))) return inviteGone(reply);
        return html(reply, 200, invitePage(request.params.token, formCsrf(request, reply)));
      });

      app.post('/console/invite/:token', { ...invite, schema: { hide, params: InviteParams, body: FormBody } }, async (request, reply) => {
        const { token } = request.params;
        if (!formCsrfHolds(request)) return html(reply, 403, invitePage(token, formCsrf(request, reply), FORM_EXPIRED));
        const outcome = await services.consoleAuth.acceptInvite(token, (request.body as Form)?.password ?? '', clientKey(request.ip));
        if (outcome.ok) {
          reply.header('set-cookie', clearCookie(cookies, cookies.csrf));
          return html(
            reply,
            200,
            messagePage('Password set', 'Your password is set. Sign in with your email and the new password.', {
              href: '/console/sign-in',
              text: 'Sign in',
            }),
          );
        }
        if (outcome.reason === 'invalid') return inviteGone(reply);
        return html(reply, 400, invitePage(token, formCsrf(request, reply), outcome.problem));
      });

      // The stylesheet is served from memory and takes no per-IP slot, like the guest page's files.
      app.get(CONSOLE_CSS_PATH, { config: { rateLimit: false }, schema: { hide } }, async (request, reply) =>
        sendRepresentation(request, reply, css, { 'cache-control': 'no-cache' }),
      );

      // The board's script and stylesheet (web/console, built to dist/console-web), read once when the
      // routes are registered (GET /console above links them): hashed names, cached for a year.
      const assets = loadConsoleAssets();
      if (!assets.script)
        app.log.warn('console board assets are not built (npm run build:web): /console serves the board without its script');
      app.get(
        `${CONSOLE_ASSETS_PATH}/:file`,
        { config: { rateLimit: false }, schema: { hide, params: AssetParams } },
        async (request, reply) => {
          const asset = assets.get(request.params.file);
          if (!asset) throw errors.routeNotFound(request.method, shownPath(request.url));
          return sendRepresentation(request, reply, asset, IMMUTABLE);
        },
      );
    });
  };
}
