import type { Metrics } from '../../http/metrics.js';
import { adminAuth } from '../../http/plugins/admin-auth.js';
import type { App } from '../../http/types.js';

/**
 * GET /metrics (docs/deployment.md): Prometheus text for a scraper holding the operator token.
 * Not an API operation (left out of the OpenAPI document) and not rate limited: a scrape every
 * few seconds must not eat a client's per-IP budget, and a wrong token is refused before any work.
 */
export function metricsRoutes(metrics: Metrics, adminToken: string | null) {
  return async function routes(app: App): Promise<void> {
    app.get('/metrics', { config: { rateLimit: false }, schema: { hide: true }, onRequest: adminAuth(adminToken) }, async (_request, reply) =>
      reply.header('cache-control', 'no-store').type(metrics.contentType).send(await metrics.text()));
  };
}
