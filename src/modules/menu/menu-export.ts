import { groupFields } from '../../shared/modifier-rules.js';
import type { MenuDocumentValue, SyncInput } from './menu.schemas.js';

type Section = 'categories' | 'ingredients' | 'products';

export interface MenuExport {
  /** The menu in the sync format: syncing it back changes nothing. */
  body: SyncInput;
  /** Items made in the management app have no externalId, so a sync cannot name them. */
  omitted: Record<Section, number>;
}

/**
 * A menu document (GET /v1/menu) back into the body of POST /v1/sync: every field the sync takes,
 * nulls included (null clears), so `carta pull` then `carta push` reports every item skipped, and
 * pushing it to another venue leaves each product as it reads here.
 */
export function menuToSyncInput(menu: MenuDocumentValue): MenuExport {
  const omitted: Record<Section, number> = { categories: 0, ingredients: 0, products: 0 };
  const named = <T extends { externalId: string | null }>(section: Section, items: T[]) =>
    items.filter((item): item is T & { externalId: string } => {
      if (item.externalId === null) omitted[section] += 1;
      return item.externalId !== null;
    });

  const categories = named('categories', menu.categories).map((c) => ({
    externalId: c.externalId,
    name: c.name,
    sortOrder: c.sortOrder,
    schedule: c.schedule,
    cardStyle: c.cardStyle as SyncCategory['cardStyle'],
    isActive: c.isActive,
    translations: c.translations,
  }));
  const ingredients = named('ingredients', menu.ingredients).map((i) => ({
    externalId: i.externalId,
    name: i.name,
    sortOrder: i.sortOrder,
    translations: i.translations,
    allergens: i.allergens ?? [],
  }));
  const products = named('products', menu.products).map((p) => ({
    externalId: p.externalId,
    name: p.name,
    description: p.description,
    priceMinor: p.priceMinor,
    salePriceMinor: p.salePriceMinor,
    isSaleActive: p.isSaleActive,
    amount: p.amount,
    unit: p.unit as SyncProduct['unit'],
    badgeLabel: p.badgeLabel,
    badgeColor: p.badgeColor as SyncProduct['badgeColor'],
    sortOrder: p.sortOrder,
    menuVisible: p.menuVisible,
    translations: p.translations,
    categoryExternalId: p.categoryExternalId,
    ingredientExternalIds: p.ingredients.flatMap((i) => (i.externalId === null ? [] : [i.externalId])),
    // The declared food information, not effectiveAllergens: the composition adds those.
    allergens: p.allergens ?? [],
    mayContain: p.mayContain ?? [],
    dietaryLabels: p.dietaryLabels ?? [],
    spiceLevel: p.spiceLevel ?? null,
    calories: p.calories ?? null,
    nutrition: p.nutrition ?? null,
    modifierGroups: p.modifierGroups.map((g) => ({
      ...groupFields(g),
      options: g.options.flatMap((o) =>
        o.ingredientExternalId === null
          ? []
          : [
              {
                ingredientExternalId: o.ingredientExternalId,
                action: o.action as 'add' | 'remove',
                priceAdjustment: o.priceAdjustment,
                sortOrder: o.sortOrder,
                isDefault: o.isDefault ?? false,
              },
            ],
      ),
    })),
  }));
  return { body: { categories, ingredients, products }, omitted };
}

type SyncCategory = NonNullable<SyncInput['categories']>[number];
type SyncProduct = NonNullable<SyncInput['products']>[number];
