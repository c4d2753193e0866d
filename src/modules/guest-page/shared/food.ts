// Food information on the guest page, shared by the server's first paint and the
// page's script: allergens and dietary labels in words, spice level, calories and nutrition per
// portion, and the guest's filter. The names come in (FoodNames, of one language): the table of
// every language stays on the server (food-names.ts).
import type { UiStrings } from './strings.js';
import { fill } from './strings.js';

/** The allergen and dietary label names of the page's language, by code. */
export interface FoodNames {
  allergens: Record<string, string>;
  labels: Record<string, string>;
}

/** Nutrition per portion in grams, in the order of a nutrition declaration. */
export const NUTRIENT_KEYS = ['fat', 'saturatedFat', 'carbohydrate', 'sugars', 'fibre', 'protein', 'salt'] as const;
export type NutrientKey = (typeof NUTRIENT_KEYS)[number];
/** The "of which" lines, indented under the line before. */
const PART_OF = new Set<NutrientKey>(['saturatedFat', 'sugars']);

/** A product's food information as the guest menu gives it; absent reads as unset (older pages). */
export interface FoodInfo {
  effectiveAllergens?: string[];
  mayContain?: string[];
  dietaryLabels?: string[];
  spiceLevel?: number | null;
  calories?: number | null;
  nutrition?: Partial<Record<NutrientKey, number>> | null;
}

export interface NutritionRow {
  key: 'calories' | NutrientKey;
  label: string;
  value: string;
  /** An "of which" line (saturates, sugars). */
  part: boolean;
}

export interface FoodFacts {
  allergens: string[];
  labels: string[];
  mayContain: string[];
  /** "Spicy: 2 of 3" (or "Not spicy" for 0), null when not said. */
  spice: { level: number; text: string } | null;
  /** Calories, then the nutrients given, in declaration order; empty when none is given. */
  nutrition: NutritionRow[];
}

/** Names of codes in the page's language; a code without a name (a newer one) shows as itself. */
export function namesOf(codes: readonly string[] | undefined, names: Record<string, string>): string[] {
  return (codes ?? []).map((code) => names[code] ?? code);
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A number in the locale's way, at most one decimal (grams are given to 0.1). */
export function formatAmount(value: number, locale: string): string {
  let f = numberFormats.get(locale);
  if (!f) {
    try {
      f = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
    } catch {
      f = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
    }
    numberFormats.set(locale, f);
  }
  return f.format(value);
}

export function foodFacts(p: FoodInfo, t: UiStrings, names: FoodNames, locale: string): FoodFacts {
  const level = p.spiceLevel ?? null;
  const nutrition: NutritionRow[] = [];
  if (p.calories !== null && p.calories !== undefined) {
    nutrition.push({ key: 'calories', label: t.calories, value: `${formatAmount(p.calories, locale)} kcal`, part: false });
  }
  for (const key of NUTRIENT_KEYS) {
    const grams = p.nutrition?.[key];
    if (typeof grams === 'number')
      nutrition.push({ key, label: t[`n_${key}`], value: `${formatAmount(grams, locale)} g`, part: PART_OF.has(key) });
  }
  return {
    allergens: namesOf(p.effectiveAllergens, names.allergens),
    labels: namesOf(p.dietaryLabels, names.labels),
    mayContain: namesOf(p.mayContain, names.allergens),
    spice: level === null ? null : { level, text: level === 0 ? t.notSpicy : fill(t.spicy, { level }) },
    nutrition,
  };
}

/** The guest's filter: dishes with any of `hide` go, and `diet` keeps vegetarian or vegan ones only. */
export interface FoodFilter {
  hide: string[];
  diet: 'all' | 'vegetarian' | 'vegan';
}

export const NO_FILTER: FoodFilter = { hide: [], diet: 'all' };

/**
 * Whether the filter hides a dish of these allergens (effectiveAllergens) and labels. A vegan dish
 * is vegetarian too, even when only "vegan" is set.
 */
export function filteredOut(allergens: readonly string[], labels: readonly string[], filter: FoodFilter): boolean {
  if (allergens.some((code) => filter.hide.includes(code))) return true;
  if (filter.diet === 'vegan') return !labels.includes('vegan');
  if (filter.diet === 'vegetarian') return !labels.includes('vegetarian') && !labels.includes('vegan');
  return false;
}

/** A stored filter made safe: known codes only, a known diet (sessionStorage can hold anything). */
export function cleanFilter(value: unknown, codes: readonly string[]): FoodFilter {
  const v = (value ?? {}) as Partial<FoodFilter>;
  const hide = Array.isArray(v.hide) ? codes.filter((c) => (v.hide as unknown[]).includes(c)) : [];
  const diet = v.diet === 'vegetarian' || v.diet === 'vegan' ? v.diet : 'all';
  return { hide, diet };
}
