import { actorOf as actor } from '../../http/actor.js';
import { conditionalView, withEtag } from '../../http/etag-reply.js';
import { errorResponses, IdParams, ListQuery, NotModified } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { TablesService } from './tables.service.js';
import { Deleted } from './merch.schemas.js';
import { GuestTable, QrPngQuery, QrSheetQuery, Table, TableCreateBody, TableList, TablePatchBody, TokenParams } from './tables.schemas.js';

/** The services these routes call. */
type RouteServices = { tables: TablesService };

const tags = ['tables'];

const svgResponse = (description: string) => ({ description, content: { 'image/svg+xml': { schema: { type: 'string' } } } });

/** /v1/tables: tables, their QR codes and a printable sheet. */
export function tablesRoutes(services: RouteServices) {
  const { tables } = services;

  return async function routes(app: App): Promise<void> {
    app.get(
      '/tables',
      {
        schema: {
          operationId: 'listTables',
          tags,
          summary: 'List tables',
          description: "The venue's QR tables in the list envelope, by name.",
          querystring: ListQuery,
          response: { 200: TableList },
        },
      },
      async (request) => tables.list(request.venue.venueId, request.query),
    );

    app.post(
      '/tables',
      {
        schema: {
          operationId: 'createTable',
          tags,
          summary: 'Create a table',
          description: [
            "Creates a QR table with its guest link, `qrUrl` (`PUBLIC_BASE_URL/t/<token>`), printed as the table's QR code.",
            "- Past the plan's maxQrTables: 400 `TABLE_LIMIT_REACHED` with details { limit, available, requested }.",
            '- The name is unique per venue, ignoring case (409 `TABLE_NAME_ALREADY_EXISTS`); so is an externalId (409 `EXTERNAL_ID_ALREADY_EXISTS`).',
            '',
            'The response has the ETag that PATCH takes in If-Match. Audited as `table.create`.',
          ].join('\n'),
          body: TableCreateBody,
          response: {
            201: Table,
            ...errorResponses({ 400: ['TABLE_LIMIT_REACHED'], 409: ['TABLE_NAME_ALREADY_EXISTS', 'EXTERNAL_ID_ALREADY_EXISTS'] }),
          },
        },
      },
      async (request, reply) => withEtag(reply, await tables.create(actor(request), request.body), 201),
    );

    app.get(
      '/tables/qr-sheet.svg',
      {
        schema: {
          operationId: 'getTableQrSheet',
          tags,
          summary: 'Print the QR codes of every table',
          description:
            "Every active table's QR code with its name and zone on printable A4 pages of 12, as SVG. `?page=N` gives one page; " +
            'a page past the last is a validation failure.',
          querystring: QrSheetQuery,
          response: { 200: svgResponse('A4 pages, one under another') },
        },
      },
      async (request, reply) =>
        reply
          .type('image/svg+xml; charset=utf-8')
          .header('cache-control', 'private, no-cache')
          .send(await tables.sheet(request.venue.venueId, request.query.page)),
    );

    app.get(
      '/tables/:id',
      {
        schema: {
          operationId: 'getTable',
          tags,
          summary: 'Read one table',
          description: 'One table, with the ETag that PATCH takes in If-Match; If-None-Match with it answers 304.',
          params: IdParams,
          response: { 200: Table, 304: NotModified, ...errorResponses({ 404: ['TABLE_NOT_FOUND'] }) },
        },
      },
      async (request, reply) =>
        conditionalView(request.headers['if-none-match'], reply, await tables.get(request.venue.venueId, request.params.id)) ?? reply,
    );

    app.patch(
      '/tables/:id',
      {
        schema: {
          operationId: 'updateTable',
          tags,
          summary: 'Update a table',
          description:
            'Changes the fields sent: an omitted field keeps its value, `null` clears a nullable one; the name and externalId must stay ' +
            "unique (409 `TABLE_NAME_ALREADY_EXISTS`, `EXTERNAL_ID_ALREADY_EXISTS`). A deactivated table's link stops working. If-Match with the ETag " +
            'of a read makes a concurrent change fail with 412 `STALE_RESOURCE`. Audited as `table.update`.',
          params: IdParams,
          body: TablePatchBody,
          response: {
            200: Table,
            ...errorResponses({
              404: ['TABLE_NOT_FOUND'],
              409: ['TABLE_NAME_ALREADY_EXISTS', 'EXTERNAL_ID_ALREADY_EXISTS'],
              412: ['STALE_RESOURCE'],
            }),
          },
        },
      },
      async (request, reply) =>
        withEtag(reply, await tables.patch(actor(request), request.params.id, request.body, request.headers['if-match'])),
    );

    app.delete(
      '/tables/:id',
      {
        schema: {
          operationId: 'deleteTable',
          tags,
          summary: 'Delete a table',
          description: 'Deletes a table; its link stops working at once. Audited as `table.delete`.',
          params: IdParams,
          response: { 200: Deleted, ...errorResponses({ 404: ['TABLE_NOT_FOUND'] }) },
        },
      },
      async (request) => tables.delete(actor(request), request.params.id),
    );

    app.post(
      '/tables/:id/regenerate-token',
      {
        schema: {
          operationId: 'regenerateTableToken',
          tags,
          summary: "Replace a table's QR link",
          description:
            'Gives a table a new QR link, for a code that leaked: the old link stops working at once. Audited as `table.update`.',
          params: IdParams,
          response: { 201: Table, ...errorResponses({ 404: ['TABLE_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => withEtag(reply, await tables.regenerateToken(actor(request), request.params.id), 201),
    );

    app.get(
      '/tables/:id/qr.svg',
      {
        schema: {
          operationId: 'getTableQrSvg',
          tags,
          summary: "Get a table's QR code as SVG",
          description: "The QR code of the table's link, as SVG (error correction level Q).",
          params: IdParams,
          response: { 200: svgResponse('The QR code'), ...errorResponses({ 404: ['TABLE_NOT_FOUND'] }) },
        },
      },
      async (request, reply) =>
        reply
          .type('image/svg+xml; charset=utf-8')
          .header('cache-control', 'private, no-cache')
          .send(await tables.qr(request.venue.venueId, request.params.id, 'svg')),
    );

    app.get(
      '/tables/:id/qr.png',
      {
        schema: {
          operationId: 'getTableQrPng',
          tags,
          summary: "Get a table's QR code as PNG",
          description: "The QR code of the table's link, as a PNG of `?size=` pixels (64 to 2048, default 512; error correction level Q).",
          params: IdParams,
          querystring: QrPngQuery,
          response: {
            200: { description: 'The QR code', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } },
            ...errorResponses({ 404: ['TABLE_NOT_FOUND'] }),
          },
        },
      },
      async (request, reply) => {
        const png = await tables.qr(request.venue.venueId, request.params.id, 'png', request.query.size ?? 512);
        return reply
          .type('image/png')
          .header('cache-control', 'private, no-cache')
          .send(png as unknown as string);
      },
    );
  };
}

/** GET /guest/v1/tables/:token: where a table's QR code leads (public, per-IP limits only). */
export function guestTableRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.get(
      '/tables/:token',
      {
        // Whoever holds the token can order at the table: masked in logs and error paths.
        config: { secretParams: ['token'] },
        schema: {
          operationId: 'getGuestTable',
          tags: ['guest'],
          summary: "Resolve a table's QR token",
          description:
            "Where a table's QR code leads: the venue's slug, for its guest menu, and the table (id, name, zone), whose id a guest order " +
            'takes as tableId. An unknown or deactivated table is 404 `TABLE_NOT_FOUND`; a venue whose subscription is inactive is 403 `SUBSCRIPTION_INACTIVE`.',
          params: TokenParams,
          response: { 200: GuestTable, ...errorResponses({ 403: ['SUBSCRIPTION_INACTIVE'], 404: ['TABLE_NOT_FOUND'] }) },
        },
      },
      async (request) => services.tables.forGuest(request.params.token),
    );
  };
}
