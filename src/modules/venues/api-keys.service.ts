import { createHash } from 'node:crypto';
import { EpochMemo } from '../../db/epoch-memo.js';
import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { randomBase62, uuidv7 } from '../../ids.js';
import * as keys from './api-keys.repository.js';
import type { ApiKeyCreateInput, ApiKeyCreatedView, ApiKeySummaryView } from './venues.schemas.js';
import { findVenue } from './venues.repository.js';
import { PLAN_DEFINITIONS, requireActiveSubscription, type Plan, type PlanDefinition, type SubscriptionStatus } from './plans.js';

export const KEY_PREFIX = 'carta';
const LIVE_PREFIX = `${KEY_PREFIX}_live_`;
const TEST_PREFIX = `${KEY_PREFIX}_test_`;
const KEY_SECRET_LENGTH = 32;

/** The key of a Bearer header, or the 401 it earns: missing (also for another scheme) or malformed. */
function bearerToken(authorization: string | undefined): string {
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (!match) throw errors.missingApiKey();
  const token = match[1];
  if (!token.startsWith(LIVE_PREFIX) && !token.startsWith(TEST_PREFIX)) throw errors.malformedApiKey();
  return token;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function newKeyMaterial(mode: keys.KeyMode) {
  const key = `${mode === 'live' ? LIVE_PREFIX : TEST_PREFIX}${randomBase62(KEY_SECRET_LENGTH)}`;
  return { key, keyHash: hashApiKey(key), hint: key.slice(-4) };
}

/** What every /v1 handler knows about its caller once the key is checked. */
export interface VenueContext {
  venueId: string;
  liveVenueId: string;
  slug: string;
  keyId: string;
  mode: keys.KeyMode;
  readOnly: boolean;
  plan: Plan;
  planDefinition: PlanDefinition;
  subscriptionStatus: SubscriptionStatus;
  currency: string;
  defaultLanguage: string;
}

/** Shared by every request with the same key until the next write: never mutated. */
function venueContext(row: keys.KeyContextRow): VenueContext {
  return Object.freeze({
    venueId: row.venue_id,
    liveVenueId: row.live_venue_id,
    slug: row.slug,
    keyId: row.key_id,
    mode: row.mode,
    readOnly: row.read_only,
    plan: row.plan,
    planDefinition: PLAN_DEFINITIONS[row.plan],
    subscriptionStatus: row.subscription_status,
    currency: row.currency,
    defaultLanguage: row.default_language,
  });
}

function created(row: keys.ApiKeyRow, key: string): ApiKeyCreatedView {
  return {
    id: row.id,
    key,
    mode: row.mode,
    readOnly: row.read_only,
    label: row.label,
    createdAt: row.created_at.toISOString(),
  };
}

function summary(row: keys.ApiKeyRow): ApiKeySummaryView {
  return {
    id: row.id,
    mode: row.mode,
    readOnly: row.read_only,
    label: row.label,
    hint: row.hint,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

/** Distinct Authorization headers whose key hash is kept; past it the map starts over (it only saves a parse and a sha256). */
const MAX_HASHED_TOKENS = 10_000;

export class ApiKeysService {
  private readonly contexts: EpochMemo<VenueContext | null>;
  // Authorization header -> the key's sha256: a hot client sends the same key on every request, and
  // hashing it is most of what a cached authentication costs. Only the hash is ever compared with
  // the database.
  private readonly hashes = new Map<string, string>();

  constructor(private readonly db: Database) {
    this.contexts = new EpochMemo(db);
  }

  async create(venueId: string, input: ApiKeyCreateInput): Promise<ApiKeyCreatedView> {
    if (!(await findVenue(this.db, venueId))) throw errors.venueNotFound();
    const material = newKeyMaterial(input.mode);
    const row = await keys.insertApiKey(this.db, venueId, {
      id: uuidv7(),
      mode: input.mode,
      readOnly: input.readOnly ?? false,
      label: input.label ?? null,
      keyHash: material.keyHash,
      hint: material.hint,
    });
    return created(row, material.key);
  }

  async list(venueId: string): Promise<{ items: ApiKeySummaryView[] }> {
    if (!(await findVenue(this.db, venueId))) throw errors.venueNotFound();
    return { items: (await keys.listApiKeys(this.db, venueId)).map(summary) };
  }

  /** A new secret for the same key record; the old secret is invalid from this statement on. */
  async regenerate(keyId: string): Promise<ApiKeyCreatedView> {
    const existing = await keys.findApiKeyById(this.db, keyId);
    if (!existing || existing.revoked_at) throw errors.apiKeyNotFound();
    const material = newKeyMaterial(existing.mode);
    const row = await keys.replaceApiKeyHash(this.db, existing.venue_id, keyId, material.keyHash, material.hint);
    if (!row) throw errors.apiKeyNotFound();
    return created(row, material.key);
  }

  async revoke(keyId: string): Promise<void> {
    const existing = await keys.findApiKeyById(this.db, keyId);
    if (!existing) throw errors.apiKeyNotFound();
    await keys.revokeApiKey(this.db, existing.venue_id, keyId);
  }

  /**
   * The key's venue while it is memoised, checked as `authenticate` checks it (its errors thrown),
   * else undefined (then `authenticate`): the request gate admits a hot request in the turn that
   * read it.
   */
  peek(authorization: string | undefined): VenueContext | undefined {
    const known = authorization === undefined ? undefined : this.hashes.get(authorization);
    if (known === undefined) return undefined;
    const venue = this.contexts.peek(known);
    return venue === undefined ? undefined : this.admitted(authorization, known, known, venue);
  }

  /**
   * The three 401s, then the subscription check. Read-only and plan gates depend on
   * the route and are applied by the auth plugin.
   */
  async authenticate(authorization: string | undefined): Promise<VenueContext> {
    // The header as sent, not the token parsed out of it: a client sends the same header on every
    // request, so a known one skips the parse as well as the sha256.
    const known = authorization === undefined ? undefined : this.hashes.get(authorization);
    const keyHash = known ?? hashApiKey(bearerToken(authorization));
    // Scoped to the venue the key acts on. A test key's row belongs to the live venue, outside that
    // scope: key writes (create, regenerate, revoke) therefore stay unscoped and move every memo.
    const venue = await this.contexts.get(
      keyHash,
      (venue) => (venue ? { venueId: venue.venueId } : undefined),
      async () => {
        const row = await keys.findKeyContextByHash(this.db, keyHash);
        return row && venueContext(row);
      },
    );
    return this.admitted(authorization, known, keyHash, venue);
  }

  private admitted(
    authorization: string | undefined,
    known: string | undefined,
    keyHash: string,
    venue: VenueContext | null,
  ): VenueContext {
    if (!venue) throw errors.invalidApiKey();
    // Only keys that exist are remembered: made-up tokens cannot fill the map (or keep it busy).
    if (known === undefined && authorization !== undefined) {
      if (this.hashes.size >= MAX_HASHED_TOKENS) this.hashes.clear();
      this.hashes.set(authorization, keyHash);
    }
    requireActiveSubscription(venue.subscriptionStatus);
    return venue;
  }
}
