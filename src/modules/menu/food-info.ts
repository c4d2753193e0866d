// Food information: the reference's codes, their order, and what a product's
// allergens come to. Shared by the sync planner, PATCH and the read shapes.
import { ALLERGEN_CODES, DIETARY_LABEL_CODES, NUTRIENTS } from '../../shared/catalog.js';
import type { ProductRow } from './menu.repository.js';

const CODE_LISTS = [
  ['allergens', 'allergen', ALLERGEN_CODES],
  ['mayContain', 'allergen', ALLERGEN_CODES],
  ['dietaryLabels', 'dietary label', DIETARY_LABEL_CODES],
] as const;

/** The first unknown code an item sends, as its per-item error (`unknown allergen "glutten"`), or null. */
export function unknownCodes(item: { allergens?: string[]; mayContain?: string[]; dietaryLabels?: string[] }): string | null {
  for (const [field, what, known] of CODE_LISTS) {
    const wrong = item[field]?.find((code) => !(known as readonly string[]).includes(code));
    if (wrong !== undefined) return `unknown ${what} ${JSON.stringify(wrong)}${field === 'mayContain' ? ' in mayContain' : ''}`;
  }
  return null;
}

/** Nutrition with its keys in the reference's order (the keys sent, nothing added). */
export function nutritionOf(sent: Partial<Record<(typeof NUTRIENTS)[number], number>> | null): Record<string, number> | null {
  if (sent === null) return null;
  return Object.fromEntries(NUTRIENTS.filter((n) => sent[n] !== undefined).map((n) => [n, sent[n] as number]));
}

/** Codes in the reference's order (they are stored and read so). */
export function inReferenceOrder(codes: readonly string[], reference: readonly string[]): string[] {
  return reference.filter((code) => codes.includes(code));
}

/** A product's declared allergens joined with its composition's, in the reference's order. */
export function effectiveAllergens(declared: readonly string[], composition: readonly (readonly string[])[]): string[] {
  const all = new Set([...declared, ...composition.flat()]);
  return ALLERGEN_CODES.filter((code) => all.has(code));
}

/** The food information stored as a whole per field: code lists and nutrition. */
export type FoodColumns = Pick<ProductRow, 'allergens' | 'may_contain' | 'dietary_labels' | 'nutrition'>;

/**
 * What a sync item or a PATCH sends of them, as stored: lists in the reference's order, nutrition
 * with its keys in order; a field not sent is absent (omitted keeps).
 */
export function sentFoodColumns(sent: {
  allergens?: string[];
  mayContain?: string[];
  dietaryLabels?: string[];
  nutrition?: Parameters<typeof nutritionOf>[0];
}): Partial<FoodColumns> {
  return {
    ...(sent.allergens !== undefined ? { allergens: inReferenceOrder(sent.allergens, ALLERGEN_CODES) } : {}),
    ...(sent.mayContain !== undefined ? { may_contain: inReferenceOrder(sent.mayContain, ALLERGEN_CODES) } : {}),
    ...(sent.dietaryLabels !== undefined ? { dietary_labels: inReferenceOrder(sent.dietaryLabels, DIETARY_LABEL_CODES) } : {}),
    ...(sent.nutrition !== undefined ? { nutrition: nutritionOf(sent.nutrition) } : {}),
  };
}
