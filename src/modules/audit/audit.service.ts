import type { Database, Queryable } from '../../db/port.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { uuidv7 } from '../../ids.js';
import type { AuditAction } from '../../operations.js';
import type { VenueContext } from '../venues/index.js';
import { insertAuditEntries, listAuditEntries } from './audit.repository.js';
import type { AuditListView, AuditQueryValue } from './audit.schemas.js';

/** A person of the venue acting in the console, named in the audit entries. */
export interface ConsoleMember {
  id: string;
  name: string;
}

/**
 * Who made a change: the venue (what its rules need of it), the call's request id, and the
 * console member when the change came from the console rather than an API key.
 */
export interface Actor {
  venue: Pick<VenueContext, 'venueId' | 'planDefinition' | 'currency' | 'mode'>;
  requestId: string;
  member?: ConsoleMember;
}

export interface AuditRecord {
  action: AuditAction;
  entityType: string;
  entityRef?: string | null;
  /** A summary only: counts, refs, changed field names, locales; never values. */
  changes: Record<string, unknown>;
}

/** Writes audit entries inside the caller's transaction, so a rolled-back change leaves none. */
export async function audit(tx: Queryable, actor: Actor, records: AuditRecord[]): Promise<void> {
  const { member } = actor;
  if (!member) return auditFrom(tx, actor.venue.venueId, actor.requestId, 'api_key', records);
  await auditFrom(
    tx,
    actor.venue.venueId,
    actor.requestId,
    'console',
    records.map((r) => withMember(r, member)),
  );
}

/** A console change names the member (id and name) in `changes.actor`. */
export function withMember(record: AuditRecord, member: ConsoleMember): AuditRecord {
  return { ...record, changes: { ...record.changes, actor: { id: member.id, name: member.name } } };
}

/** Where a change came from: an API key, the operator (API or CLI), or the venue console. */
export type AuditSource = 'api_key' | 'operator' | 'console';

/** `audit` for a change made without an API key: the venue named, and its source. */
export async function auditFrom(
  tx: Queryable,
  venueId: string,
  requestId: string,
  source: AuditSource,
  records: AuditRecord[],
): Promise<void> {
  await insertAuditEntries(
    tx,
    venueId,
    records.map((r) => ({
      id: uuidv7(),
      action: r.action,
      entityType: r.entityType,
      entityRef: r.entityRef ?? null,
      changes: r.changes,
      requestId,
      source,
    })),
  );
}

export class AuditService {
  constructor(private readonly db: Database) {}

  async list(venueId: string, query: AuditQueryValue): Promise<AuditListView> {
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await listAuditEntries(this.db, venueId, { action: query.action, limit, offset });
    return listEnvelope(
      rows.map((r) => ({
        id: r.id,
        action: r.action,
        entityType: r.entity_type,
        entityRef: r.entity_ref,
        changes: r.changes,
        requestId: r.request_id,
        source: r.source,
        createdAt: r.created_at.toISOString(),
      })),
      total,
      page,
      limit,
    );
  }
}
