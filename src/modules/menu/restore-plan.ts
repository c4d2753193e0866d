// What a restore writes: the draft rows that hold a snapshot's content again, and
// the draft items the snapshot lacks. Pure: the snapshot and the draft's keys in, the writes out.
import { groupFields } from '../../shared/modifier-rules.js';
import { imageKeys, storedImageOf, type StoredImage } from '../media/index.js';
import type { CategoryWrite, IngredientWrite, ProductWrite, StoredModifierGroup } from './menu.repository.js';
import type { MenuDocumentValue } from './menu.schemas.js';
import { productVersion, type DraftKeys } from './publications.repository.js';

export interface RestorePlan {
  categories: CategoryWrite[];
  ingredients: IngredientWrite[];
  /** The products to write: those whose row changed since the snapshot was made. */
  products: ProductWrite[];
  images: { id: string; image: StoredImage | null }[];
  /** Draft ids the snapshot lacks: categories and ingredients are deleted, products hidden (as by cleanup). */
  drop: { categories: string[]; ingredients: string[]; products: string[] };
  /** Image keys the restored products held before: released unless something still refers to them. */
  replacedImageKeys: string[];
}

/** Matches a snapshot item to a draft row by externalId, else by id; the draft row's id is kept. */
function matcher(rows: { id: string; external_id: string | null }[]) {
  const byExternalId = new Map(rows.flatMap((r) => (r.external_id === null ? [] : [[r.external_id, r.id] as const])));
  const ids = new Set(rows.map((r) => r.id));
  const kept = new Set<string>();
  return {
    idOf(item: { id: string; externalId: string | null }): string {
      const id = item.externalId !== null ? (byExternalId.get(item.externalId) ?? item.id) : item.id;
      kept.add(id);
      return id;
    },
    /** The draft ids no snapshot item was matched to. */
    rest: () => [...ids].filter((id) => !kept.has(id)),
  };
}

/**
 * `productVersions` are the product rows' versions when the snapshot was made: a draft row that
 * still has its version holds the snapshot's content already and is not written.
 */
export function restorePlan(snapshot: MenuDocumentValue, draft: DraftKeys, productVersions: Record<string, string>): RestorePlan {
  const categoryIds = matcher(draft.categories);
  const ingredientIds = matcher(draft.ingredients);
  const productIds = matcher(draft.products);

  const categories: CategoryWrite[] = snapshot.categories.map((c) => ({
    id: categoryIds.idOf(c),
    external_id: c.externalId,
    name: c.name,
    sort_order: c.sortOrder,
    schedule: c.schedule,
    card_style: c.cardStyle,
    is_active: c.isActive,
    translations: c.translations,
    sync_hash: null,
  }));
  const categoryId = new Map(snapshot.categories.map((c, i) => [c.id, categories[i].id]));

  const ingredients: IngredientWrite[] = snapshot.ingredients.map((i) => ({
    id: ingredientIds.idOf(i),
    external_id: i.externalId,
    name: i.name,
    sort_order: i.sortOrder,
    translations: i.translations,
    allergens: i.allergens ?? [],
    sync_hash: null,
  }));
  const ingredientId = new Map(
    snapshot.ingredients.flatMap((i, n) => (i.externalId === null ? [] : [[i.externalId, ingredients[n].id] as const])),
  );
  const ingredientRef = (externalId: string | null) => (externalId === null ? undefined : ingredientId.get(externalId));

  const draftProducts = new Map(draft.products.map((p) => [p.id, p]));
  const images: RestorePlan['images'] = [];
  const replacedImageKeys: string[] = [];
  const products: ProductWrite[] = [];
  for (const p of snapshot.products) {
    const id = productIds.idOf(p);
    const row = draftProducts.get(id);
    if (row !== undefined && id === p.id && productVersions[id] === productVersion(row)) continue;
    const image = storedImageOf(p.image);
    const before = row?.image ?? null;
    if (before !== null || image !== null) {
      images.push({ id, image });
      replacedImageKeys.push(...imageKeys(before));
    }
    const modifierGroups: StoredModifierGroup[] = p.modifierGroups.map((g) => ({
      id: g.id,
      ...groupFields(g),
      options: g.options.flatMap((o) => {
        const ingredient = ingredientRef(o.ingredientExternalId);
        return ingredient === undefined
          ? []
          : [
              {
                id: o.id,
                ingredientId: ingredient,
                action: o.action as 'add' | 'remove',
                priceAdjustment: o.priceAdjustment,
                sortOrder: o.sortOrder,
                isDefault: o.isDefault ?? false,
              },
            ];
      }),
    }));
    products.push({
      id,
      external_id: p.externalId,
      name: p.name,
      description: p.description,
      price_minor: p.priceMinor,
      sale_price_minor: p.salePriceMinor,
      is_sale_active: p.isSaleActive,
      amount: p.amount,
      unit: p.unit,
      badge_label: p.badgeLabel,
      badge_color: p.badgeColor,
      category_id: p.categoryId === null ? null : (categoryId.get(p.categoryId) ?? null),
      ingredient_ids: p.ingredients.flatMap((i) => ingredientRef(i.externalId) ?? []),
      modifier_groups: modifierGroups,
      sort_order: p.sortOrder,
      menu_visible: p.menuVisible,
      cleaned_up_at: null,
      translations: p.translations,
      allergens: p.allergens ?? [],
      may_contain: p.mayContain ?? [],
      dietary_labels: p.dietaryLabels ?? [],
      spice_level: p.spiceLevel ?? null,
      calories: p.calories ?? null,
      nutrition: p.nutrition ?? null,
      sync_hash: null,
    });
  }

  return {
    categories,
    ingredients,
    products,
    images,
    drop: { categories: categoryIds.rest(), ingredients: ingredientIds.rest(), products: productIds.rest() },
    replacedImageKeys: [...new Set(replacedImageKeys)],
  };
}
