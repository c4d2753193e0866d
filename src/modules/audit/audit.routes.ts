import type { App } from '../../http/types.js';
import type { AuditService } from './audit.service.js';
import { AuditList, AuditQuery } from './audit.schemas.js';

/** The services these routes call. */
type RouteServices = { audit: AuditService };

export function auditRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.get(
      '/audit-log',
      {
        // Who changed what, with members' names: no cache keeps it.
        config: { noStore: true },
        schema: {
          operationId: 'listAuditEntries',
          tags: ['audit'],
          summary: 'List the audit trail',
          description:
            'Every mutating call of the venue, newest first, in the list envelope: sync, publish, cleanup, product changes, settings, media, ' +
            'merchandising, translations and order status changes; not reads or dry runs. `action` filters by exact match. ' +
            '`changes` is a summary (counts, refs, the names of changed fields), never field values, images or secrets.',
          querystring: AuditQuery,
          response: { 200: AuditList },
        },
      },
      async (request) => services.audit.list(request.venue.venueId, request.query),
    );
  };
}
