import type { Queryable } from '../../db/port.js';

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export interface KeyRow {
  request_hash: string;
  status_code: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/**
 * Takes the key for one execution: a new key, one older than 24 hours, or one whose holder died
 * (its lease ran out) while running the same request. False when someone else holds it.
 */
export async function claimKey(db: Queryable, venueId: string, key: string, requestHash: string, leaseSec: number): Promise<boolean> {
  const { rows } = await db.query(
    `insert into idempotency_keys as k (venue_id, key, request_hash, lease_until)
     values ($1, $2, $3, now() + make_interval(secs => $4))
     on conflict (venue_id, key) do update
       set request_hash = excluded.request_hash, created_at = now(), lease_until = excluded.lease_until,
           status_code = null, response_headers = null, response_body = null
       where k.created_at < now() - interval '24 hours'
          or (k.status_code is null and k.lease_until < now() and k.request_hash = excluded.request_hash)
     returning 1`,
    [venueId, key, requestHash, leaseSec],
  );
  return rows.length > 0;
}

export async function findKey(db: Queryable, venueId: string, key: string): Promise<KeyRow | null> {
  const { rows } = await db.query<KeyRow>(
    `select request_hash, status_code, response_headers, response_body from idempotency_keys
     where venue_id = $1 and key = $2 and created_at >= now() - interval '24 hours'`,
    [venueId, key],
  );
  return rows[0] ?? null;
}

export async function completeKey(db: Queryable, venueId: string, key: string, response: StoredResponse): Promise<void> {
  await db.query(
    `update idempotency_keys set status_code = $3, response_headers = $4, response_body = $5, lease_until = null
     where venue_id = $1 and key = $2`,
    [venueId, key, response.statusCode, JSON.stringify(response.headers), response.body],
  );
}

/** Gives a key back unanswered (the execution failed with a 5xx: a retry may run it again). */
export async function releaseKey(db: Queryable, venueId: string, key: string): Promise<void> {
  await db.query('delete from idempotency_keys where venue_id = $1 and key = $2 and status_code is null', [venueId, key]);
}

export async function deleteExpiredKeys(db: Queryable, venueId: string): Promise<void> {
  await db.query(`delete from idempotency_keys where venue_id = $1 and created_at < now() - interval '24 hours'`, [venueId]);
}
