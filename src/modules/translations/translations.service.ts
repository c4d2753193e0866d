import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { isUuid } from '../../ids.js';
import type { AuditAction } from '../../operations.js';
import { audit, type Actor, type AuditRecord } from '../audit/audit.service.js';
import * as menu from '../menu/menu.repository.js';
import { findBannersByIds, updateBannerTranslations } from '../merch/banners.repository.js';
import { checkTranslations, mergeTranslations } from '../menu/translations.js';
import { readSettings } from '../settings/settings.service.js';
import type { TranslationsInput, TranslationsResult } from './translations.schemas.js';

type Table = 'products' | 'categories' | 'ingredients';
const ENTITY: Record<Table, { label: string; kind: string; action: AuditAction }> = {
  products: { label: 'Product', kind: 'product', action: 'product.translations' },
  categories: { label: 'Category', kind: 'category', action: 'category.translations' },
  ingredients: { label: 'Ingredient', kind: 'ingredient', action: 'ingredient.translations' },
};

function locales(entries: { translations: object }[]): string[] {
  return [...new Set(entries.flatMap((e) => Object.keys(e.translations)))].sort();
}

/** PUT /v1/translations (decisions section 6): all or nothing, merge semantics of spec 2.6. */
export class TranslationsService {
  constructor(private readonly db: Database) {}

  async put(actor: Actor, input: TranslationsInput): Promise<TranslationsResult> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(async (tx) => {
      const settings = await readSettings(tx, venueId);
      const enabled = new Set(settings.enabledLanguages);
      const check = (label: string, t: Record<string, Record<string, string | undefined>>) => {
        const problem = checkTranslations(t, enabled);
        if (problem) throw errors.translation(problem.code, `${label}: ${problem.message}`);
      };
      for (const table of ['products', 'categories', 'ingredients'] as const) {
        for (const e of input[table] ?? []) check(`${ENTITY[table].label} ${e.ref}`, e.translations);
      }
      for (const e of input.modifierGroups ?? []) check(`Modifier group ${e.id}`, e.translations);
      for (const e of input.banners ?? []) check(`Banner ${e.id}`, e.translations);

      await menu.lockMenu(tx, venueId);
      let applied = 0;
      const notFound: string[] = [];
      const records: AuditRecord[] = [];

      for (const table of ['products', 'categories', 'ingredients'] as const) {
        const entries = input[table];
        if (!entries?.length) continue;
        const refs = [...new Set(entries.map((e) => e.ref))];
        const rows = await menu.findByRefs<{ id: string; external_id: string | null; translations: menu.ProductRow['translations'] }>(
          tx, venueId, table, refs, refs.filter(isUuid),
        );
        const byRef = new Map<string, (typeof rows)[number]>();
        for (const r of rows) if (r.external_id) byRef.set(r.external_id, r);
        for (const r of rows) byRef.set(r.id, r);
        const updates = new Map<string, { id: string; translations: menu.ProductRow['translations'] }>();
        for (const e of entries) {
          const row = byRef.get(e.ref);
          if (!row) {
            notFound.push(`${ENTITY[table].kind}:${e.ref}`);
            continue;
          }
          const base = updates.get(row.id)?.translations ?? row.translations;
          updates.set(row.id, { id: row.id, translations: mergeTranslations(base, e.translations) });
          applied += Object.keys(e.translations).length;
        }
        await menu.updateTranslations(tx, venueId, table, [...updates.values()]);
        if (updates.size > 0) {
          records.push({ action: ENTITY[table].action, entityType: ENTITY[table].kind, changes: { count: updates.size, locales: locales(entries) } });
        }
      }

      const groupEntries = input.modifierGroups ?? [];
      if (groupEntries.length > 0) {
        const products = await menu.findProductsByGroupIds(tx, venueId, groupEntries.map((e) => e.id));
        const owner = new Map(products.flatMap((p) => p.modifier_groups.map((g) => [g.id, p] as const)));
        const touched = new Set<menu.ProductRow>();
        let count = 0;
        for (const e of groupEntries) {
          const product = owner.get(e.id);
          const group = product?.modifier_groups.find((g) => g.id === e.id);
          if (!product || !group) {
            notFound.push(`modifierGroup:${e.id}`);
            continue;
          }
          group.translations = mergeTranslations(group.translations, e.translations);
          touched.add(product);
          applied += Object.keys(e.translations).length;
          count += 1;
        }
        await menu.updateModifierGroups(tx, venueId, [...touched].map((p) => ({ id: p.id, modifier_groups: p.modifier_groups })));
        if (count > 0) records.push({ action: 'modifier_group.translations', entityType: 'modifier_group', changes: { count, locales: locales(groupEntries) } });
      }

      // Banners act live (docs/merchandising.md): their translations change no draft.
      const bannerEntries = input.banners ?? [];
      if (bannerEntries.length > 0) {
        const banners = new Map((await findBannersByIds(tx, venueId, bannerEntries.map((e) => e.id).filter(isUuid))).map((b) => [b.id, b]));
        const updates = new Map<string, { id: string; translations: menu.ProductRow['translations'] }>();
        for (const e of bannerEntries) {
          const banner = banners.get(e.id.toLowerCase());
          if (!banner) {
            notFound.push(`banner:${e.id}`);
            continue;
          }
          updates.set(banner.id, { id: banner.id, translations: mergeTranslations(updates.get(banner.id)?.translations ?? banner.translations, e.translations) });
          applied += Object.keys(e.translations).length;
        }
        await updateBannerTranslations(tx, venueId, [...updates.values()]);
        if (updates.size > 0) records.push({ action: 'banner.translations', entityType: 'banner', changes: { count: updates.size, locales: locales(bannerEntries) } });
      }

      if (records.length > 0) {
        if (records.some((r) => r.entityType !== 'banner')) await menu.bumpDraftVersion(tx, venueId);
        await audit(tx, actor, records);
      }
      return { applied, notFound };
    }, { scope: { venueId } });
  }
}
