import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import type { Services } from '../../services.js';
import { AuditList, AuditQuery } from './audit.schemas.js';

export function auditRoutes(services: Services) {
  return async function routes(app: App): Promise<void> {
    app.get('/audit-log', {
      schema: {
        tags: ['audit'],
        summary: 'The audit trail of mutating calls, newest first (spec 4.6)',
        querystring: AuditQuery,
        response: { 200: AuditList, ...errorResponses(400, 401, 403, 429) },
      },
    }, async (request) => services.audit.list(request.venue.venueId, request.query));
  };
}
