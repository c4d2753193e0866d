import type { Menu } from './types.js';

type Translations = Record<string, Record<string, string>>;

/** The translated value of a field, or the stored one (a locale or field may be missing). */
function pick(translations: Translations | undefined, locale: string, field: string, fallback: string): string;
function pick(translations: Translations | undefined, locale: string, field: string, fallback: string | null): string | null;
function pick(translations: Translations | undefined, locale: string, field: string, fallback: string | null): string | null {
  const value = translations?.[locale]?.[field];
  return value === undefined || value === '' ? fallback : value;
}

/**
 * GET /v1/menu returns the stored names with their translation maps; this resolves the names to
 * one locale the way the guest menu does (missing translations fall back to the stored value).
 * The translation maps are kept.
 */
export function localizeMenu(menu: Menu, locale: string): Menu {
  const ingredientNames = new Map<string, string>();
  const ingredients = menu.ingredients.map((i) => {
    const name = pick(i.translations, locale, 'name', i.name);
    if (i.externalId !== null) ingredientNames.set(i.externalId, name);
    return { ...i, name };
  });
  const ingredientName = (externalId: string | null, fallback: string) =>
    (externalId !== null ? ingredientNames.get(externalId) : undefined) ?? fallback;
  return {
    ...menu,
    categories: menu.categories.map((c) => ({ ...c, name: pick(c.translations, locale, 'name', c.name) })),
    ingredients,
    products: menu.products.map((p) => ({
      ...p,
      name: pick(p.translations, locale, 'name', p.name),
      description: pick(p.translations, locale, 'description', p.description),
      badgeLabel: pick(p.translations, locale, 'badgeLabel', p.badgeLabel),
      ingredients: p.ingredients.map((i) => ({ ...i, name: ingredientName(i.externalId, i.name) })),
      modifierGroups: p.modifierGroups.map((g) => ({
        ...g,
        name: pick(g.translations, locale, 'name', g.name),
        options: g.options.map((o) => ({ ...o, ingredientName: ingredientName(o.ingredientExternalId, o.ingredientName) })),
      })),
    })),
  };
}
