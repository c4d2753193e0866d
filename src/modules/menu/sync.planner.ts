// Plans a sync: every create/update/skip decision, warning and per-item error of POST /v1/sync,
// computed from the request and the stored rows, without writing. The real sync writes the plan;
// a dry run returns its counts. Both run this same code, so they cannot disagree.
import { createHash } from 'node:crypto';
import { jsonEqual } from '../../stable-json.js';
import { rulesOf, syncRules } from '../../shared/modifier-rules.js';
import type {
  CategoryInputValue,
  IngredientInputValue,
  ModifierGroupInputValue,
  ProductInputValue,
  CategoryViewValue,
  IngredientViewValue,
  ProductViewValue,
  SectionResultValue,
  SyncChange,
  SyncInput,
} from './menu.schemas.js';
import type {
  CategoryRow,
  CategoryWrite,
  IngredientRow,
  IngredientWrite,
  ProductRow,
  ProductWrite,
  StoredModifierGroup,
  StoredOption,
} from './menu.repository.js';
import { checkTranslations, localeCount, mergeTranslations } from './translations.js';
import { sentFoodColumns, unknownCodes } from './food-info.js';

/**
 * What the plan needs of the stored menu. Items whose stored sync hash equals the request's are
 * identical and never read in full; the full rows are those of the items the request may change.
 */
export interface StoredState {
  /** externalId -> id of every stored category / ingredient the request names or refers to. */
  categoryIds: Map<string, string>;
  ingredientIds: Map<string, string>;
  categories: Map<string, CategoryRow>;
  ingredients: Map<string, IngredientRow>;
  products: Map<string, ProductRow>;
  unchanged: Record<SectionName, ReadonlySet<string>>;
}

export interface PlanContext {
  enabledLanguages: ReadonlySet<string>;
  newId: () => string;
  /** The sha1 of an item's JSON (item-digests.ts). */
  digestOf: (item: object) => string;
}

export type SectionName = 'categories' | 'ingredients' | 'products';

export interface SyncPlan {
  sections: Partial<Record<SectionName, SectionResultValue>>;
  warnings: string[];
  translationsApplied: number;
  writes: {
    categories: CategoryWrite[];
    ingredients: IngredientWrite[];
    products: ProductWrite[];
  };
  /** Items the plan creates, per section: what plan limits count. */
  creates: Record<SectionName, number>;
  /** What each created or updated item changes: a dry run's `changes`. */
  changes: Record<SectionName, SyncChange[]>;
  empty: boolean;
}

const ENTITY: Record<SectionName, string> = { categories: 'Category', ingredients: 'Ingredient', products: 'Product' };

/** The externalIds a request refers to, per table: what the sync loads before planning. */
export function referencedExternalIds(input: SyncInput): Record<SectionName, string[]> {
  const categories = new Set((input.categories ?? []).map((c) => c.externalId));
  const ingredients = new Set((input.ingredients ?? []).map((i) => i.externalId));
  for (const p of input.products ?? []) {
    if (p.categoryExternalId) categories.add(p.categoryExternalId);
    for (const ref of p.ingredientExternalIds ?? []) ingredients.add(ref);
    for (const g of p.modifierGroups ?? []) for (const o of g.options) ingredients.add(o.ingredientExternalId);
  }
  return {
    categories: [...categories],
    ingredients: [...ingredients],
    products: [...new Set((input.products ?? []).map((p) => p.externalId))],
  };
}

/** A repeated externalId warns once, and its last occurrence wins. */
function lastOccurrences<T extends { externalId: string }>(items: T[], section: SectionName, warnings: string[]): T[] {
  const byId = new Map<string, T>();
  const repeated = new Set<string>();
  for (const item of items) {
    if (byId.has(item.externalId)) repeated.add(item.externalId);
    byId.set(item.externalId, item);
  }
  for (const id of repeated) warnings.push(`${ENTITY[section]} ${id}: duplicate externalId in the request; the last occurrence wins`);
  return [...byId.values()];
}

function emptySection(): SectionResultValue {
  return { created: 0, updated: 0, skipped: 0, errors: [], warnings: [] };
}

const same = jsonEqual;

/** Products merged per step of planSyncSteps: 50 of the largest sync's took 40-60 ms with their collection; 20 take 15-25. */
const PRODUCTS_PER_STEP = 20;

export function planSync(input: SyncInput, stored: StoredState, ctx: PlanContext): SyncPlan {
  const steps = planSyncSteps(input, stored, ctx);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * planSync in steps: it yields after every PRODUCTS_PER_STEP products, so a caller can let other
 * work run between them (merging the largest sync's 500 products, and collecting what that
 * allocates, held the event loop for 150-400 ms at once).
 */
export function* planSyncSteps(input: SyncInput, stored: StoredState, ctx: PlanContext): Generator<void, SyncPlan> {
  const warnings: string[] = [];
  const plan: SyncPlan = {
    sections: {},
    warnings,
    translationsApplied: 0,
    writes: { categories: [], ingredients: [], products: [] },
    creates: { categories: 0, ingredients: 0, products: 0 },
    changes: { categories: [], ingredients: [], products: [] },
    empty: !(input.categories?.length || input.ingredients?.length || input.products?.length),
  };
  if (plan.empty) warnings.push('Nothing to sync: the request has no categories, ingredients or products');

  // externalId -> id of every category/ingredient a product may reference: stored ones, plus
  // the ones this request creates.
  const categoryIds = new Map(stored.categoryIds);
  const ingredientIds = new Map(stored.ingredientIds);

  if (input.categories) {
    const section = (plan.sections.categories = emptySection());
    for (const item of lastOccurrences(input.categories, 'categories', warnings)) {
      const problem = checkTranslations(item.translations, ctx.enabledLanguages);
      if (problem) {
        section.errors.push(`Category ${item.externalId}: ${problem.code}: ${problem.message}`);
        continue;
      }
      if (stored.unchanged.categories.has(item.externalId)) {
        section.skipped += 1;
        continue;
      }
      const existing = stored.categories.get(item.externalId);
      const next = mergeCategory(item, existing, ctx);
      const fields = existing ? changedFields(CATEGORY_FIELDS, existing, next) : [];
      if (existing && fields.length === 0) {
        section.skipped += 1;
        continue;
      }
      record(section, plan, 'categories', item.externalId, existing, fields);
      plan.translationsApplied += localeCount(item.translations);
      plan.writes.categories.push(next);
      categoryIds.set(item.externalId, next.id);
    }
  }

  if (input.ingredients) {
    const section = (plan.sections.ingredients = emptySection());
    for (const item of lastOccurrences(input.ingredients, 'ingredients', warnings)) {
      const problem = checkTranslations(item.translations, ctx.enabledLanguages);
      if (problem) {
        section.errors.push(`Ingredient ${item.externalId}: ${problem.code}: ${problem.message}`);
        continue;
      }
      const unknown = unknownCodes(item);
      if (unknown) {
        section.errors.push(`Ingredient ${item.externalId}: ${unknown}`);
        continue;
      }
      if (stored.unchanged.ingredients.has(item.externalId)) {
        section.skipped += 1;
        continue;
      }
      const existing = stored.ingredients.get(item.externalId);
      const next = mergeIngredient(item, existing, ctx);
      const fields = existing ? changedFields(INGREDIENT_FIELDS, existing, next) : [];
      if (existing && fields.length === 0) {
        section.skipped += 1;
        continue;
      }
      record(section, plan, 'ingredients', item.externalId, existing, fields);
      plan.translationsApplied += localeCount(item.translations);
      plan.writes.ingredients.push(next);
      ingredientIds.set(item.externalId, next.id);
    }
  }

  if (input.products) {
    const section = (plan.sections.products = emptySection());
    let merged = 0;
    for (const item of lastOccurrences(input.products, 'products', warnings)) {
      if (++merged % PRODUCTS_PER_STEP === 0) yield;
      const label = `Product ${item.externalId}`;
      const problem =
        checkTranslations(item.translations, ctx.enabledLanguages) ??
        (item.modifierGroups ?? []).map((g) => checkTranslations(g.translations, ctx.enabledLanguages)).find(Boolean) ??
        null;
      if (problem) {
        section.errors.push(`${label}: ${problem.code}: ${problem.message}`);
        continue;
      }
      const unknown = unknownCodes(item);
      if (unknown) {
        section.errors.push(`${label}: ${unknown}`);
        continue;
      }
      const itemWarnings: string[] = [];
      const itemErrors: string[] = [];
      const merge = { categoryIds, ingredientIds, warnings: itemWarnings, errors: itemErrors, label, ctx };
      if (stored.unchanged.products.has(item.externalId)) {
        // Resolved only for the warnings of a ref that is still unknown or of a rule value replaced.
        if (hasUnresolvedRefs(item, categoryIds, ingredientIds) || sendsRules(item)) resolveRefs(item, true, merge);
        section.warnings.push(...itemWarnings);
        section.skipped += 1;
        continue;
      }
      const existing = stored.products.get(item.externalId);
      const next = mergeProduct(item, existing, merge);
      // Warnings describe the request: an item that fails still reports them (a
      // replaced rule value is a warning before any other check).
      section.warnings.push(...itemWarnings);
      if (itemErrors.length > 0) {
        section.errors.push(...itemErrors);
        continue;
      }
      // A sale switched on with no sale price sent or stored is a per-item error.
      if (next.is_sale_active && next.sale_price_minor === null) {
        section.errors.push(`${label}: isSaleActive is true but no salePriceMinor is sent or stored`);
        continue;
      }
      const fields = existing ? changedFields(PRODUCT_FIELDS, existing, next) : [];
      // A cleaned-up product sent again is restored even when it was to stay hidden.
      if (existing && fields.length === 0 && existing.cleaned_up_at === null) {
        section.skipped += 1;
        continue;
      }
      record(section, plan, 'products', item.externalId, existing, fields);
      plan.translationsApplied +=
        localeCount(item.translations) + (item.modifierGroups ?? []).reduce((n, g) => n + localeCount(g.translations), 0);
      plan.writes.products.push(next);
    }
  }
  return plan;
}

function record(
  section: SectionResultValue,
  plan: SyncPlan,
  name: SectionName,
  externalId: string,
  existing: unknown,
  fields: string[],
): void {
  if (existing) {
    section.updated += 1;
  } else {
    section.created += 1;
    plan.creates[name] += 1;
  }
  plan.changes[name].push({ externalId, action: existing ? 'updated' : 'created', fields });
}

// ---- categories and ingredients -----------------------------------------------------------------

function mergeCategory(item: CategoryInputValue, existing: CategoryRow | undefined, ctx: PlanContext): CategoryWrite {
  return {
    id: existing?.id ?? ctx.newId(),
    external_id: item.externalId,
    name: item.name,
    sort_order: item.sortOrder ?? existing?.sort_order ?? 0,
    schedule: item.schedule ?? existing?.schedule ?? [],
    card_style: item.cardStyle !== undefined ? item.cardStyle : (existing?.card_style ?? null),
    is_active: item.isActive ?? existing?.is_active ?? true,
    translations: mergeTranslations(existing?.translations ?? {}, item.translations),
    // Such a row is made of the item alone: its digest is its sync hash.
    sync_hash: ctx.digestOf(item),
  };
}

/** A row's read-shape fields, alphabetical, each with the column it is made of. */
type FieldTable<R, F extends string> = readonly (readonly [field: F, column: (row: R) => unknown])[];

const CATEGORY_FIELDS: FieldTable<Omit<CategoryRow, 'updated_at'>, keyof CategoryViewValue> = [
  ['cardStyle', (r) => r.card_style],
  ['isActive', (r) => r.is_active],
  ['name', (r) => r.name],
  ['schedule', (r) => r.schedule],
  ['sortOrder', (r) => r.sort_order],
  ['translations', (r) => r.translations],
];

/** The read-shape names of the fields a write changes, in alphabetical order ([] when it changes nothing). */
function changedFields<R, F extends string>(table: FieldTable<R, F>, stored: R, next: R): string[] {
  const fields: string[] = [];
  for (const [field, column] of table) if (!same(column(stored), column(next))) fields.push(field);
  return fields;
}

function mergeIngredient(item: IngredientInputValue, existing: IngredientRow | undefined, ctx: PlanContext): IngredientWrite {
  return {
    id: existing?.id ?? ctx.newId(),
    external_id: item.externalId,
    name: item.name,
    sort_order: item.sortOrder ?? existing?.sort_order ?? 0,
    translations: mergeTranslations(existing?.translations ?? {}, item.translations),
    allergens: sentFoodColumns(item).allergens ?? existing?.allergens ?? [],
    sync_hash: ctx.digestOf(item),
  };
}

const INGREDIENT_FIELDS: FieldTable<Omit<IngredientRow, 'updated_at'>, keyof IngredientViewValue> = [
  ['allergens', (r) => r.allergens],
  ['name', (r) => r.name],
  ['sortOrder', (r) => r.sort_order],
  ['translations', (r) => r.translations],
];

// ---- products ------------------------------------------------------------------------------------

interface ProductMergeContext {
  categoryIds: Map<string, string>;
  ingredientIds: Map<string, string>;
  warnings: string[];
  /** Per-item errors found while merging (modifier rules no order could meet). */
  errors: string[];
  label: string;
  ctx: PlanContext;
}

/** Optional fields keep their stored value when omitted; null clears the nullable ones (rule 4). */
function keep<T>(value: T | undefined, stored: T | undefined, fallback: T): T {
  return value !== undefined ? value : stored !== undefined ? stored : fallback;
}

/** A product item's references, resolved: undefined means the item leaves that part as stored. */
interface ResolvedRefs {
  /** A category id, null to detach, undefined to keep (omitted, or an unknown ref: a warning). */
  categoryId: string | null | undefined;
  ingredientIds: string[] | undefined;
  groups: GroupWithoutIds[] | undefined;
}

/** Resolves an item's category, composition and options; unknown refs are warnings (rule 5). */
function resolveRefs(item: ProductInputValue, isUpdate: boolean, m: ProductMergeContext): ResolvedRefs {
  let categoryId: string | null | undefined;
  if (item.categoryExternalId === null) {
    categoryId = null;
  } else if (item.categoryExternalId !== undefined) {
    categoryId = m.categoryIds.get(item.categoryExternalId);
    if (!categoryId) {
      m.warnings.push(
        `${m.label}: category '${item.categoryExternalId}' not found; ${isUpdate ? 'the product keeps its category' : 'the product has no category'}`,
      );
    }
  }
  let ingredientIds: string[] | undefined;
  if (item.ingredientExternalIds !== undefined) {
    ingredientIds = [];
    for (const ref of item.ingredientExternalIds) {
      const id = m.ingredientIds.get(ref);
      if (!id) m.warnings.push(`${m.label}: ingredient '${ref}' not found; it is left out of the composition`);
      else if (!ingredientIds.includes(id)) ingredientIds.push(id);
    }
  }
  const groups = item.modifierGroups?.map((g, i) => normaliseGroup(g, i, m));
  return { categoryId, ingredientIds, groups };
}

/** Calls `fn` with every reference an item makes: its category, composition and options. */
function forEachRef(item: ProductInputValue, fn: (kind: 'category' | 'ingredient', ref: string) => void): void {
  if (typeof item.categoryExternalId === 'string') fn('category', item.categoryExternalId);
  for (const ref of item.ingredientExternalIds ?? []) fn('ingredient', ref);
  for (const g of item.modifierGroups ?? []) for (const o of g.options) fn('ingredient', o.ingredientExternalId);
}

/** True when the item sends a selection count its group's type fixes, which sync replaces with a warning. */
function sendsRules(item: ProductInputValue): boolean {
  return (item.modifierGroups ?? []).some((g) =>
    g.type === 'single_choice'
      ? g.minSelections !== undefined || g.maxSelections !== undefined
      : g.type === 'remove_ingredients' && g.minSelections !== undefined,
  );
}

/** True when some reference of the item is unknown (then it has warnings to report). */
function hasUnresolvedRefs(item: ProductInputValue, categoryIds: Map<string, string>, ingredientIds: Map<string, string>): boolean {
  let missing = false;
  forEachRef(item, (kind, ref) => {
    if (!(kind === 'category' ? categoryIds : ingredientIds).has(ref)) missing = true;
  });
  return missing;
}

/**
 * What a product row looks like to a sync: the item as sent and the ids its references resolve to
 * (everything the row is made of). A row written by a sync keeps this hash until any other path
 * changes the row (which clears it), so an identical item later can be skipped without reading
 * the row.
 */
function productSyncHash(
  item: ProductInputValue,
  digestOf: (item: object) => string,
  categoryIds: Map<string, string>,
  ingredientIds: Map<string, string>,
): string {
  let text = digestOf(item);
  forEachRef(item, (kind, ref) => {
    text += `\n${(kind === 'category' ? categoryIds : ingredientIds).get(ref) ?? '-'}`;
  });
  return createHash('sha1').update(text).digest('base64url');
}

function mergeProduct(item: ProductInputValue, existing: ProductRow | undefined, m: ProductMergeContext): ProductWrite {
  const refs = resolveRefs(item, Boolean(existing), m);
  const categoryId = refs.categoryId !== undefined ? refs.categoryId : (existing?.category_id ?? null);
  const ingredientIds = refs.ingredientIds ?? existing?.ingredient_ids ?? [];
  let groups = existing?.modifier_groups ?? [];
  if (refs.groups !== undefined) {
    if (existing && same(structure(withoutIds(existing.modifier_groups)), structure(refs.groups))) {
      // The same groups again keep their ids (option ids guests hold stay valid) and their stored
      // translations, merged with any sent (an omitted translation keeps its value).
      groups = existing.modifier_groups.map((g, i) => ({
        ...g,
        translations: mergeTranslations(g.translations, item.modifierGroups![i].translations),
      }));
    } else {
      // Groups are replaced wholesale (rule 4): changed ones get new ids.
      groups = withIds(refs.groups, m.ctx.newId);
    }
  }

  // A cleaned-up product synced again is restored: visible unless the payload says otherwise.
  const restoring = Boolean(existing?.cleaned_up_at);
  return {
    id: existing?.id ?? m.ctx.newId(),
    external_id: item.externalId,
    name: item.name,
    description: keep(item.description, existing?.description, null),
    price_minor: item.priceMinor,
    sale_price_minor: keep(item.salePriceMinor, existing?.sale_price_minor, null),
    is_sale_active: keep(item.isSaleActive, existing?.is_sale_active, false),
    amount: keep(item.amount, existing?.amount, null),
    unit: keep(item.unit, existing?.unit, null),
    badge_label: keep(item.badgeLabel, existing?.badge_label, null),
    badge_color: keep(item.badgeColor, existing?.badge_color, null),
    category_id: categoryId,
    ingredient_ids: ingredientIds,
    modifier_groups: groups,
    sort_order: keep(item.sortOrder, existing?.sort_order, 0),
    menu_visible: restoring ? (item.menuVisible ?? true) : keep(item.menuVisible, existing?.menu_visible, true),
    cleaned_up_at: null,
    translations: mergeTranslations(existing?.translations ?? {}, item.translations),
    allergens: existing?.allergens ?? [],
    may_contain: existing?.may_contain ?? [],
    dietary_labels: existing?.dietary_labels ?? [],
    nutrition: existing?.nutrition ?? null,
    ...sentFoodColumns(item),
    spice_level: keep(item.spiceLevel, existing?.spice_level, null),
    calories: keep(item.calories, existing?.calories, null),
    sync_hash: productSyncHash(item, m.ctx.digestOf, m.categoryIds, m.ingredientIds),
  };
}

type GroupWithoutIds = Omit<StoredModifierGroup, 'id' | 'options'> & { options: Omit<StoredOption, 'id'>[] };

function normaliseGroup(g: ModifierGroupInputValue, index: number, m: ProductMergeContext): GroupWithoutIds {
  let type: StoredModifierGroup['type'];
  if (g.type === 'multiple_choice') {
    m.warnings.push(`${m.label}: modifier group '${g.name}' uses the deprecated type multiple_choice; stored as add_ingredients`);
    type = 'add_ingredients';
  } else {
    type = g.type;
  }
  const options: Omit<StoredOption, 'id'>[] = [];
  g.options.forEach((o, i) => {
    const ingredientId = m.ingredientIds.get(o.ingredientExternalId);
    if (!ingredientId) {
      m.warnings.push(
        `${m.label}: modifier group '${g.name}' option ingredient '${o.ingredientExternalId}' not found; the option is skipped`,
      );
      return;
    }
    options.push({
      ingredientId,
      action: o.action ?? (type === 'remove_ingredients' ? 'remove' : 'add'),
      priceAdjustment: o.priceAdjustment ?? 0,
      sortOrder: o.sortOrder ?? i,
      isDefault: o.isDefault ?? false,
    });
  });
  // Honoured only for single_choice (default true there), false for every other type.
  const isRequired = type === 'single_choice' ? (g.isRequired ?? true) : false;
  const rules = syncRules({ ...g, type, isRequired }, options.length, options.filter((o) => o.isDefault).length);
  for (const warning of rules.warnings) m.warnings.push(`${m.label}: ${warning}`);
  if (rules.error) m.errors.push(`${m.label}: ${rules.error}`);
  return {
    name: g.name,
    type,
    isRequired,
    ...rules.rules,
    sortOrder: g.sortOrder ?? index,
    translations: mergeTranslations({}, g.translations),
    options,
  };
}

/** Stored groups as sync would write them now: those stored before modifier rules take the defaults. */
function withoutIds(groups: StoredModifierGroup[]): GroupWithoutIds[] {
  return groups.map(({ id: _id, options, ...rest }) => ({
    ...rest,
    ...rulesOf(rest),
    options: options.map(({ id: _oid, ...o }) => ({ ...o, isDefault: o.isDefault ?? false })),
  }));
}

/** A group list without translations: what decides whether the groups are the same ones. */
function structure(groups: GroupWithoutIds[]) {
  return groups.map(({ translations: _t, ...rest }) => rest);
}

function withIds(groups: GroupWithoutIds[], newId: () => string): StoredModifierGroup[] {
  return groups.map((g) => ({ id: newId(), ...g, options: g.options.map((o) => ({ id: newId(), ...o })) }));
}

// The category and composition are compared by id, named as the read shape names them.
const PRODUCT_FIELDS: FieldTable<Omit<ProductRow, 'revision' | 'updated_at' | 'image'>, keyof ProductViewValue> = [
  ['allergens', (r) => r.allergens],
  ['amount', (r) => r.amount],
  ['badgeColor', (r) => r.badge_color],
  ['badgeLabel', (r) => r.badge_label],
  ['calories', (r) => r.calories],
  ['categoryExternalId', (r) => r.category_id],
  ['description', (r) => r.description],
  ['dietaryLabels', (r) => r.dietary_labels],
  ['ingredients', (r) => r.ingredient_ids],
  ['isSaleActive', (r) => r.is_sale_active],
  ['mayContain', (r) => r.may_contain],
  // A cleaned-up product written again is shown again (rule: a later sync restores it).
  ['menuVisible', (r) => r.menu_visible && r.cleaned_up_at === null],
  ['modifierGroups', (r) => r.modifier_groups],
  ['name', (r) => r.name],
  ['nutrition', (r) => r.nutrition],
  ['priceMinor', (r) => r.price_minor],
  ['salePriceMinor', (r) => r.sale_price_minor],
  ['sortOrder', (r) => r.sort_order],
  ['spiceLevel', (r) => r.spice_level],
  ['translations', (r) => r.translations],
  ['unit', (r) => r.unit],
];

/**
 * The sync hash each product item would have against the stored categories and ingredients
 * only (refs created by this same request resolve to markers, so such items never match).
 */
export function productHashes(
  input: SyncInput,
  digestOf: (item: object) => string,
  categoryIds: Map<string, string>,
  ingredientIds: Map<string, string>,
): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const item of input.products ?? []) hashes.set(item.externalId, productSyncHash(item, digestOf, categoryIds, ingredientIds));
  return hashes;
}
