import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.js';
import { AppError, errors } from '../../errors.js';
import { contentSecurityPolicy, pageHeaders } from '../../http/html.js';
import { shownPath } from '../../http/request-logger.js';
import type { App } from '../../http/types.js';
import { type GuestService, GuestOrderParams, SlugParams } from '../guest/index.js';
import { type TablesService, TokenParams } from '../merch/index.js';
import { IMMUTABLE, Representation, sendRepresentation } from '../docs/index.js';
import { GUEST_ASSETS_PATH, loadGuestAssets, type GuestAssets } from './page.assets.js';
import { renderMessagePage } from './page.render.js';
import { GuestPageService, type LanguageHints, type RenderedPage } from './page.service.js';
import { uiStrings, type UiStrings } from './shared/strings.js';

/** The services these routes call (the availability service for its clock). */
type RouteServices = { guest: GuestService; tables: TablesService; availability: { clock: () => number } };

const PageQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 35 })) });
const FileParams = Type.Object({ file: Type.String({ maxLength: 200 }) });

// Pages and files, not API operations: left out of the OpenAPI document.
const hide = true;

/** What a page says for each way a link can lead nowhere (the JSON routes' codes, as words). */
function messageFor(error: AppError, strings: UiStrings): { status: number; message: string } | null {
  switch (error.code) {
    case 'TABLE_NOT_FOUND':
      return { status: 404, message: strings.tableNotFound };
    case 'VENUE_NOT_FOUND':
      return { status: 404, message: strings.venueNotFound };
    case 'MENU_NOT_PUBLISHED':
      return { status: 404, message: strings.notPublished };
    case 'SUBSCRIPTION_INACTIVE':
      return { status: 403, message: strings.unavailable };
    default:
      // 404 `Order not found` carries no code (like GET /v1/orders/:id).
      return error.statusCode === 404 && error.code === undefined ? { status: 404, message: strings.orderNotFound } : null;
  }
}

/**
 * The guest page (docs/guest-page.md): GET /t/:token (a table's QR code), GET /m/:slug
 * (the venue's menu link), GET /m/:slug/orders/:token (an order's status) and their assets.
 * Public, per-IP limits like the guest API.
 */
export function guestPageRoutes(services: RouteServices, config: Config, assets: GuestAssets = loadGuestAssets()) {
  return async function routes(app: App): Promise<void> {
    if (!assets.script) app.log.warn('guest page assets are not built (npm run build): pages are served without script and styles');
    const pages = new GuestPageService(services.guest, services.tables, assets, services.availability.clock);
    const mediaOrigin = new URL(config.mediaPublicUrl).origin;
    const headers = {
      ...pageHeaders(contentSecurityPolicy([mediaOrigin])),
      // The page names versioned assets and follows the menu: revalidate (its ETag makes that a 304).
      'cache-control': 'no-cache',
      vary: 'accept-encoding, accept-language',
    };
    // Also called by the error handler, where the query may have failed validation: read defensively.
    const hintsOf = (request: FastifyRequest): LanguageHints => {
      const lang = (request.query as { lang?: unknown } | undefined)?.lang;
      return { lang: typeof lang === 'string' ? lang : undefined, acceptLanguage: request.headers['accept-language'] };
    };
    const send = (request: FastifyRequest, reply: FastifyReply, page: RenderedPage, cacheControl = headers['cache-control']) =>
      sendRepresentation(request, reply, page.representation, {
        ...headers,
        'cache-control': cacheControl,
        'content-language': page.locale,
      });

    // A link that leads nowhere is a page in the guest's language, not JSON; anything else (a rate
    // limit, a bad query) goes on to the API's error handler. A route option, not a scope of its
    // own: every scope is another Request class on the hot paths (app.ts).
    const errorHandler = async (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const locale = GuestPageService.messageLocale(hintsOf(request));
      const strings = uiStrings(locale);
      const message = error instanceof AppError ? messageFor(error, strings) : null;
      if (!message) throw error;
      const html = renderMessagePage(locale, strings.notFound, message.message, assets);
      reply.status(message.status);
      return sendRepresentation(request, reply, new Representation('text/html; charset=utf-8', Buffer.from(html)), headers);
    };

    app.get(
      '/t/:token',
      { errorHandler, config: { secretParams: ['token'] }, schema: { hide, params: TokenParams, querystring: PageQuery } },
      async (request, reply) => send(request, reply, await pages.tablePage(request.params.token, hintsOf(request))),
    );

    app.get('/m/:slug', { errorHandler, schema: { hide, params: SlugParams, querystring: PageQuery } }, async (request, reply) =>
      send(request, reply, await pages.menuPage(request.params.slug, hintsOf(request))),
    );

    // An order's status page shows the guest's order: kept by no cache, like its JSON read.
    app.get(
      '/m/:slug/orders/:token',
      {
        errorHandler,
        config: { secretParams: ['token'], noStore: true },
        schema: { hide, params: GuestOrderParams, querystring: PageQuery },
      },
      async (request, reply) =>
        send(request, reply, await pages.statusPage(request.params.slug, request.params.token, hintsOf(request)), 'no-store'),
    );

    // Files served from memory take no per-IP slot, like the docs assets and image bytes.
    app.get(
      `${GUEST_ASSETS_PATH}/:file`,
      { config: { rateLimit: false }, schema: { hide, params: FileParams } },
      async (request, reply) => {
        const asset = assets.get(request.params.file);
        if (!asset) throw errors.routeNotFound(request.method, shownPath(request.url));
        return sendRepresentation(request, reply, asset, IMMUTABLE);
      },
    );
  };
}
