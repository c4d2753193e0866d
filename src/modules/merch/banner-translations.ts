import type { Queryable } from '../../db/port.js';
import { isUuid } from '../../ids.js';
import type { AuditRecord } from '../audit/index.js';
import { locales, type TranslationsApplied, mergeTranslations, type TranslationsInput } from '../menu/index.js';
import { findBannersByIds, updateBannerTranslations, type BannerRow } from './banners.repository.js';

/** Merges banners' translations (PUT /v1/translations) in the caller's transaction: banners act live, no draft moves. */
export async function translateBanners(
  tx: Queryable,
  venueId: string,
  entries: NonNullable<TranslationsInput['banners']>,
): Promise<TranslationsApplied> {
  if (entries.length === 0) return { applied: 0, notFound: [], records: [] };
  let applied = 0;
  const notFound: string[] = [];
  const banners = new Map((await findBannersByIds(tx, venueId, entries.map((e) => e.id).filter(isUuid))).map((b) => [b.id, b]));
  const updates = new Map<string, { id: string; translations: BannerRow['translations'] }>();
  for (const e of entries) {
    const banner = banners.get(e.id.toLowerCase());
    if (!banner) {
      notFound.push(`banner:${e.id}`);
      continue;
    }
    updates.set(banner.id, {
      id: banner.id,
      translations: mergeTranslations(updates.get(banner.id)?.translations ?? banner.translations, e.translations),
    });
    applied += Object.keys(e.translations).length;
  }
  await updateBannerTranslations(tx, venueId, [...updates.values()]);
  const records: AuditRecord[] =
    updates.size > 0
      ? [{ action: 'banner.translations', entityType: 'banner', changes: { count: updates.size, locales: locales(entries) } }]
      : [];
  return { applied, notFound, records };
}
