import type { Queryable } from '../../db/port.js';
import { isUuid } from '../../ids.js';
import { countRows, deleteRow, findRow, listRows } from '../../db/keyed-rows.js';
import type { KeyMode } from '../venues/index.js';
import type { WebhookEvent } from './webhooks.schemas.js';

export interface WebhookEndpointRow {
  id: string;
  url: string;
  events: WebhookEvent[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  mode: KeyMode;
  secret: string;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What a PATCH may write: the caller's fields, and disabled_reason (cleared on re-enabling). */
export type WebhookEndpointChanges = Partial<Pick<WebhookEndpointRow, 'url' | 'events' | 'description' | 'enabled' | 'disabled_reason'>>;

// previous_secret is left out on purpose: no read shows it, only signingSecrets hands it out.
const COLUMNS = 'id, url, events, description, enabled, disabled_reason, mode, secret, previous_secret_expires_at, created_at, updated_at';

/** Serialises one venue's endpoint creates, so concurrent ones cannot pass the per-venue cap. Held to commit. */
export async function lockEndpoints(db: Queryable, venueId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('webhooks:' || $1::text, 0))`, [venueId]);
}

export const countEndpoints = (db: Queryable, venueId: string) => countRows(db, venueId, 'webhook_endpoints');

export const findEndpoint = (db: Queryable, venueId: string, id: string, forUpdate = false) =>
  findRow<WebhookEndpointRow>(db, venueId, 'webhook_endpoints', COLUMNS, id, forUpdate);

/** One page of a venue's endpoints, oldest first, and how many there are. */
export const listEndpoints = (db: Queryable, venueId: string, limit: number, offset: number) =>
  listRows<WebhookEndpointRow>(db, venueId, 'webhook_endpoints', COLUMNS, 'created_at, id', limit, offset);

export async function insertEndpoint(
  db: Queryable,
  venueId: string,
  row: Pick<WebhookEndpointRow, 'id' | 'url' | 'events' | 'description' | 'mode' | 'secret'>,
): Promise<void> {
  await db.query(
    `insert into webhook_endpoints (venue_id, id, url, events, description, mode, secret)
     values ($1, $2, $3, $4::text[], $5, $6, $7)`,
    [venueId, row.id, row.url, row.events, row.description, row.mode, row.secret],
  );
}

/** Sets the given columns of one endpoint (their names come from WebhookEndpointChanges, never a request); updatedAt moves. */
export async function updateEndpoint(db: Queryable, venueId: string, id: string, changes: WebhookEndpointChanges): Promise<void> {
  const columns = Object.keys(changes) as (keyof WebhookEndpointChanges)[];
  const set = columns.map((c, i) => `${c} = $${i + 3}${c === 'events' ? '::text[]' : ''}`);
  // Turning an endpoint on or off starts its failing clock over: a re-enabled endpoint gets a day
  // of failures again before delivery turns it off.
  const restart = 'enabled' in changes ? ['failing_since = null'] : [];
  await db.query(`update webhook_endpoints set ${[...set, ...restart, 'updated_at = now()'].join(', ')} where venue_id = $1 and id = $2`, [
    venueId,
    id,
    ...columns.map((c) => changes[c]),
  ]);
}

/**
 * A new current secret; the replaced one keeps signing for `graceHours` (Standard Webhooks
 * rotation). A secret replaced earlier and still in its grace period is dropped: only the latest
 * replaced one is kept.
 */
export async function rotateSecret(db: Queryable, venueId: string, id: string, secret: string, graceHours: number): Promise<void> {
  await db.query(
    `update webhook_endpoints
     set previous_secret = secret, previous_secret_expires_at = now() + $4::int * interval '1 hour', secret = $3, updated_at = now()
     where venue_id = $1 and id = $2`,
    [venueId, id, secret, graceHours],
  );
}

export const deleteEndpoint = (db: Queryable, venueId: string, id: string) => deleteRow(db, venueId, 'webhook_endpoints', id);

/**
 * The secrets a delivery to this endpoint is signed with now: the current one first, then the
 * replaced one while its grace period lasts (by the database's clock). Null for an unknown endpoint.
 */
export async function signingSecrets(db: Queryable, venueId: string, id: string): Promise<string[] | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<{ secret: string; previous: string | null }>(
    `select secret, case when previous_secret_expires_at > now() then previous_secret end as previous
     from webhook_endpoints where venue_id = $1 and id = $2`,
    [venueId, id],
  );
  if (rows.length === 0) return null;
  return rows[0].previous === null ? [rows[0].secret] : [rows[0].secret, rows[0].previous];
}
