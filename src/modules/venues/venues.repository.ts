import type { Queryable } from '../../db/port.js';
import type { Plan, SubscriptionStatus } from './plans.js';

export interface VenueRow {
  id: string;
  slug: string;
  name: string;
  plan: Plan;
  currency: string;
  default_language: string;
  subscription_status: SubscriptionStatus;
  created_at: Date;
  sandbox_id: string;
  sandbox_slug: string;
}

const SELECT_VENUE = `
  select v.id, v.slug, v.name, v.plan, v.currency, v.default_language, v.subscription_status, v.created_at,
         s.id as sandbox_id, s.slug as sandbox_slug
  from venues v join venues s on s.live_venue_id = v.id`;

export interface NewVenue {
  id: string;
  sandboxId: string;
  slug: string;
  sandboxSlug: string;
  name: string;
  plan: Plan;
  currency: string;
  defaultLanguage: string;
  subscriptionStatus: SubscriptionStatus;
}

/** The live venue and its sandbox twin, in one statement. */
export async function insertVenueWithSandbox(db: Queryable, v: NewVenue): Promise<void> {
  await db.query(
    `insert into venues (id, live_venue_id, slug, name, plan, currency, default_language, subscription_status)
     values ($1, null, $3, $5, $6, $7, $8, $9), ($2, $1, $4, $5, $6, $7, $8, $9)`,
    [v.id, v.sandboxId, v.slug, v.sandboxSlug, v.name, v.plan, v.currency, v.defaultLanguage, v.subscriptionStatus],
  );
}

/** A live venue by id (a sandbox id is not a venue an operator manages). */
export async function findVenue(db: Queryable, venueId: string): Promise<VenueRow | null> {
  const { rows } = await db.query<VenueRow>(`${SELECT_VENUE} where v.id = $1 and v.live_venue_id is null`, [venueId]);
  return rows[0] ?? null;
}

export async function slugsTaken(db: Queryable, slugs: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ slug: string }>('select slug from venues where slug = any($1::text[])', [slugs]);
  return new Set(rows.map((r) => r.slug));
}

export interface VenuePatch {
  name?: string;
  plan?: Plan;
  subscriptionStatus?: SubscriptionStatus;
}

/**
 * Updates the live venue and its sandbox together: the sandbox always has the live venue's plan
 * and subscription status. The sandbox keeps its own name.
 */
export async function updateVenue(db: Queryable, venueId: string, patch: VenuePatch): Promise<boolean> {
  const { rowCount } = await db.query(
    `update venues set
       name = case when id = $1 then coalesce($2, name) else name end,
       plan = coalesce($3, plan),
       subscription_status = coalesce($4, subscription_status),
       updated_at = now()
     where (id = $1 and live_venue_id is null) or live_venue_id = $1`,
    [venueId, patch.name ?? null, patch.plan ?? null, patch.subscriptionStatus ?? null],
  );
  return rowCount > 0;
}
