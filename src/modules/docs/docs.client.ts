// What the /docs page runs and wears besides Swagger UI itself, served as files of this origin
// (the page's CSP allows no inline script or style). Plain ES2017 for any browser that runs
// Swagger UI; it is text here rather than a file because the build compiles TypeScript only.

/** Starts Swagger UI on the document the page names, and mends what axe finds in its markup. */
export const DOCS_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');

  // Swagger UI renders form fields without an accessible name (a parameter's values, the
  // servers, the request body in "Try it out") and scrollable code blocks a keyboard cannot
  // reach (axe: select-name, label, scrollable-region-focusable); mended as it renders.
  function labelled(field) {
    return Array.prototype.some.call(field.labels || [], function (label) {
      return label.textContent.replace(field.textContent, '').trim() !== '';
    });
  }
  function nameOf(field) {
    var row = field.closest('tr');
    var parameter = row && row.querySelector('.parameter__name');
    if (parameter && parameter.firstChild) return parameter.firstChild.textContent.trim();
    if (field.id === 'servers') return 'Server';
    if (field.classList.contains('body-param__text')) return 'Request body';
    return 'Value';
  }
  function mend() {
    root.querySelectorAll('select:not([aria-label]), textarea:not([aria-label]), input:not([aria-label]):not([placeholder])').forEach(function (field) {
      if (!labelled(field)) field.setAttribute('aria-label', nameOf(field));
    });
    root.querySelectorAll('pre:not([tabindex])').forEach(function (pre) {
      pre.setAttribute('tabindex', '0');
    });
  }
  new MutationObserver(mend).observe(root, { childList: true, subtree: true });

  window.SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    domNode: root,
    // The default sends the document to an online validator: no request may leave the machine.
    validatorUrl: null,
    // Deep links put an anchor inside each operation's toggle button (axe: nested-interactive).
    deepLinking: false,
    // Every bundled highlighting theme has token colours under 4.5:1 contrast (axe: color-contrast).
    syntaxHighlight: { activated: false },
    defaultModelsExpandDepth: 0,
  });
})();
`;

/**
 * The header above Swagger UI, and colours of Swagger UI's own that fall short of WCAG AA
 * contrast (4.5:1) with white or pale text: its method badges, links and greys.
 */
export const DOCS_STYLE = `
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; }
.docs-header { padding: 16px 20px 0; max-width: 1460px; margin: 0 auto; }
.docs-header .docs-brand { font-size: 1.25rem; font-weight: 600; margin: 0 0 12px; }
.docs-header nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 8px; margin: 0; padding: 0; }
.docs-header nav a { display: inline-block; padding: 8px 14px; border: 1px solid #8c959f; border-radius: 6px; color: #1f2328; text-decoration: none; }
.docs-header nav a:hover, .docs-header nav a:focus-visible { border-color: #1a67b8; color: #1a67b8; }
.docs-header nav a[aria-current="page"] { background: #1a67b8; border-color: #1a67b8; color: #fff; }
.docs-header nav code { font-size: 0.85em; }
.docs-header p { margin: 12px 0 0; line-height: 1.5; }
.docs-header a.doc-link { color: #1d5fae; }

.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1a67b8; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #157347; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a5600; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b42318; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0a6e5c; }
.swagger-ui .opblock.opblock-head .opblock-summary-method { background: #7011c9; }
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #0d5aa7; }
.swagger-ui .info .title small { background: #5c6370; }
.swagger-ui .info .title small.version-stamp { background: #4b7200; }
.swagger-ui .info a, .swagger-ui .info .url { color: #1d5fae; }
.swagger-ui .btn.authorize { color: #157347; border-color: #157347; }
.swagger-ui .btn.authorize svg { fill: #157347; }
.swagger-ui .btn.execute { background: #1a67b8; border-color: #1a67b8; }
.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated { color: #5e5e5e; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #5e5e5e; }
.swagger-ui .btn.cancel { color: #b42318; border-color: #b42318; }
.swagger-ui .markdown code, .swagger-ui .renderedMarkdown code { color: #6a0dad; }
`;
