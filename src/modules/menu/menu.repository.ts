import { LargeText, type Queryable } from '../../db/port.js';
import { isUuid } from '../../ids.js';
import { jsonArrayInTurns } from '../../next-turn.js';
import type { StoredImage } from '../media/index.js';
import type { StoredTranslations } from './translations.schemas.js';
import type { ScheduleEntryValue } from './menu.schemas.js';

export interface CategoryRow {
  id: string;
  external_id: string | null;
  name: string;
  sort_order: number;
  schedule: ScheduleEntryValue[];
  card_style: string | null;
  is_active: boolean;
  translations: StoredTranslations;
  updated_at: Date;
}

export interface IngredientRow {
  id: string;
  external_id: string | null;
  name: string;
  sort_order: number;
  translations: StoredTranslations;
  /** Allergen codes, in the reference's order. */
  allergens: string[];
  updated_at: Date;
}

export interface StoredOption {
  id: string;
  ingredientId: string;
  action: 'add' | 'remove';
  priceAdjustment: number;
  sortOrder: number;
  /** Absent on options stored before modifier rules: false. */
  isDefault?: boolean;
}

export interface StoredModifierGroup {
  id: string;
  name: string;
  type: 'single_choice' | 'add_ingredients' | 'remove_ingredients';
  isRequired: boolean;
  /** Absent on groups stored before modifier rules: src/shared/modifier-rules.ts rulesOf gives the type's defaults. */
  minSelections?: number;
  maxSelections?: number | null;
  maxQuantityPerOption?: number | null;
  sortOrder: number;
  translations: StoredTranslations;
  options: StoredOption[];
}

export interface ProductRow {
  id: string;
  external_id: string | null;
  name: string;
  description: string | null;
  price_minor: number;
  sale_price_minor: number | null;
  is_sale_active: boolean;
  amount: number | null;
  unit: string | null;
  badge_label: string | null;
  badge_color: string | null;
  category_id: string | null;
  ingredient_ids: string[];
  modifier_groups: StoredModifierGroup[];
  sort_order: number;
  menu_visible: boolean;
  cleaned_up_at: Date | null;
  image: StoredImage | null;
  translations: StoredTranslations;
  /** Food information: code lists in the reference's order, nutrition as sent. */
  allergens: string[];
  may_contain: string[];
  dietary_labels: string[];
  spice_level: number | null;
  calories: number | null;
  nutrition: Record<string, number> | null;
  revision: number;
  updated_at: Date;
}

const CATEGORY_COLUMNS = 'id, external_id, name, sort_order, schedule, card_style, is_active, translations, updated_at';
const INGREDIENT_COLUMNS = 'id, external_id, name, sort_order, translations, allergens, updated_at';
const PRODUCT_COLUMNS = `id, external_id, name, description, price_minor, sale_price_minor, is_sale_active, amount, unit,
  badge_label, badge_color, category_id, ingredient_ids, modifier_groups, sort_order, menu_visible, cleaned_up_at,
  image, translations, allergens, may_contain, dietary_labels, spice_level, calories, nutrition, revision, updated_at`;

// ---- look-ups by externalId: one statement per table, whatever the number of items -----------

export async function findCategoriesByExternalIds(db: Queryable, venueId: string, externalIds: string[]): Promise<CategoryRow[]> {
  if (externalIds.length === 0) return [];
  const { rows } = await db.query<CategoryRow>(
    `select ${CATEGORY_COLUMNS} from categories where venue_id = $1 and external_id = any($2::text[])`,
    [venueId, externalIds],
  );
  return rows;
}

export async function findIngredientsByExternalIds(db: Queryable, venueId: string, externalIds: string[]): Promise<IngredientRow[]> {
  if (externalIds.length === 0) return [];
  const { rows } = await db.query<IngredientRow>(
    `select ${INGREDIENT_COLUMNS} from ingredients where venue_id = $1 and external_id = any($2::text[])`,
    [venueId, externalIds],
  );
  return rows;
}

export async function findProductsByExternalIds(db: Queryable, venueId: string, externalIds: string[]): Promise<ProductRow[]> {
  if (externalIds.length === 0) return [];
  const { rows } = await db.query<ProductRow>(
    `select ${PRODUCT_COLUMNS} from products where venue_id = $1 and external_id = any($2::text[])`,
    [venueId, externalIds],
  );
  return rows;
}

/** Refs are externalIds or opaque ids (uuid-shaped refs match either). */
export async function findByRefs<T>(
  db: Queryable,
  venueId: string,
  table: 'products' | 'categories' | 'ingredients',
  refs: string[],
  uuidRefs: string[],
  options: { forUpdate?: boolean; keysOnly?: boolean } = {},
): Promise<T[]> {
  if (refs.length === 0) return [];
  const columns = options.keysOnly
    ? 'id, external_id'
    : table === 'products'
      ? PRODUCT_COLUMNS
      : table === 'categories'
        ? CATEGORY_COLUMNS
        : INGREDIENT_COLUMNS;
  const { rows } = await db.query<T>(
    `select ${columns} from ${table}
     where venue_id = $1 and (external_id = any($2::text[]) or id = any($3::uuid[]))${options.forUpdate ? ' for update' : ''}`,
    [venueId, refs, uuidRefs],
  );
  return rows;
}

/** One row by ref; when a ref is one row's id and another's externalId, the id match wins. */
export async function findOneByRef<T extends { id: string }>(
  db: Queryable,
  venueId: string,
  table: 'products' | 'categories' | 'ingredients',
  ref: string,
  options: { forUpdate?: boolean } = {},
): Promise<T | null> {
  const rows = await findByRefs<T>(db, venueId, table, [ref], isUuid(ref) ? [ref] : [], options);
  return rows.find((r) => r.id === ref) ?? rows[0] ?? null;
}

export async function findIngredientsByIds(db: Queryable, venueId: string, ids: string[]): Promise<IngredientRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<IngredientRow>(
    `select ${INGREDIENT_COLUMNS} from ingredients where venue_id = $1 and id = any($2::uuid[])`,
    [venueId, ids],
  );
  return rows;
}

export async function findCategoryById(db: Queryable, venueId: string, id: string): Promise<CategoryRow | null> {
  const { rows } = await db.query<CategoryRow>(`select ${CATEGORY_COLUMNS} from categories where venue_id = $1 and id = $2`, [venueId, id]);
  return rows[0] ?? null;
}

// ---- whole-menu reads ------------------------------------------------------------------------

export interface MenuRows {
  categories: CategoryRow[];
  ingredients: IngredientRow[];
  products: ProductRow[];
}

export async function loadMenu(db: Queryable, venueId: string): Promise<MenuRows> {
  // Sequential: publish passes a transaction (one connection), where node-postgres deprecates
  // queueing a query behind a running one (removed in pg@9).
  const categories = await db.query<CategoryRow>(`select ${CATEGORY_COLUMNS} from categories where venue_id = $1`, [venueId]);
  const ingredients = await db.query<IngredientRow>(`select ${INGREDIENT_COLUMNS} from ingredients where venue_id = $1`, [venueId]);
  const products = await db.query<ProductRow>(`select ${PRODUCT_COLUMNS} from products where venue_id = $1`, [venueId]);
  return { categories: categories.rows, ingredients: ingredients.rows, products: products.rows };
}

// ---- bulk writes: one statement per table, rows passed as one JSON document -------------------
// jsonb_to_recordset keeps the statement's parameter count fixed (no 65,535-parameter ceiling)
// and lets PostgreSQL plan a single insert for any number of rows.

/** A row as a sync writes it, with the hash of the item that wrote it (see sync.planner.ts). */
export type CategoryWrite = Omit<CategoryRow, 'updated_at'> & { sync_hash: string | null };
export type IngredientWrite = Omit<IngredientRow, 'updated_at'> & { sync_hash: string | null };

export async function upsertCategories(db: Queryable, venueId: string, rows: CategoryWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into categories (venue_id, id, external_id, name, sort_order, schedule, card_style, is_active, translations, sync_hash)
     select $1, r.id, r.external_id, r.name, r.sort_order, r.schedule, r.card_style, r.is_active, r.translations, r.sync_hash
     from jsonb_to_recordset($2::jsonb) as r(id uuid, external_id text, name text, sort_order int, schedule jsonb,
                                            card_style text, is_active boolean, translations jsonb, sync_hash text)
     on conflict (venue_id, external_id) do update set
       name = excluded.name, sort_order = excluded.sort_order, schedule = excluded.schedule,
       card_style = excluded.card_style, is_active = excluded.is_active, translations = excluded.translations,
       sync_hash = excluded.sync_hash, updated_at = now()`,
    [venueId, JSON.stringify(rows)],
  );
}

export async function upsertIngredients(db: Queryable, venueId: string, rows: IngredientWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into ingredients (venue_id, id, external_id, name, sort_order, translations, allergens, sync_hash)
     select $1, r.id, r.external_id, r.name, r.sort_order, r.translations, r.allergens, r.sync_hash
     from jsonb_to_recordset($2::jsonb) as r(id uuid, external_id text, name text, sort_order int, translations jsonb, allergens text[], sync_hash text)
     on conflict (venue_id, external_id) do update set
       name = excluded.name, sort_order = excluded.sort_order, translations = excluded.translations,
       allergens = excluded.allergens, sync_hash = excluded.sync_hash, updated_at = now()`,
    [venueId, JSON.stringify(rows)],
  );
}

export type ProductWrite = Omit<ProductRow, 'revision' | 'updated_at' | 'image'> & { sync_hash: string | null };

export interface SyncKeyRow {
  id: string;
  external_id: string;
  sync_hash: string | null;
}

export interface ProductKeyRow extends SyncKeyRow {
  cleaned_up_at: Date | null;
}

/** The light part of the categories or ingredients a sync names: their ids, and hashes to skip by. */
export async function findSyncKeys(
  db: Queryable,
  venueId: string,
  table: 'categories' | 'ingredients',
  externalIds: string[],
): Promise<SyncKeyRow[]> {
  if (externalIds.length === 0) return [];
  const { rows } = await db.query<SyncKeyRow>(
    `select id, external_id, sync_hash from ${table} where venue_id = $1 and external_id = any($2::text[])`,
    [venueId, externalIds],
  );
  return rows;
}

/** The light part of the products a sync names: enough to recognise unchanged ones by hash. */
export async function findProductKeysByExternalIds(db: Queryable, venueId: string, externalIds: string[]): Promise<ProductKeyRow[]> {
  if (externalIds.length === 0) return [];
  const { rows } = await db.query<ProductKeyRow>(
    `select id, external_id, sync_hash, cleaned_up_at from products where venue_id = $1 and external_id = any($2::text[])`,
    [venueId, externalIds],
  );
  return rows;
}

export async function upsertProducts(db: Queryable, venueId: string, rows: ProductWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `insert into products (venue_id, id, external_id, name, description, price_minor, sale_price_minor, is_sale_active,
                           amount, unit, badge_label, badge_color, category_id, ingredient_ids, modifier_groups,
                           sort_order, menu_visible, cleaned_up_at, translations, allergens, may_contain, dietary_labels,
                           spice_level, calories, nutrition, sync_hash)
     select $1, r.id, r.external_id, r.name, r.description, r.price_minor, r.sale_price_minor, r.is_sale_active,
            r.amount, r.unit, r.badge_label, r.badge_color, r.category_id, r.ingredient_ids, r.modifier_groups,
            r.sort_order, r.menu_visible, r.cleaned_up_at, r.translations, r.allergens, r.may_contain, r.dietary_labels,
            r.spice_level, r.calories, r.nutrition, r.sync_hash
     from jsonb_to_recordset($2::json::jsonb) as r(id uuid, external_id text, name text, description text, price_minor int,
            sale_price_minor int, is_sale_active boolean, amount int, unit text, badge_label text, badge_color text,
            category_id uuid, ingredient_ids uuid[], modifier_groups jsonb, sort_order int, menu_visible boolean,
            cleaned_up_at timestamptz, translations jsonb, allergens text[], may_contain text[], dietary_labels text[],
            spice_level smallint, calories int, nutrition jsonb, sync_hash text)
     on conflict (venue_id, external_id) do update set
       name = excluded.name, description = excluded.description, price_minor = excluded.price_minor,
       sale_price_minor = excluded.sale_price_minor, is_sale_active = excluded.is_sale_active, amount = excluded.amount,
       unit = excluded.unit, badge_label = excluded.badge_label, badge_color = excluded.badge_color,
       category_id = excluded.category_id, ingredient_ids = excluded.ingredient_ids,
       modifier_groups = excluded.modifier_groups, sort_order = excluded.sort_order,
       menu_visible = excluded.menu_visible, cleaned_up_at = excluded.cleaned_up_at,
       translations = excluded.translations, allergens = excluded.allergens, may_contain = excluded.may_contain,
       dietary_labels = excluded.dietary_labels, spice_level = excluded.spice_level, calories = excluded.calories,
       nutrition = excluded.nutrition, sync_hash = excluded.sync_hash, revision = products.revision + 1,
       updated_at = now()`,
    // Megabytes for a large sync: a LargeText reaches the database in slices (port.ts), sent as
    // json's binary form (its text; jsonb's would need a version byte), then cast.
    [venueId, new LargeText(await jsonArrayInTurns(rows))],
  );
}

/** A single product's new state (PATCH); bumps its revision. */
export async function updateProduct(db: Queryable, venueId: string, row: Omit<ProductWrite, 'sync_hash'>): Promise<void> {
  await db.query(
    `update products set name = $3, description = $4, price_minor = $5, sale_price_minor = $6, is_sale_active = $7,
       amount = $8, unit = $9, badge_label = $10, badge_color = $11, category_id = $12, sort_order = $13,
       menu_visible = $14, translations = $15::jsonb, allergens = $16::text[], may_contain = $17::text[],
       dietary_labels = $18::text[], spice_level = $19, calories = $20, nutrition = $21::jsonb,
       sync_hash = null, revision = revision + 1, updated_at = now()
     where venue_id = $1 and id = $2`,
    [
      venueId,
      row.id,
      row.name,
      row.description,
      row.price_minor,
      row.sale_price_minor,
      row.is_sale_active,
      row.amount,
      row.unit,
      row.badge_label,
      row.badge_color,
      row.category_id,
      row.sort_order,
      row.menu_visible,
      JSON.stringify(row.translations),
      row.allergens,
      row.may_contain,
      row.dietary_labels,
      row.spice_level,
      row.calories,
      row.nutrition === null ? null : JSON.stringify(row.nutrition),
    ],
  );
}

export async function deleteProduct(db: Queryable, venueId: string, productId: string): Promise<void> {
  await db.query('delete from products where venue_id = $1 and id = $2', [venueId, productId]);
}

// ---- cleanup -----------------------------------------------------------------------------------

/** Hides products and marks them cleaned up (soft delete); returns how many. */
export async function hideProducts(db: Queryable, venueId: string, productIds: string[] | 'all'): Promise<number> {
  const { rowCount } = await db.query(
    `update products set menu_visible = false, cleaned_up_at = coalesce(cleaned_up_at, now()),
       sync_hash = null, revision = revision + 1, updated_at = now()
     where venue_id = $1 ${productIds === 'all' ? '' : 'and id = any($2::uuid[])'}`,
    productIds === 'all' ? [venueId] : [venueId, productIds],
  );
  return rowCount;
}

/** Products that lose their category: detached first, so their revision and updatedAt move. */
export async function deleteCategories(db: Queryable, venueId: string, categoryIds: string[] | 'all'): Promise<number> {
  const all = categoryIds === 'all';
  await db.query(
    `update products set category_id = null, sync_hash = null, revision = revision + 1, updated_at = now()
     where venue_id = $1 and category_id is not null ${all ? '' : 'and category_id = any($2::uuid[])'}`,
    all ? [venueId] : [venueId, categoryIds],
  );
  const { rowCount } = await db.query(
    `delete from categories where venue_id = $1 ${all ? '' : 'and id = any($2::uuid[])'}`,
    all ? [venueId] : [venueId, categoryIds],
  );
  return rowCount;
}

/** Deletes ingredients and removes them from compositions and modifier options. */
export async function deleteIngredients(db: Queryable, venueId: string, ingredientIds: string[] | 'all'): Promise<number> {
  const all = ingredientIds === 'all';
  if (all) {
    await db.query(
      `update products set ingredient_ids = '{}',
         modifier_groups = (select coalesce(jsonb_agg(jsonb_set(g, '{options}', '[]'::jsonb) order by n), '[]'::jsonb)
                            from jsonb_array_elements(modifier_groups) with ordinality as t(g, n)),
         sync_hash = null, revision = revision + 1, updated_at = now()
       where venue_id = $1 and (cardinality(ingredient_ids) > 0 or jsonb_path_exists(modifier_groups, '$[*].options[*]'))`,
      [venueId],
    );
  } else {
    await db.query(
      `update products set
         ingredient_ids = array(select i from unnest(ingredient_ids) with ordinality as u(i, n)
                                where i <> all($2::uuid[]) order by n),
         modifier_groups = (
           select coalesce(jsonb_agg(jsonb_set(g, '{options}', (
                    select coalesce(jsonb_agg(o order by m), '[]'::jsonb)
                    from jsonb_array_elements(g->'options') with ordinality as v(o, m)
                    where (o->>'ingredientId')::uuid <> all($2::uuid[]))) order by n), '[]'::jsonb)
           from jsonb_array_elements(modifier_groups) with ordinality as t(g, n)),
         sync_hash = null, revision = revision + 1, updated_at = now()
       where venue_id = $1 and (ingredient_ids && $2::uuid[] or exists (
         select 1 from jsonb_array_elements(modifier_groups) g, jsonb_array_elements(g->'options') o
         where (o->>'ingredientId')::uuid = any($2::uuid[])))`,
      [venueId, ingredientIds],
    );
  }
  const { rowCount } = await db.query(
    `delete from ingredients where venue_id = $1 ${all ? '' : 'and id = any($2::uuid[])'}`,
    all ? [venueId] : [venueId, ingredientIds],
  );
  return rowCount;
}

// ---- version, snapshots --------------------------------------------------------------------------

export interface MenuStateRow {
  draft_version: number;
  /** When the draft last changed (the venue's creation before its first change). */
  draft_changed_at: Date;
  latest_publication_id: string | null;
}

export async function getMenuState(db: Queryable, venueId: string): Promise<MenuStateRow> {
  const { rows } = await db.query<MenuStateRow>(
    `select coalesce(s.draft_version, 0) as draft_version, coalesce(s.draft_changed_at, v.created_at) as draft_changed_at,
            s.latest_publication_id
     from venues v left join menu_state s on s.venue_id = v.id
     where v.id = $1`,
    [venueId],
  );
  return rows[0] ?? { draft_version: 0, draft_changed_at: new Date(0), latest_publication_id: null };
}

/** Every draft change bumps the version in its own transaction; readers compare it to their cache. */
export async function bumpDraftVersion(db: Queryable, venueId: string): Promise<void> {
  await db.query(
    `insert into menu_state (venue_id, draft_version) values ($1, 1)
     on conflict (venue_id) do update set draft_version = menu_state.draft_version + 1, draft_changed_at = now()`,
    [venueId],
  );
}

// ---- translations ---------------------------------------------------------------------------------

export async function updateTranslations(
  db: Queryable,
  venueId: string,
  table: 'products' | 'categories' | 'ingredients',
  rows: { id: string; translations: StoredTranslations }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `update ${table} t set translations = r.translations, sync_hash = null, updated_at = now()${table === 'products' ? ', revision = t.revision + 1' : ''}
     from jsonb_to_recordset($2::jsonb) as r(id uuid, translations jsonb)
     where t.venue_id = $1 and t.id = r.id`,
    [venueId, JSON.stringify(rows)],
  );
}

export async function updateModifierGroups(
  db: Queryable,
  venueId: string,
  rows: { id: string; modifier_groups: StoredModifierGroup[] }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `update products t set modifier_groups = r.modifier_groups, sync_hash = null, revision = t.revision + 1, updated_at = now()
     from jsonb_to_recordset($2::jsonb) as r(id uuid, modifier_groups jsonb)
     where t.venue_id = $1 and t.id = r.id`,
    [venueId, JSON.stringify(rows)],
  );
}

/** Products holding any of the given modifier group ids. */
export async function findProductsByGroupIds(db: Queryable, venueId: string, groupIds: string[]): Promise<ProductRow[]> {
  if (groupIds.length === 0) return [];
  const { rows } = await db.query<ProductRow>(
    `select ${PRODUCT_COLUMNS} from products p
     where venue_id = $1 and exists (select 1 from jsonb_array_elements(p.modifier_groups) g where g->>'id' = any($2::text[]))`,
    [venueId, groupIds],
  );
  return rows;
}

/** Sets (or clears) a product's image; its revision and updatedAt move like any other change. */
export async function setProductImage(db: Queryable, venueId: string, productId: string, image: StoredImage | null): Promise<void> {
  await db.query(`update products set image = $3::jsonb, revision = revision + 1, updated_at = now() where venue_id = $1 and id = $2`, [
    venueId,
    productId,
    image === null ? null : JSON.stringify(image),
  ]);
}
