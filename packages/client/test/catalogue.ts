import type { SyncMenu } from '../src/index.js';

/**
 * A catalogue of `products` products over 40 categories and 250 ingredients (more than one
 * request's 200), every product with a category, a composition, two modifier groups and
 * Ukrainian translations (the venue must have `uk` enabled).
 */
export function catalogue(products: number, options: { categories?: number; ingredients?: number; price?: number } = {}): SyncMenu {
  const categoryCount = options.categories ?? 40;
  const ingredientCount = options.ingredients ?? 250;
  const ingredient = (n: number) => `ing-${n % ingredientCount}`;
  return {
    categories: Array.from({ length: categoryCount }, (_, i) => ({
      externalId: `cat-${i}`,
      name: `Category ${i}`,
      sortOrder: i,
      translations: { uk: { name: `Категорія ${i}` } },
    })),
    ingredients: Array.from({ length: ingredientCount }, (_, i) => ({
      externalId: `ing-${i}`,
      name: `Ingredient ${i}`,
      translations: { uk: { name: `Інгредієнт ${i}` } },
    })),
    products: Array.from({ length: products }, (_, p) => ({
      externalId: `prod-${p}`,
      name: `Product ${p}`,
      description: `The ${p}th dish of the house`,
      priceMinor: (options.price ?? 1000) + p,
      categoryExternalId: `cat-${p % categoryCount}`,
      ingredientExternalIds: [ingredient(p), ingredient(p + 1), ingredient(p + 2)],
      modifierGroups: [
        {
          name: 'Size',
          type: 'single_choice' as const,
          options: [{ ingredientExternalId: ingredient(p + 3) }, { ingredientExternalId: ingredient(p + 4), priceAdjustment: 150 }],
          translations: { uk: { name: 'Розмір' } },
        },
        {
          name: 'Extras',
          type: 'add_ingredients' as const,
          options: [
            { ingredientExternalId: ingredient(p + 5), priceAdjustment: 100 },
            { ingredientExternalId: ingredient(p + 6), priceAdjustment: 200 },
            { ingredientExternalId: ingredient(p + 7), priceAdjustment: 50 },
          ],
        },
      ],
      translations: { uk: { name: `Страва ${p}`, description: `Страва номер ${p}` } },
    })),
  };
}
