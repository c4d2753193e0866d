import type { Config } from '../../config.js';
import { DeadlineExceededError, type Database, type Queryable } from '../../db/port.js';
import { errors, type BulkLimitCode } from '../../errors.js';
import { uuidv7 } from '../../ids.js';
import { nextTurn } from '../../next-turn.js';
import { audit, type Actor } from '../audit/index.js';
import { planUsage } from '../reference/index.js';
import { readSettings } from '../settings/index.js';
import * as menu from './menu.repository.js';
import type { SectionResultValue, SyncInput, SyncResult } from './menu.schemas.js';
import { ItemDigestCache } from './item-digests.js';
import { planSyncSteps, productHashes, referencedExternalIds, type SectionName, type StoredState, type SyncPlan } from './sync.planner.js';
import { lockMenu } from '../../db/venue-locks.js';

const LIMIT_CODES: Record<SectionName, BulkLimitCode> = {
  categories: 'CATEGORY_BULK_LIMIT_EXCEEDED',
  ingredients: 'INGREDIENT_BULK_LIMIT_EXCEEDED',
  products: 'PRODUCT_BULK_LIMIT_EXCEEDED',
};

/**
 * Field rules the schema cannot express: one schedule entry per day, and
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

/** New items only, against everything stored (hidden products included). */
async function checkPlanLimits(tx: Queryable, actor: Actor, plan: SyncPlan): Promise<void> {
  const usage = await planUsage(tx, actor.venue.venueId);
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

/** The stored items whose sync hash equals the request item's: identical, so skipped unread. */
function unchangedOf(keys: menu.SyncKeyRow[], hashes: Map<string, string>): Set<string> {
  return new Set(keys.filter((k) => k.sync_hash !== null && hashes.get(k.external_id) === k.sync_hash).map((k) => k.external_id));
}

/** Last occurrence wins, as in the plan. */
function hashesOf<T extends { externalId: string }>(items: T[] | undefined, hash: (item: T) => string): Map<string, string> {
  return new Map((items ?? []).map((item) => [item.externalId, hash(item)]));
}

/** The stored items of a section the request sends but has not proven unchanged. */
function changedStored(keys: menu.SyncKeyRow[], items: { externalId: string }[] | undefined, unchanged: Set<string>): string[] {
  const sent = new Set((items ?? []).map((i) => i.externalId));
  return keys.filter((k) => sent.has(k.external_id) && !unchanged.has(k.external_id)).map((k) => k.external_id);
}

/**
 * What the plan needs of the stored menu, in a fixed number of statements: the light rows (ids
 * and sync hashes) of everything the request names or refers to, then the full rows only of the
 * items whose stored hash differs from the request's. An unchanged menu re-sent reads no row data.
 */
async function loadStored(tx: Queryable, venueId: string, input: SyncInput, digestOf: (item: object) => string): Promise<StoredState> {
  const refs = referencedExternalIds(input);
  // One after another: a transaction is one connection, and node-postgres deprecates queueing a
  // query on a client that is still running one (removed in pg@9).
  const categoryKeys = await menu.findSyncKeys(tx, venueId, 'categories', refs.categories);
  const ingredientKeys = await menu.findSyncKeys(tx, venueId, 'ingredients', refs.ingredients);
  const productKeys = await menu.findProductKeysByExternalIds(tx, venueId, refs.products);

  const categoryIds = new Map(categoryKeys.map((k) => [k.external_id, k.id]));
  const ingredientIds = new Map(ingredientKeys.map((k) => [k.external_id, k.id]));
  const unchanged = {
    categories: unchangedOf(categoryKeys, hashesOf(input.categories, digestOf)),
    ingredients: unchangedOf(ingredientKeys, hashesOf(input.ingredients, digestOf)),
    products: new Set<string>(),
  };
  if (productKeys.length > 0) {
    // Refs the request itself creates resolve to markers no stored hash contains.
    const refIds = (stored: Map<string, string>, items: { externalId: string }[] | undefined) => {
      const ids = new Map(stored);
      for (const { externalId } of items ?? []) if (!ids.has(externalId)) ids.set(externalId, `new:${externalId}`);
      return ids;
    };
    const hashes = productHashes(input, digestOf, refIds(categoryIds, input.categories), refIds(ingredientIds, input.ingredients));
    unchanged.products = unchangedOf(
      productKeys.filter((k) => k.cleaned_up_at === null),
      hashes,
    );
  }

  const byExternalId = <T extends { external_id: string | null }>(rows: T[]) => new Map(rows.map((r) => [r.external_id as string, r]));
  const categories = await menu.findCategoriesByExternalIds(
    tx,
    venueId,
    changedStored(categoryKeys, input.categories, unchanged.categories),
  );
  const ingredients = await menu.findIngredientsByExternalIds(
    tx,
    venueId,
    changedStored(ingredientKeys, input.ingredients, unchanged.ingredients),
  );
  const products = await menu.findProductsByExternalIds(tx, venueId, changedStored(productKeys, input.products, unchanged.products));
  return {
    categoryIds,
    ingredientIds,
    categories: byExternalId(categories),
    ingredients: byExternalId(ingredients),
    products: byExternalId(products),
    unchanged,
  };
}

export interface SyncOptions {
  dryRun: boolean;
  /** The digest of the raw request body, when the route took it (item-digests.ts). */
  bodyDigest?: string;
}

export class SyncService {
  private readonly digests = new ItemDigestCache();

  constructor(
    private readonly db: Database,
    private readonly config: Config,
  ) {}

  async sync(actor: Actor, input: SyncInput, options: SyncOptions): Promise<SyncResult> {
    const invalid = scheduleErrors(input);
    if (invalid.length > 0) throw errors.validation(invalid);
    const digestOf = await this.digests.digestsOf(input, options.bodyDigest);
    const venueId = actor.venue.venueId;
    const windowMs = this.config.syncTimeoutMs;
    try {
      // One transaction, bounded by the sync window.
      return await this.db.transaction(
        async (tx) => {
          await lockMenu(tx, venueId);
          const settings = await readSettings(tx, venueId);
          const stored = await loadStored(tx, venueId, input, digestOf);
          const steps = planSyncSteps(input, stored, { enabledLanguages: new Set(settings.enabledLanguages), newId: uuidv7, digestOf });
          let step = steps.next();
          // Other requests are answered between the plan's steps (/health among them).
          for (; !step.done; step = steps.next()) await nextTurn();
          const plan = step.value;
          await checkPlanLimits(tx, actor, plan);

          if (!options.dryRun) {
            await menu.upsertCategories(tx, venueId, plan.writes.categories);
            await menu.upsertIngredients(tx, venueId, plan.writes.ingredients);
            await menu.upsertProducts(tx, venueId, plan.writes.products);
            const changed = plan.writes.categories.length + plan.writes.ingredients.length + plan.writes.products.length;
            if (changed > 0) await menu.bumpDraftVersion(tx, venueId);
            await audit(tx, actor, [{ action: 'menu.sync', entityType: 'menu', changes: auditSummary(plan) }]);
          }
          return {
            success: true,
            ...(options.dryRun ? withChanges(plan) : plan.sections),
            warnings: plan.warnings,
            translations: { applied: plan.translationsApplied },
            ...(options.dryRun ? { dryRun: true } : {}),
            syncedAt: new Date().toISOString(),
          };
        },
        { deadline: Date.now() + windowMs, venueId },
      );
    } catch (err) {
      if (err instanceof DeadlineExceededError) throw errors.syncTooLarge(windowMs);
      throw err;
    }
  }
}

/** A dry run's sections, each with the changes its items would make. */
function withChanges(plan: SyncPlan): SyncPlan['sections'] {
  const sections: SyncPlan['sections'] = {};
  for (const [name, section] of Object.entries(plan.sections) as [SectionName, SectionResultValue][]) {
    sections[name] = { ...section, changes: plan.changes[name] };
  }
  return sections;
}

/** Counts only: never names, prices or other values. */
function auditSummary(plan: SyncPlan): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(plan.sections)) {
    changes[name] = { created: s.created, updated: s.updated, skipped: s.skipped, errors: s.errors.length, warnings: s.warnings.length };
  }
  changes.translations = { applied: plan.translationsApplied };
  return changes;
}
