import { actorOf as actor } from '../../http/actor.js';
import { conditionalView, withEtag } from '../../http/etag.js';
import { errorResponses, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { Deleted, IdParams, ListQuery } from './merch.schemas.js';
import { GuestTable, QrPngQuery, QrSheetQuery, Table, TableCreateBody, TableList, TablePatchBody, TokenParams } from './tables.schemas.js';

const tags = ['tables'];

const svgResponse = (description: string) => ({ description, content: { 'image/svg+xml': { schema: { type: 'string' } } } });

/** /v1/tables (decisions section 8): tables, their QR codes and a printable sheet. */
export function tablesRoutes(services: Services) {
  const { tables } = services;

  return async function routes(app: App): Promise<void> {
    app.get('/tables', {
      schema: { tags, summary: 'List tables by name', querystring: ListQuery, response: { 200: TableList, ...errorResponses(400, 401, 403, 429) } },
    }, async (request) => tables.list(request.venue.venueId, request.query));

    app.post('/tables', {
      schema: {
        tags,
        summary: 'Create a table with its QR link; 400 TABLE_LIMIT_REACHED, 409 TABLE_NAME_ALREADY_EXISTS or EXTERNAL_ID_ALREADY_EXISTS',
        body: TableCreateBody,
        response: { 201: Table, ...errorResponses(400, 401, 403, 409, 429) },
      },
    }, async (request, reply) => withEtag(reply, await tables.create(actor(request), request.body), 201));

    app.get('/tables/qr-sheet.svg', {
      schema: {
        tags,
        summary: "Every active table's QR code with its name and zone on printable A4 pages (12 a page); ?page=N for one page",
        querystring: QrSheetQuery,
        response: { 200: svgResponse('A4 pages, one under another'), ...errorResponses(400, 401, 403, 429) },
      },
    }, async (request, reply) =>
      reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'private, no-cache').send(await tables.sheet(request.venue.venueId, request.query.page)));

    app.get('/tables/:id', {
      schema: { tags, summary: 'One table, with the ETag PATCH takes', params: IdParams, response: { 200: Table, 304: NotModified, ...errorResponses(401, 403, 404, 429) } },
    }, async (request, reply) => conditionalView(request.headers['if-none-match'], reply, await tables.get(request.venue.venueId, request.params.id)) ?? reply);

    app.patch('/tables/:id', {
      schema: {
        tags,
        summary: 'Change a table (omitted keeps, null clears); If-Match -> 412 STALE_RESOURCE when stale',
        params: IdParams,
        body: TablePatchBody,
        response: { 200: Table, ...errorResponses(400, 401, 403, 404, 409, 412, 429) },
      },
    }, async (request, reply) => withEtag(reply, await tables.patch(actor(request), request.params.id, request.body, request.headers['if-match'])));

    app.delete('/tables/:id', {
      schema: { tags, summary: 'Delete a table; its link stops working', params: IdParams, response: { 200: Deleted, ...errorResponses(401, 403, 404, 429) } },
    }, async (request) => tables.delete(actor(request), request.params.id));

    app.post('/tables/:id/regenerate-token', {
      schema: {
        tags,
        summary: 'Give a table a new QR link (for a code that leaked): the old link stops working at once',
        params: IdParams,
        response: { 201: Table, ...errorResponses(401, 403, 404, 429) },
      },
    }, async (request, reply) => withEtag(reply, await tables.regenerateToken(actor(request), request.params.id), 201));

    app.get('/tables/:id/qr.svg', {
      schema: { tags, summary: "The table's QR code as SVG (error correction Q)", params: IdParams, response: { 200: svgResponse('The QR code'), ...errorResponses(401, 403, 404, 429) } },
    }, async (request, reply) =>
      reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'private, no-cache').send(await tables.qr(request.venue.venueId, request.params.id, 'svg')));

    app.get('/tables/:id/qr.png', {
      schema: {
        tags,
        summary: "The table's QR code as PNG, ?size= pixels (64 to 2048, default 512)",
        params: IdParams,
        querystring: QrPngQuery,
        response: { 200: { description: 'The QR code', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } }, ...errorResponses(400, 401, 403, 404, 429) },
      },
    }, async (request, reply) => {
      const png = await tables.qr(request.venue.venueId, request.params.id, 'png', request.query.size ?? 512);
      return reply.type('image/png').header('cache-control', 'private, no-cache').send(png as unknown as string);
    });
  };
}

/** GET /guest/v1/tables/:token: where a table's QR code leads (public, per-IP limits only). */
export function guestTableRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.get('/tables/:token', {
      schema: {
        tags: ['guest'],
        summary: "A table's QR token -> the venue's slug and the table (name, zone); 404 TABLE_NOT_FOUND when unknown or deactivated",
        params: TokenParams,
        response: { 200: GuestTable, ...errorResponses(403, 404, 429) },
      },
    }, async (request) => services.tables.forGuest(request.params.token));
  };
}
