import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { shownPath } from '../../http/request-logger.js';
import type { App } from '../../http/types.js';
import { ASSETS_PATH, docsAssets } from './docs.assets.js';
import { PAGE_HEADERS, renderPage } from './docs.page.js';
import { API_REFERENCES, referenceDocument, type ApiReference, type OpenApiDocument } from './documents.js';
import { IMMUTABLE, Representation, sendRepresentation } from './representation.js';

const ApiParams = Type.Object({ api: Type.String() });
const AssetParams = Type.Object({ file: Type.String() });

// HTML pages and files, not API operations: left out of the OpenAPI document.
const hide = true;

const REVALIDATE = { 'cache-control': 'no-cache' };

/**
 * GET /docs: the API reference in the browser (docs/api-docs.md), one page per audience (documents.ts),
 * on Swagger UI served from its npm package. Public like the document itself.
 * `openApiJson` is the generated document as `GET /v1/openapi.json` serves it.
 */
export function docsRoutes(openApiJson: () => string) {
  return async function routes(app: App): Promise<void> {
    const assets = docsAssets();
    // By page path (/docs, /docs/guest, ...).
    const pages = new Map(
      API_REFERENCES.map((api) => [api.page, new Representation('text/html; charset=utf-8', Buffer.from(renderPage(api, assets.urls)))]),
    );
    // By reference id, cut on first use: every route is registered by then. All three at once, so
    // the parsed full document is not kept.
    let documents: Map<string, Representation> | null = null;
    const documentOf = (id: string) => {
      if (!documents) {
        const full = JSON.parse(openApiJson()) as OpenApiDocument;
        const cut = (api: ApiReference) => Buffer.from(JSON.stringify(referenceDocument(full, api)));
        documents = new Map(API_REFERENCES.map((api) => [api.id, new Representation('application/json; charset=utf-8', cut(api))]));
      }
      return documents.get(id);
    };

    const sendPage = (request: FastifyRequest, reply: FastifyReply, path: string) => {
      const page = pages.get(path);
      if (!page) throw errors.routeNotFound(request.method, shownPath(request.url));
      return sendRepresentation(request, reply, page, PAGE_HEADERS);
    };
    app.get('/docs', { schema: { hide } }, async (request, reply) => sendPage(request, reply, '/docs'));
    app.get('/docs/:api', { schema: { hide, params: ApiParams } }, async (request, reply) =>
      sendPage(request, reply, `/docs/${request.params.api}`),
    );

    app.get('/docs/:api/openapi.json', { schema: { hide, params: ApiParams } }, async (request, reply) => {
      const document = documentOf(request.params.api);
      if (!document) throw errors.routeNotFound(request.method, shownPath(request.url));
      return sendRepresentation(request, reply, document, REVALIDATE);
    });

    // Like image bytes, files served from memory take no per-IP slot: a page load asks for five at once.
    app.get(`${ASSETS_PATH}/:file`, { config: { rateLimit: false }, schema: { hide, params: AssetParams } }, async (request, reply) => {
      const asset = assets.get(request.params.file);
      if (!asset) throw errors.routeNotFound(request.method, shownPath(request.url));
      return sendRepresentation(request, reply, await asset, IMMUTABLE);
    });
  };
}
