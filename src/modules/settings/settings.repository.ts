import type { Queryable } from '../../db/port.js';
import type { StoredImage } from '../media/index.js';
import type { OpeningHoursValue, OrderConfigValue, ThemeValue } from './settings.schemas.js';

export interface SettingsRow {
  name: string;
  currency: string;
  default_language: string;
  /** null until the venue first saves settings: the defaults apply. */
  enabled_languages: string[] | null;
  card_style: string | null;
  timezone: string | null;
  order_config: Partial<OrderConfigValue> | null;
  opening_hours: OpeningHoursValue | null;
  theme: Partial<ThemeValue> | null;
  logo: StoredImage | null;
  updated_at: Date;
}

export async function findSettings(db: Queryable, venueId: string, options: { forUpdate?: boolean } = {}): Promise<SettingsRow | null> {
  const { rows } = await db.query<SettingsRow>(
    `select v.name, v.currency, v.default_language, s.enabled_languages, s.card_style, s.timezone, s.order_config, s.opening_hours, s.theme, s.logo,
            greatest(v.updated_at, s.updated_at) as updated_at
     from venues v left join venue_settings s on s.venue_id = v.id
     where v.id = $1${options.forUpdate ? ' for update of v' : ''}`,
    [venueId],
  );
  return rows[0] ?? null;
}

export interface SettingsWrite {
  name: string;
  defaultLanguage: string;
  enabledLanguages: string[];
  cardStyle: string;
  timezone: string;
  orderConfig: OrderConfigValue;
  openingHours: OpeningHoursValue | null;
  theme: ThemeValue;
}

export async function saveSettings(db: Queryable, venueId: string, s: SettingsWrite): Promise<void> {
  await db.query(
    `with v as (update venues set name = $2, default_language = $3, updated_at = now() where id = $1)
     insert into venue_settings (venue_id, enabled_languages, card_style, timezone, order_config, opening_hours, theme)
     values ($1, $4::text[], $5, $6, $7::jsonb, $8::jsonb, $9::jsonb)
     on conflict (venue_id) do update set enabled_languages = excluded.enabled_languages, card_style = excluded.card_style,
       timezone = excluded.timezone, order_config = excluded.order_config, opening_hours = excluded.opening_hours,
       theme = excluded.theme, revision = venue_settings.revision + 1, updated_at = now()`,
    [
      venueId,
      s.name,
      s.defaultLanguage,
      s.enabledLanguages,
      s.cardStyle,
      s.timezone,
      JSON.stringify(s.orderConfig),
      s.openingHours === null ? null : JSON.stringify(s.openingHours),
      JSON.stringify(s.theme),
    ],
  );
}

export async function findLogo(db: Queryable, venueId: string): Promise<StoredImage | null> {
  const { rows } = await db.query<{ logo: StoredImage | null }>('select logo from venue_settings where venue_id = $1', [venueId]);
  return rows[0]?.logo ?? null;
}

/**
 * Sets (or clears) the venue's logo. The settings row is made on first use with the defaults a
 * missing row stands for; its updatedAt moves, so settings and guest reads refresh.
 */
export async function setLogo(db: Queryable, venueId: string, image: StoredImage | null): Promise<void> {
  await db.query(
    `insert into venue_settings (venue_id, enabled_languages, logo)
     select v.id, array[v.default_language], $2::jsonb from venues v where v.id = $1
     on conflict (venue_id) do update set logo = excluded.logo, revision = venue_settings.revision + 1, updated_at = now()`,
    [venueId, image === null ? null : JSON.stringify(image)],
  );
}
