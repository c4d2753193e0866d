import { LANGUAGES } from '../../shared/catalog.js';
import type { StoredTranslations } from './translations.schemas.js';

export type TranslationErrorCode = 'INVALID_LOCALE' | 'LOCALE_NOT_ENABLED' | 'EMPTY_TRANSLATION';

export interface TranslationProblem {
  code: TranslationErrorCode;
  message: string;
}

const SUPPORTED = new Set<string>(LANGUAGES);

/**
 * The checks for one entity's translations: the locale is supported and enabled, and no
 * locale is `{}` or holds a whitespace-only value (an empty string is allowed: it clears).
 */
export function checkTranslations(
  input: Record<string, Record<string, string | undefined>> | undefined,
  enabled: ReadonlySet<string>,
): TranslationProblem | null {
  if (!input) return null;
  for (const [locale, fields] of Object.entries(input)) {
    if (!SUPPORTED.has(locale)) return { code: 'INVALID_LOCALE', message: `locale '${locale}' is not supported` };
    if (!enabled.has(locale)) {
      return { code: 'LOCALE_NOT_ENABLED', message: `locale '${locale}' is not enabled for this venue (settings.enabledLanguages)` };
    }
    const values = Object.entries(fields).filter(([, v]) => v !== undefined);
    if (values.length === 0) return { code: 'EMPTY_TRANSLATION', message: `locale '${locale}' has no fields` };
    for (const [field, value] of values) {
      if (value !== '' && value!.trim() === '') {
        return { code: 'EMPTY_TRANSLATION', message: `${locale}.${field} is blank (send "" to clear it)` };
      }
    }
  }
  return null;
}

/** Merge semantics: omitted keeps, a value sets, "" clears. */
export function mergeTranslations(
  stored: StoredTranslations,
  input: Record<string, Record<string, string | undefined>> | undefined,
): StoredTranslations {
  if (!input) return stored;
  const out: StoredTranslations = {};
  for (const [locale, fields] of Object.entries(stored)) out[locale] = { ...fields };
  for (const [locale, fields] of Object.entries(input)) {
    const merged = { ...(out[locale] ?? {}) };
    for (const [field, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      if (value === '') delete merged[field];
      else merged[field] = value;
    }
    if (Object.keys(merged).length === 0) delete out[locale];
    else out[locale] = merged;
  }
  return out;
}

/** How many locale entries an input writes (the `translations.applied` count). */
export function localeCount(input: Record<string, unknown> | undefined): number {
  return input ? Object.keys(input).length : 0;
}
