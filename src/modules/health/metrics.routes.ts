import type { Metrics } from '../../http/metrics.js';
import { adminAuth } from '../../http/plugins/admin-auth.js';
import type { App } from '../../http/types.js';

/**
 * GET /metrics (docs/deployment.md): Prometheus text for a scraper holding the operator token.
 * Not an API operation (left out of the OpenAPI document). Under the per-IP limits like the
 * operator API, checked before the token: otherwise it is a place to guess the token at any rate.
 * A scrape every few seconds is a small part of the scraper's budget.
 */
export function metricsRoutes(metrics: Metrics, adminToken: string | null) {
  return async function routes(app: App): Promise<void> {
    app.get('/metrics', { schema: { hide: true }, onRequest: adminAuth(adminToken) }, async (_request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .type(metrics.contentType)
        .send(await metrics.text()),
    );
  };
}
