import type { Config } from '../../config.js';
import { DeadlineExceededError, type Database, type Queryable } from '../../db/port.js';
import { errors, type BulkLimitCode } from '../../errors.js';
import { uuidv7 } from '../../ids.js';
import { audit, type Actor } from '../audit/audit.service.js';
import { countUsage } from '../reference/usage.repository.js';
import { readSettings } from '../settings/settings.service.js';
import * as menu from './menu.repository.js';
import type { SyncInput, SyncResult } from './menu.schemas.js';
import { planSync, productHashes, referencedExternalIds, type SectionName, type SyncPlan } from './sync.planner.js';

const LIMIT_CODES: Record<SectionName, BulkLimitCode> = {
  categories: 'CATEGORY_BULK_LIMIT_EXCEEDED',
  ingredients: 'INGREDIENT_BULK_LIMIT_EXCEEDED',
  products: 'PRODUCT_BULK_LIMIT_EXCEEDED',
};

/**
 * Field rules the schema cannot express (decisions section 3): one schedule entry per day, and
 * opening hours required on open days. Like the schema, a violation rejects the whole request.
 */
export function scheduleErrors(input: SyncInput): string[] {
  const out: string[] = [];
  (input.categories ?? []).forEach((c, ci) => {
    const seen = new Set<string>();
    (c.schedule ?? []).forEach((entry, ei) => {
      const path = `categories[${ci}].schedule[${ei}]`;
      if (seen.has(entry.day)) out.push(`${path}.day '${entry.day}' appears more than once`);
      seen.add(entry.day);
      if (entry.isOpen && (!entry.openTime || !entry.closeTime)) out.push(`${path} needs openTime and closeTime when isOpen is true`);
    });
  });
  return out;
}

/** Spec 4.1 rule 9: new items only, against everything stored (hidden products included). */
async function checkPlanLimits(tx: Queryable, actor: Actor, plan: SyncPlan): Promise<void> {
  const usage = await countUsage(tx, actor.venue.venueId);
  const limits = actor.venue.planDefinition.limits;
  const caps: Record<SectionName, number> = {
    categories: limits.maxCategories,
    ingredients: limits.maxIngredients,
    products: limits.maxProducts,
  };
  for (const section of ['categories', 'ingredients', 'products'] as const) {
    const requested = plan.creates[section];
    if (requested > 0 && usage[section] + requested > caps[section]) {
      throw errors.bulkLimit(LIMIT_CODES[section], {
        limit: caps[section],
        available: Math.max(0, caps[section] - usage[section]),
        requested,
      });
    }
  }
}

/**
 * The products a sync names: their light rows first; the full rows only of those whose stored
 * sync hash differs from the item's (an unchanged catalogue re-sent reads no product data).
 */
async function loadProducts(
  tx: Queryable,
  venueId: string,
  input: SyncInput,
  categories: menu.CategoryRow[],
  ingredients: menu.IngredientRow[],
): Promise<{ unchanged: Set<string>; products: menu.ProductRow[] }> {
  const externalIds = [...new Set((input.products ?? []).map((p) => p.externalId))];
  const keys = await menu.findProductKeysByExternalIds(tx, venueId, externalIds);
  if (keys.length === 0) return { unchanged: new Set(), products: [] };
  // Refs the request itself creates resolve to markers no stored hash contains.
  const categoryIds = new Map(categories.map((c) => [c.external_id as string, c.id]));
  for (const c of input.categories ?? []) if (!categoryIds.has(c.externalId)) categoryIds.set(c.externalId, `new:${c.externalId}`);
  const ingredientIds = new Map(ingredients.map((i) => [i.external_id as string, i.id]));
  for (const i of input.ingredients ?? []) if (!ingredientIds.has(i.externalId)) ingredientIds.set(i.externalId, `new:${i.externalId}`);
  const hashes = productHashes(input, categoryIds, ingredientIds);
  const unchanged = new Set(
    keys.filter((k) => k.sync_hash !== null && k.cleaned_up_at === null && hashes.get(k.external_id) === k.sync_hash).map((k) => k.external_id),
  );
  const changed = keys.filter((k) => !unchanged.has(k.external_id)).map((k) => k.external_id);
  return { unchanged, products: await menu.findProductsByExternalIds(tx, venueId, changed) };
}

function mapBy<T extends { external_id: string | null }>(rows: T[]): Map<string, T> {
  return new Map(rows.map((r) => [r.external_id as string, r]));
}

export class SyncService {
  constructor(
    private readonly db: Database,
    private readonly config: Config,
  ) {}

  async sync(actor: Actor, input: SyncInput, options: { dryRun: boolean }): Promise<SyncResult> {
    const invalid = scheduleErrors(input);
    if (invalid.length > 0) throw errors.validation(invalid);
    const venueId = actor.venue.venueId;
    const windowMs = this.config.syncTimeoutMs;
    try {
      // Spec 4.1 rules 2 and 11: one transaction, bounded by the sync window.
      return await this.db.transaction(
        async (tx) => {
          await menu.lockMenu(tx, venueId);
          const settings = await readSettings(tx, venueId);
          const refs = referencedExternalIds(input);
          // One after another: a transaction is one connection, and node-postgres deprecates
          // queueing a query on a client that is still running one (removed in pg@9).
          const categories = await menu.findCategoriesByExternalIds(tx, venueId, refs.categories);
          const ingredients = await menu.findIngredientsByExternalIds(tx, venueId, refs.ingredients);
          const { unchanged, products } = await loadProducts(tx, venueId, input, categories, ingredients);
          const plan = planSync(
            input,
            { categories: mapBy(categories), ingredients: mapBy(ingredients), products: mapBy(products), unchangedProducts: unchanged },
            { enabledLanguages: new Set(settings.enabledLanguages), newId: uuidv7 },
          );
          await checkPlanLimits(tx, actor, plan);

          if (!options.dryRun) {
            await menu.upsertCategories(tx, venueId, plan.writes.categories as menu.CategoryRow[]);
            await menu.upsertIngredients(tx, venueId, plan.writes.ingredients as menu.IngredientRow[]);
            await menu.upsertProducts(tx, venueId, plan.writes.products);
            const changed = plan.writes.categories.length + plan.writes.ingredients.length + plan.writes.products.length;
            if (changed > 0) await menu.bumpDraftVersion(tx, venueId);
            await audit(tx, actor, [{ action: 'menu.sync', entityType: 'menu', changes: auditSummary(plan) }]);
          }
          return {
            success: true,
            ...plan.sections,
            warnings: plan.warnings,
            translations: { applied: plan.translationsApplied },
            ...(options.dryRun ? { dryRun: true } : {}),
            syncedAt: new Date().toISOString(),
          };
        },
        { deadline: Date.now() + windowMs },
      );
    } catch (err) {
      if (err instanceof DeadlineExceededError) throw errors.syncTooLarge(windowMs);
      throw err;
    }
  }
}

/** Counts only (spec 2.8): never names, prices or other values. */
function auditSummary(plan: SyncPlan): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(plan.sections)) {
    changes[name] = { created: s.created, updated: s.updated, skipped: s.skipped, errors: s.errors.length, warnings: s.warnings.length };
  }
  changes.translations = { applied: plan.translationsApplied };
  return changes;
}
