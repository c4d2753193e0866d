import type { DocsAssetUrls } from './docs.assets.js';
import { API_REFERENCES, type ApiReference } from './documents.js';

/**
 * The page's Content-Security-Policy: scripts, styles, images and fetches from this origin only
 * (no inline script or style at all: Swagger UI needs neither), `data:` images for the icons
 * Swagger UI's stylesheet embeds, and no framing.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The HTML page's security headers (docs/api-docs.md). */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': DOCS_CSP,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  // The page names versioned assets: revalidate it (its ETag makes that a 304).
  'cache-control': 'no-cache',
};

export function documentUrl(api: ApiReference): string {
  return `/docs/${api.id}/openapi.json`;
}

/** Text and attribute values alike: everything interpolated into the page goes through it. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
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
