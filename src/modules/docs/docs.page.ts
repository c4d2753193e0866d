import { contentSecurityPolicy, escapeHtml, pageHeaders } from '../../http/html.js';
import type { DocsAssetUrls } from './docs.assets.js';
import { API_REFERENCES, type ApiReference } from './documents.js';

/**
 * The docs page's Content-Security-Policy: `data:` images for the icons Swagger UI's stylesheet
 * embeds; Swagger UI needs no inline script or style.
 */
export const DOCS_CSP = contentSecurityPolicy(['data:']);

/** The HTML page's security headers (docs/api-docs.md). */
export const PAGE_HEADERS: Record<string, string> = {
  ...pageHeaders(DOCS_CSP),
  // The page names versioned assets: revalidate it (its ETag makes that a 304).
  'cache-control': 'no-cache',
};

export function documentUrl(api: ApiReference): string {
  return `/docs/${api.id}/openapi.json`;
}

/**
 * One reference's page. The header (which API this is, the links to the other two, the document)
 * is server-rendered, so it shows before Swagger UI has loaded and without JavaScript.
 */
export function renderPage(api: ApiReference, urls: DocsAssetUrls): string {
  const links = API_REFERENCES.map((other) => {
    const current = other.id === api.id ? ' aria-current="page"' : '';
    return `<li><a href="${escapeHtml(other.page)}"${current}>${escapeHtml(other.label)} <code>${escapeHtml(other.base)}</code></a></li>`;
  }).join('');
  const documentHref = escapeHtml(documentUrl(api));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`Carta ${api.label} reference`)}</title>
<link rel="icon" type="image/png" href="${escapeHtml(urls.favicon)}">
<link rel="stylesheet" href="${escapeHtml(urls.style)}">
<link rel="stylesheet" href="${escapeHtml(urls.ownStyle)}">
</head>
<body>
<header class="docs-header">
<p class="docs-brand">Carta API reference</p>
<nav aria-label="API references"><ul>${links}</ul></nav>
<p>${escapeHtml(api.summary)} <a class="doc-link" href="${documentHref}">OpenAPI document</a> (all APIs in one: <a class="doc-link" href="/v1/openapi.json">/v1/openapi.json</a>).</p>
</header>
<div id="swagger-ui" data-url="${documentHref}"><noscript><p class="docs-header">The interactive reference needs JavaScript; the OpenAPI document above has everything it shows.</p></noscript></div>
<script src="${escapeHtml(urls.bundle)}"></script>
<script src="${escapeHtml(urls.script)}"></script>
</body>
</html>
`;
}
