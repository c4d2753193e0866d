import type { Queryable } from '../../db/port.js';
import { isUuid } from '../../ids.js';
import type { AuditAction } from '../../operations.js';
import type { AuditRecord } from '../audit/index.js';
import type { TranslationsInput } from './translations.schemas.js';
import * as menu from './menu.repository.js';
import { mergeTranslations } from './translations.js';

type Table = 'products' | 'categories' | 'ingredients';
const ENTITY: Record<Table, { kind: string; action: AuditAction }> = {
  products: { kind: 'product', action: 'product.translations' },
  categories: { kind: 'category', action: 'category.translations' },
  ingredients: { kind: 'ingredient', action: 'ingredient.translations' },
};

/** What a translations write did to one module's tables: its count, misses and audit records. */
export interface TranslationsApplied {
  applied: number;
  notFound: string[];
  records: AuditRecord[];
}

/** The locales named by a section's entries, for the audit record. */
export function locales(entries: { translations: object }[]): string[] {
  return [...new Set(entries.flatMap((e) => Object.keys(e.translations)))].sort();
}

/**
 * Merges the draft menu's translations of PUT /v1/translations (merge semantics) in the
 * caller's transaction, which holds the menu's lock; a change moves the draft version.
 */
export async function translateDraft(tx: Queryable, venueId: string, input: TranslationsInput): Promise<TranslationsApplied> {
  let applied = 0;
  const notFound: string[] = [];
  const records: AuditRecord[] = [];
  for (const table of ['products', 'categories', 'ingredients'] as const) {
    const entries = input[table];
    if (!entries?.length) continue;
    const refs = [...new Set(entries.map((e) => e.ref))];
    const rows = await menu.findByRefs<{ id: string; external_id: string | null; translations: menu.ProductRow['translations'] }>(
      tx,
      venueId,
      table,
      refs,
      refs.filter(isUuid),
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
      records.push({
        action: ENTITY[table].action,
        entityType: ENTITY[table].kind,
        changes: { count: updates.size, locales: locales(entries) },
      });
    }
  }

  const groupEntries = input.modifierGroups ?? [];
  if (groupEntries.length > 0) {
    const products = await menu.findProductsByGroupIds(
      tx,
      venueId,
      groupEntries.map((e) => e.id),
    );
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
    await menu.updateModifierGroups(
      tx,
      venueId,
      [...touched].map((p) => ({ id: p.id, modifier_groups: p.modifier_groups })),
    );
    if (count > 0)
      records.push({
        action: 'modifier_group.translations',
        entityType: 'modifier_group',
        changes: { count, locales: locales(groupEntries) },
      });
  }

  if (records.length > 0) await menu.bumpDraftVersion(tx, venueId);
  return { applied, notFound, records };
}
