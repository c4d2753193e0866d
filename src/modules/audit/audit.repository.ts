import type { Queryable } from '../../db/port.js';
import type { AuditAction } from '../../operations.js';

export interface AuditRow {
  id: string;
  action: AuditAction;
  entity_type: string;
  entity_ref: string | null;
  changes: Record<string, unknown>;
  request_id: string;
  source: string;
  created_at: Date;
}

export interface NewAuditEntry {
  id: string;
  action: AuditAction;
  entityType: string;
  entityRef: string | null;
  changes: Record<string, unknown>;
  requestId: string;
  source: string;
}

export async function insertAuditEntries(db: Queryable, venueId: string, entries: NewAuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `insert into audit_log (venue_id, id, action, entity_type, entity_ref, changes, request_id, source)
     select $1, r.id, r.action, r.entity_type, r.entity_ref, r.changes, r.request_id, r.source
     from jsonb_to_recordset($2::jsonb) as r(id uuid, action text, entity_type text, entity_ref text, changes jsonb,
                                            request_id text, source text)`,
    [
      venueId,
      JSON.stringify(
        entries.map((e) => ({
          id: e.id,
          action: e.action,
          entity_type: e.entityType,
          entity_ref: e.entityRef,
          changes: e.changes,
          request_id: e.requestId,
          source: e.source,
        })),
      ),
    ],
  );
}

/** Newest first; served by (venue_id, created_at desc, id desc) or its per-action twin. */
export async function listAuditEntries(
  db: Queryable,
  venueId: string,
  q: { action?: AuditAction; limit: number; offset: number },
): Promise<{ rows: AuditRow[]; total: number }> {
  const filter = q.action ? 'and action = $2' : '';
  const params = q.action ? [venueId, q.action] : [venueId];
  const [page, count] = await Promise.all([
    db.query<AuditRow>(
      `select id, action, entity_type, entity_ref, changes, request_id, source, created_at
       from audit_log where venue_id = $1 ${filter}
       order by created_at desc, id desc limit ${q.limit} offset ${q.offset}`,
      params,
    ),
    db.query<{ total: number }>(`select count(*)::int as total from audit_log where venue_id = $1 ${filter}`, params),
  ]);
  return { rows: page.rows, total: count.rows[0].total };
}
