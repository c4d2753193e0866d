import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { shownPath } from '../../http/request-logger.js';
import type { App } from '../../http/types.js';
import { ASSETS_PATH, docsAssets } from './docs.assets.js';
import { PAGE_HEADERS, renderPage } from './docs.page.js';
import { API_REFERENCES, referenceDocument, type ApiReference, type OpenApiDocument } from './documents.js';
import { Representation, sendRepresentation } from './representation.js';

const ApiParams = Type.Object({ api: Type.String() });
const AssetParams = Type.Object({ file: Type.String() });

// HTML pages and files, not API operations: left out of the OpenAPI document.
const hide = true;

/** Year-long caching for URLs whose bytes never change (the name carries a version or hash). */
const IMMUTABLE = { 'cache-control': 'public, max-age=31536000, immutable' };
const REVALIDATE = { 'cache-control': 'no-cache' };

/**
 * GET /docs: the API reference in the browser (issue 13), one page per audience (documents.ts),
 * on Swagger UI served from its npm package. Public like the document itself.
 * `openApiJson` is the generated document as `GET /v1/openapi.json` serves it.
 */
export function docsRoutes(openApiJson: () => string) {
  return async function routes(app: App): Promise<void> {
    const assets = docsAssets();
    const byId = new Map<string, ApiReference>(API_REFERENCES.map((api) => [api.id, api]));
    const pageOf = new Map(API_REFERENCES.map((api) => [api.page, api]));

    // Built on first use: the routes are all registered by then, and a start pays nothing for them.
    const pages = new Map<ApiReference, Representation>();
    const page = (api: ApiReference) => {
      let made = pages.get(api);
      if (!made) pages.set(api, (made = new Representation('text/html; charset=utf-8', Buffer.from(renderPage(api, assets.urls)))));
      return made;
    };
    let full: OpenApiDocument | null = null;
    const documents = new Map<ApiReference, Representation>();
    const documentOf = (api: ApiReference) => {
      let made = documents.get(api);
      if (!made) {
        full ??= JSON.parse(openApiJson()) as OpenApiDocument;
        made = new Representation('application/json; charset=utf-8', Buffer.from(JSON.stringify(referenceDocument(full, api))));
        documents.set(api, made);
      }
      return made;
    };

    app.get('/docs', { schema: { hide } }, async (request, reply) =>
      sendRepresentation(request, reply, page(API_REFERENCES[0]), PAGE_HEADERS),
    );

    app.get('/docs/:api', { schema: { hide, params: ApiParams } }, async (request, reply) => {
      const api = pageOf.get(`/docs/${request.params.api}`);
      if (!api) throw errors.routeNotFound(request.method, shownPath(request.url));
      return sendRepresentation(request, reply, page(api), PAGE_HEADERS);
    });

    app.get('/docs/:api/openapi.json', { schema: { hide, params: ApiParams } }, async (request, reply) => {
      const api = byId.get(request.params.api);
      if (!api) throw errors.routeNotFound(request.method, shownPath(request.url));
      return sendRepresentation(request, reply, documentOf(api), REVALIDATE);
    });

    // Like image bytes, files served from memory take no per-IP slot: a page load asks for five at once.
    app.get(`${ASSETS_PATH}/:file`, { config: { rateLimit: false }, schema: { hide, params: AssetParams } }, async (request, reply) => {
      const asset = assets.get(request.params.file);
      if (!asset) throw errors.routeNotFound(request.method, shownPath(request.url));
      return sendRepresentation(request, reply, await asset, IMMUTABLE);
    });
  };
}
