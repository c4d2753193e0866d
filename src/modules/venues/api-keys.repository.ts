import type { Queryable } from '../../db/port.js';
import type { Plan, SubscriptionStatus } from './plans.js';
import type { KeyMode } from './venues.schemas.js';

export type { KeyMode };

export interface ApiKeyRow {
  id: string;
  venue_id: string;
  mode: KeyMode;
  read_only: boolean;
  label: string | null;
  hint: string;
  created_at: Date;
  revoked_at: Date | null;
}

const KEY_COLUMNS = 'id, venue_id, mode, read_only, label, hint, created_at, revoked_at';

export interface NewApiKey {
  id: string;
  mode: KeyMode;
  readOnly: boolean;
  label: string | null;
  keyHash: string;
  hint: string;
}

export async function insertApiKey(db: Queryable, venueId: string, k: NewApiKey): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `insert into api_keys (venue_id, id, mode, read_only, label, key_hash, hint)
     values ($1, $2, $3, $4, $5, $6, $7) returning ${KEY_COLUMNS}`,
    [venueId, k.id, k.mode, k.readOnly, k.label, k.keyHash, k.hint],
  );
  return rows[0];
}

export async function listApiKeys(db: Queryable, venueId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(`select ${KEY_COLUMNS} from api_keys where venue_id = $1 order by created_at, id`, [venueId]);
  return rows;
}

/**
 * Operator look-up of a key by its id alone (the operator API names keys without their venue).
 * Like the hash look-up below, this is a directory query outside any one tenant.
 */
export async function findApiKeyById(db: Queryable, keyId: string): Promise<ApiKeyRow | null> {
  const { rows } = await db.query<ApiKeyRow>(`select ${KEY_COLUMNS} from api_keys where id = $1`, [keyId]);
  return rows[0] ?? null;
}

/** Swaps the stored hash: the old key stops matching in the same statement. */
export async function replaceApiKeyHash(
  db: Queryable,
  venueId: string,
  keyId: string,
  keyHash: string,
  hint: string,
): Promise<ApiKeyRow | null> {
  const { rows } = await db.query<ApiKeyRow>(
    `update api_keys set key_hash = $3, hint = $4
     where venue_id = $1 and id = $2 and revoked_at is null returning ${KEY_COLUMNS}`,
    [venueId, keyId, keyHash, hint],
  );
  return rows[0] ?? null;
}

export async function revokeApiKey(db: Queryable, venueId: string, keyId: string): Promise<void> {
  await db.query('update api_keys set revoked_at = coalesce(revoked_at, now()) where venue_id = $1 and id = $2', [venueId, keyId]);
}

export interface KeyContextRow {
  key_id: string;
  mode: KeyMode;
  read_only: boolean;
  venue_id: string;
  live_venue_id: string;
  slug: string;
  plan: Plan;
  subscription_status: SubscriptionStatus;
  currency: string;
  default_language: string;
}

/**
 * Authentication: the venue a key acts on (the sandbox twin for test keys). The one per-request
 * query of the auth path; it is served by the unique index on key_hash.
 */
export async function findKeyContextByHash(db: Queryable, keyHash: string): Promise<KeyContextRow | null> {
  const { rows } = await db.query<KeyContextRow>(
    `select k.id as key_id, k.mode, k.read_only, v.id as venue_id, k.venue_id as live_venue_id, v.slug,
            v.plan, v.subscription_status, v.currency, v.default_language
     from api_keys k
     join venues v on (k.mode = 'live' and v.id = k.venue_id) or (k.mode = 'test' and v.live_venue_id = k.venue_id)
     where k.key_hash = $1 and k.revoked_at is null`,
    [keyHash],
  );
  return rows[0] ?? null;
}
