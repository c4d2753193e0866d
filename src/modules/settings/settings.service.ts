import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { assertIfMatch, etagOf } from '../../shared/etag.js';
import { audit, type Actor } from '../audit/audit.service.js';
import type { MediaUrls } from '../media/stored-image.js';
import { findSettings, saveSettings, type SettingsRow } from './settings.repository.js';
import { DEFAULT_ORDER_CONFIG, type OrderConfigValue, type SettingsCore, type SettingsPatchInput, type SettingsView } from './settings.schemas.js';

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The enabled languages as stored (none yet: just the default), the default always among them (decisions 6). */
export function effectiveLanguages(defaultLanguage: string, stored: string[] | null): string[] {
  const enabled = stored ?? [defaultLanguage];
  return enabled.includes(defaultLanguage) ? enabled : [defaultLanguage, ...enabled];
}

/** The stored order settings over the defaults of decisions section 6. */
export function effectiveOrderConfig(stored: Partial<OrderConfigValue> | null): OrderConfigValue {
  return { ...DEFAULT_ORDER_CONFIG, ...(stored ?? {}) };
}

function view(row: SettingsRow): SettingsCore {
  return {
    name: row.name,
    currency: row.currency,
    defaultLanguage: row.default_language,
    enabledLanguages: effectiveLanguages(row.default_language, row.enabled_languages),
    cardStyle: row.card_style ?? 'minimalism',
    timezone: row.timezone ?? 'UTC',
    orderConfig: effectiveOrderConfig(row.order_config),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface SettingsRead {
  settings: SettingsView;
  etag: string;
}

function withEtag(settings: SettingsView): SettingsRead {
  return { settings, etag: etagOf(JSON.stringify(settings)) };
}

/** The venue's settings inside any transaction (sync reads the enabled languages). */
export async function readSettings(db: Queryable, venueId: string, options: { forUpdate?: boolean } = {}): Promise<SettingsCore> {
  const row = await findSettings(db, venueId, options);
  if (!row) throw errors.venueNotFound();
  return view(row);
}

export class SettingsService {
  constructor(
    private readonly db: Database,
    private readonly urls: MediaUrls,
  ) {}

  /** The settings read: the rules' settings and the logo (set through POST /v1/logo). */
  private async read(db: Queryable, venueId: string, options: { forUpdate?: boolean } = {}): Promise<SettingsView> {
    const row = await findSettings(db, venueId, options);
    if (!row) throw errors.venueNotFound();
    const logo = this.urls.view(venueId, row.logo);
    return { ...view(row), logoUrl: logo ? logo.imageUrl : null, logo };
  }

  async get(venueId: string): Promise<SettingsRead> {
    return withEtag(await this.read(this.db, venueId));
  }

  async update(actor: Actor, patch: SettingsPatchInput, ifMatch: string | undefined): Promise<SettingsRead> {
    const { venue } = actor;
    if (patch.orderConfig !== undefined && !venue.planDefinition.features.hasDelivery) throw errors.deliveryNotAvailable();
    if (patch.timezone !== undefined && !isValidTimeZone(patch.timezone)) {
      throw errors.validation(['timezone must be an IANA time zone (e.g. Europe/Kyiv)']);
    }
    return this.db.transaction(async (tx) => {
      const current = await this.read(tx, venue.venueId, { forUpdate: true });
      assertIfMatch(ifMatch, withEtag(current).etag);
      const defaultLanguage = patch.defaultLanguage ?? current.defaultLanguage;
      const requested = patch.enabledLanguages ?? current.enabledLanguages;
      const next = {
        name: patch.name ?? current.name,
        defaultLanguage,
        enabledLanguages: requested.includes(defaultLanguage) ? [...requested] : [defaultLanguage, ...requested],
        cardStyle: patch.cardStyle ?? current.cardStyle,
        timezone: patch.timezone ?? current.timezone,
        orderConfig: { ...current.orderConfig, ...(patch.orderConfig ?? {}) },
      };
      const fields = changedFields(current, next);
      if (fields.length === 0) return withEtag(current);
      await saveSettings(tx, venue.venueId, next);
      await audit(tx, actor, [{ action: 'settings.update', entityType: 'settings', entityRef: null, changes: { fields } }]);
      return withEtag(await this.read(tx, venue.venueId));
    }, { venueId: venue.venueId });
  }
}

function changedFields(current: SettingsCore, next: Omit<SettingsCore, 'updatedAt' | 'currency'>): string[] {
  const fields: string[] = [];
  for (const key of ['name', 'defaultLanguage', 'enabledLanguages', 'cardStyle', 'timezone'] as const) {
    if (JSON.stringify(current[key]) !== JSON.stringify(next[key])) fields.push(key);
  }
  for (const key of Object.keys(next.orderConfig) as (keyof typeof next.orderConfig)[]) {
    if (current.orderConfig[key] !== next.orderConfig[key]) fields.push(`orderConfig.${key}`);
  }
  return fields;
}
