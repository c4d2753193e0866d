// Server-rendered pages (/docs, the guest page): one escaper and one set of security headers.

/** Text and attribute values alike: everything interpolated into a page goes through it. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON for a `<script type="application/json">` data block: `<` is escaped so no value (a product
 * named `</script>`) can end the block; U+2028/9 for old parsers that read it as script.
 */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * A page's Content-Security-Policy: scripts, styles and fetches from this origin only (no inline
 * script or style at all), images from this origin and `imageSources`, no plugins, no framing.
 */
export function contentSecurityPolicy(imageSources: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${["'self'", ...imageSources].join(' ')}`,
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The security headers of every HTML page (docs/security.md). */
export function pageHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  };
}
