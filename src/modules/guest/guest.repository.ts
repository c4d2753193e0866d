import type { Queryable } from '../../db/port.js';
import type { StoredImage } from '../media/index.js';
import type { Plan, SubscriptionStatus } from '../venues/index.js';
import type { OpeningHoursValue, OrderConfigValue, ThemeValue } from '../settings/index.js';

export interface GuestVenueRow {
  id: string;
  slug: string;
  name: string;
  plan: Plan;
  currency: string;
  default_language: string;
  subscription_status: SubscriptionStatus;
  enabled_languages: string[] | null;
  card_style: string | null;
  timezone: string | null;
  order_config: Partial<OrderConfigValue> | null;
  opening_hours: OpeningHoursValue | null;
  theme: Partial<ThemeValue> | null;
  logo: StoredImage | null;
  settings_updated_at: Date | null;
  latest_publication_id: string | null;
}

/**
 * The public entry point: a venue by its slug, with what a guest request needs (settings and
 * the latest publication) in one statement. A directory look-up by nature: the slug names the tenant.
 */
export async function findGuestVenue(db: Queryable, slug: string): Promise<GuestVenueRow | null> {
  const { rows } = await db.query<GuestVenueRow>(
    `select v.id, v.slug, v.name, v.plan, v.currency, v.default_language, v.subscription_status,
            s.enabled_languages, s.card_style, s.timezone, s.order_config, s.opening_hours, s.theme, s.logo, greatest(s.updated_at, v.updated_at) as settings_updated_at,
            m.latest_publication_id
     from venues v
     left join venue_settings s on s.venue_id = v.id
     left join menu_state m on m.venue_id = v.id
     where v.slug = $1`,
    [slug],
  );
  return rows[0] ?? null;
}
