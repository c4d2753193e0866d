import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { assertIfMatch, etagOf } from '../../shared/etag.js';
import { audit, type Actor } from '../audit/index.js';
import type { MediaUrls } from '../media/index.js';
import { findSettings, saveSettings, type SettingsRow } from './settings.repository.js';
import { PAUSE_MAX_AHEAD_MS } from '../../limits.js';
import { openingHoursProblems } from '../../shared/opening-hours.js';
import { AA_CONTRAST, contrastRatio } from '../../shared/contrast.js';
import { instantOf } from '../../shared/timestamps.js';
import {
  DEFAULT_ORDER_CONFIG,
  ORDER_CONFIG_ANY_PLAN,
  type OpeningHoursValue,
  type OrderConfigValue,
  type SettingsCore,
  type SettingsPatchInput,
  type SettingsView,
  type ThemeValue,
} from './settings.schemas.js';

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The enabled languages as stored (none yet: just the default), the default always among them. */
export function effectiveLanguages(defaultLanguage: string, stored: string[] | null): string[] {
  const enabled = stored ?? [defaultLanguage];
  return enabled.includes(defaultLanguage) ? enabled : [defaultLanguage, ...enabled];
}

/** The stored order settings over the defaults. */
export function effectiveOrderConfig(stored: Partial<OrderConfigValue> | null): OrderConfigValue {
  return {
    ...DEFAULT_ORDER_CONFIG,
    ...(stored ?? {}),
    scheduledOrders: { ...DEFAULT_ORDER_CONFIG.scheduledOrders, ...(stored?.scheduledOrders ?? {}) },
  };
}

/** The next order settings: the patch merged into the current ones field by field. */
function mergeOrderConfig(current: OrderConfigValue, patch: SettingsPatchInput['orderConfig']): OrderConfigValue {
  if (!patch) return current;
  const { scheduledOrders, pausedUntil, ...plain } = patch;
  return {
    ...current,
    ...plain,
    ...(pausedUntil !== undefined ? { pausedUntil: pausedUntil === null ? null : instantOf(pausedUntil).toISOString() } : {}),
    scheduledOrders: { ...current.scheduledOrders, ...(scheduledOrders ?? {}) },
  };
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
    openingHours: row.opening_hours,
    theme: { accentColor: row.theme?.accentColor ?? null },
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
    /** The time a pause is checked against (tests move it). */
    private readonly clock: () => number = Date.now,
  ) {}

  /** Checks that need no stored state: the timezone, the pause, the opening hours. */
  private problems(patch: SettingsPatchInput): string[] {
    const out: string[] = [];
    if (patch.timezone !== undefined && !isValidTimeZone(patch.timezone)) out.push('timezone must be an IANA time zone (e.g. Europe/Kyiv)');
    const paused = patch.orderConfig?.pausedUntil;
    if (paused !== undefined && paused !== null && Date.parse(paused) > this.clock() + PAUSE_MAX_AHEAD_MS) {
      out.push('orderConfig.pausedUntil must be at most 24 hours ahead');
    }
    if (patch.openingHours) {
      out.push(...openingHoursProblems({ weekly: patch.openingHours.weekly ?? [], exceptions: patch.openingHours.exceptions ?? [] }));
    }
    const accent = patch.theme?.accentColor;
    if (accent && contrastRatio(accent, '#ffffff') < AA_CONTRAST) {
      out.push(
        `theme.accentColor must have a contrast of at least ${AA_CONTRAST}:1 against white (got ${contrastRatio(accent, '#ffffff').toFixed(2)}:1)`,
      );
    }
    return out;
  }

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
    const deliveryFields = Object.keys(patch.orderConfig ?? {}).filter((k) => !(ORDER_CONFIG_ANY_PLAN as readonly string[]).includes(k));
    if (deliveryFields.length > 0 && !venue.planDefinition.features.hasDelivery) throw errors.deliveryNotAvailable();
    const problems = this.problems(patch);
    if (problems.length > 0) throw errors.validation(problems);
    return this.db.transaction(
      async (tx) => {
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
          orderConfig: mergeOrderConfig(current.orderConfig, patch.orderConfig),
          openingHours: nextOpeningHours(current.openingHours, patch.openingHours),
          theme: nextTheme(current.theme, patch.theme),
        };
        const fields = changedFields(current, next);
        if (fields.length === 0) return withEtag(current);
        await saveSettings(tx, venue.venueId, next);
        await audit(tx, actor, [{ action: 'settings.update', entityType: 'settings', entityRef: null, changes: { fields } }]);
        return withEtag(await this.read(tx, venue.venueId));
      },
      { venueId: venue.venueId },
    );
  }
}

/** Opening hours after a patch: null clears them; a section sent replaces that section. */
function nextOpeningHours(current: OpeningHoursValue | null, patch: SettingsPatchInput['openingHours']): OpeningHoursValue | null {
  if (patch === undefined) return current;
  if (patch === null) return null;
  return { weekly: patch.weekly ?? current?.weekly ?? [], exceptions: patch.exceptions ?? current?.exceptions ?? [] };
}

/** The theme after a patch: a field sent replaces it, a colour is kept in lower case. */
function nextTheme(current: ThemeValue, patch: SettingsPatchInput['theme']): ThemeValue {
  if (patch?.accentColor === undefined) return current;
  return { accentColor: patch.accentColor === null ? null : patch.accentColor.toLowerCase() };
}

function changedFields(current: SettingsCore, next: Omit<SettingsCore, 'updatedAt' | 'currency'>): string[] {
  const fields: string[] = [];
  for (const key of ['name', 'defaultLanguage', 'enabledLanguages', 'cardStyle', 'timezone', 'openingHours', 'theme'] as const) {
    if (JSON.stringify(current[key]) !== JSON.stringify(next[key])) fields.push(key);
  }
  for (const key of Object.keys(next.orderConfig) as (keyof typeof next.orderConfig)[]) {
    if (JSON.stringify(current.orderConfig[key]) !== JSON.stringify(next.orderConfig[key])) fields.push(`orderConfig.${key}`);
  }
  return fields;
}
