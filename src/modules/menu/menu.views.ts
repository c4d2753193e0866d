// Rows -> the read shapes. One builder for the menu document, the product
// read and the PATCH response, so every path shows a product the same way.
import { nextTurn } from '../../next-turn.js';
import { groupFields, rulesOf } from '../../shared/modifier-rules.js';
import type { MediaImageView, StoredImage } from '../media/index.js';
import { effectiveAllergens } from './food-info.js';
import type { CategoryRow, IngredientRow, MenuRows, ProductRow } from './menu.repository.js';
import type { MenuDocumentValue, ProductViewValue } from './menu.schemas.js';

type Sortable = { sortOrder: number; name: string; id: string };

/** Lists are ordered by sortOrder, then name, then id. */
export function byMenuOrder(a: Sortable, b: Sortable): number {
  return a.sortOrder - b.sortOrder || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A stored image as the venue's reads show it (MediaUrls.view, bound to the venue). */
export type ImageView = (image: StoredImage | null) => MediaImageView | null;

export interface ViewLookups {
  categories: Map<string, Pick<CategoryRow, 'id' | 'external_id'>>;
  ingredients: Map<string, Pick<IngredientRow, 'id' | 'external_id' | 'name' | 'allergens'>>;
  image: ImageView;
}

export function lookupsOf(
  categories: Pick<CategoryRow, 'id' | 'external_id'>[],
  ingredients: IngredientRow[],
  image: ImageView,
): ViewLookups {
  return {
    categories: new Map(categories.map((c) => [c.id, c])),
    ingredients: new Map(ingredients.map((i) => [i.id, i])),
    image,
  };
}

export function productView(p: ProductRow, l: ViewLookups): ProductViewValue {
  const category = p.category_id ? l.categories.get(p.category_id) : undefined;
  const image = l.image(p.image);
  return {
    id: p.id,
    externalId: p.external_id,
    name: p.name,
    description: p.description,
    priceMinor: p.price_minor,
    salePriceMinor: p.sale_price_minor,
    isSaleActive: p.is_sale_active,
    amount: p.amount,
    unit: p.unit,
    badgeLabel: p.badge_label,
    badgeColor: p.badge_color,
    categoryId: category ? category.id : null,
    categoryExternalId: category ? category.external_id : null,
    ingredients: p.ingredient_ids.flatMap((id) => {
      const i = l.ingredients.get(id);
      return i ? [{ externalId: i.external_id, name: i.name }] : [];
    }),
    modifierGroups: p.modifier_groups
      .map((g) => ({
        id: g.id,
        ...groupFields(g),
        options: g.options
          .flatMap((o) => {
            const i = l.ingredients.get(o.ingredientId);
            return i
              ? [
                  {
                    id: o.id,
                    ingredientExternalId: i.external_id,
                    ingredientName: i.name,
                    action: o.action,
                    priceAdjustment: o.priceAdjustment,
                    sortOrder: o.sortOrder,
                    allergens: i.allergens,
                    isDefault: o.isDefault ?? false,
                  },
                ]
              : [];
          })
          .sort((a, b) => a.sortOrder - b.sortOrder || (a.id < b.id ? -1 : 1)),
      }))
      .sort(byMenuOrder),
    sortOrder: p.sort_order,
    menuVisible: p.menu_visible,
    imageUrl: image ? image.imageUrl : null,
    image,
    translations: p.translations,
    allergens: p.allergens,
    effectiveAllergens: effectiveAllergens(
      p.allergens,
      p.ingredient_ids.map((id) => l.ingredients.get(id)?.allergens ?? []),
    ),
    mayContain: p.may_contain,
    dietaryLabels: p.dietary_labels,
    spiceLevel: p.spice_level,
    calories: p.calories,
    nutrition: p.nutrition,
    updatedAt: p.updated_at.toISOString(),
  };
}

type DocumentMeta = {
  version: 'draft' | 'published';
  publicationId: string | null;
  publishedAt: string | null;
  currency: string;
  generatedAt: string;
};

/** A menu's document in the read shape from its rows; `products` built already when given. */
export function menuDocument(rows: MenuRows, meta: DocumentMeta, image: ImageView, products?: ProductViewValue[]): MenuDocumentValue {
  const lookups = lookupsOf(rows.categories, rows.ingredients, image);
  return {
    version: meta.version,
    publicationId: meta.publicationId,
    publishedAt: meta.publishedAt,
    generatedAt: meta.generatedAt,
    currency: meta.currency,
    categories: rows.categories
      .map((c) => ({
        id: c.id,
        externalId: c.external_id,
        name: c.name,
        sortOrder: c.sort_order,
        schedule: c.schedule,
        cardStyle: c.card_style,
        isActive: c.is_active,
        translations: c.translations,
        updatedAt: c.updated_at.toISOString(),
      }))
      .sort(byMenuOrder),
    ingredients: rows.ingredients
      .map((i) => ({
        id: i.id,
        externalId: i.external_id,
        name: i.name,
        sortOrder: i.sort_order,
        translations: i.translations,
        allergens: i.allergens,
        updatedAt: i.updated_at.toISOString(),
      }))
      .sort(byMenuOrder),
    products: (products ?? rows.products.map((p) => productView(p, lookups))).sort(byMenuOrder),
  };
}

/**
 * Products built or serialised per turn of the event loop by the *InTurns functions: the views of
 * the largest menu (500 products of 20 groups of 8 options) took one turn of 100-180 ms to build
 * and another to serialise, during which no other request was answered (docs/security.md).
 */
const PRODUCTS_PER_TURN = 50;

/** menuDocument, its products built PRODUCTS_PER_TURN at a time with a turn between. */
export async function menuDocumentInTurns(rows: MenuRows, meta: DocumentMeta, image: ImageView): Promise<MenuDocumentValue> {
  const lookups = lookupsOf(rows.categories, rows.ingredients, image);
  const products: ProductViewValue[] = [];
  for (let i = 0; i < rows.products.length; i += PRODUCTS_PER_TURN) {
    if (i > 0) await nextTurn();
    for (const p of rows.products.slice(i, i + PRODUCTS_PER_TURN)) products.push(productView(p, lookups));
  }
  await nextTurn();
  return menuDocument(rows, meta, image, products);
}

/**
 * JSON.stringify(doc), the same text, with its products serialised PRODUCTS_PER_TURN at a time:
 * `products` is the document's last property, so the rest is serialised with an empty list whose
 * closing `[]}` the products' text replaces.
 */
export async function stringifyInTurns(doc: MenuDocumentValue): Promise<string> {
  const head = JSON.stringify({ ...doc, products: [] });
  if (!head.endsWith('"products":[]}')) throw new Error('stringifyInTurns: products is not the last property');
  const parts: string[] = [];
  for (let i = 0; i < doc.products.length; i += PRODUCTS_PER_TURN) {
    await nextTurn();
    const slice = JSON.stringify(doc.products.slice(i, i + PRODUCTS_PER_TURN));
    parts.push(slice.slice(1, -1));
  }
  return `${head.slice(0, -3)}[${parts.join(',')}]}`;
}

type IngredientView = MenuDocumentValue['ingredients'][number];

/** An ingredient of a snapshot published before food information: its allergens read []. */
export function ingredientWithDefaults(i: IngredientView): IngredientView {
  return i.allergens !== undefined ? i : { ...i, allergens: [] };
}

/** A product in today's read shape: the food information a snapshot may lack is there. */
export type CurrentProductValue = ProductViewValue &
  Required<
    Pick<ProductViewValue, 'allergens' | 'effectiveAllergens' | 'mayContain' | 'dietaryLabels' | 'spiceLevel' | 'calories' | 'nutrition'>
  >;

/**
 * A product of a snapshot published before food information reads its lists as [] and its values
 * as null (unset fields); one published before modifier rules reads each group's type
 * defaults and no default option.
 */
export function productWithDefaults(p: ProductViewValue): CurrentProductValue {
  if (p.allergens !== undefined && p.modifierGroups.every((g) => g.minSelections !== undefined)) return p as CurrentProductValue;
  return {
    ...p,
    modifierGroups: p.modifierGroups.map((g) => ({
      ...g,
      ...rulesOf(g),
      options: g.options.map((o) => ({ ...o, allergens: o.allergens ?? [], isDefault: o.isDefault ?? false })),
    })),
    allergens: p.allergens ?? [],
    effectiveAllergens: p.effectiveAllergens ?? [],
    mayContain: p.mayContain ?? [],
    dietaryLabels: p.dietaryLabels ?? [],
    spiceLevel: p.spiceLevel ?? null,
    calories: p.calories ?? null,
    nutrition: p.nutrition ?? null,
  };
}

/** A stored snapshot in today's read shape (ingredientWithDefaults, productWithDefaults). */
export function withReadDefaults(doc: MenuDocumentValue): MenuDocumentValue {
  const current =
    doc.ingredients.every((i) => i.allergens !== undefined) &&
    doc.products.every((p) => p.allergens !== undefined && p.modifierGroups.every((g) => g.minSelections !== undefined));
  if (current) return doc;
  return { ...doc, ingredients: doc.ingredients.map(ingredientWithDefaults), products: doc.products.map(productWithDefaults) };
}

/**
 * What guests see of a snapshot: active categories, and visible products
 * outside inactive categories (a product in an inactive category is hidden with it).
 * The guest menu shows exactly this, and only this can be ordered.
 */
export function guestVisible(doc: MenuDocumentValue) {
  const categories = doc.categories.filter((c) => c.isActive);
  const active = new Set(categories.map((c) => c.id));
  const products = doc.products.filter((p) => p.menuVisible && (p.categoryId === null || active.has(p.categoryId)));
  return { categories, products };
}
