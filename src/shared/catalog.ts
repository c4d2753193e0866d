// Static catalog data that validators across modules share.

export const UNITS = ['PCS', 'G', 'ML'] as const;
export const BADGE_COLORS = ['RED', 'PURPLE', 'YELLOW', 'GREEN', 'BLUE', 'GREY'] as const;
export const CARD_STYLES = ['minimalism', 'compact', 'premium'] as const;
export const CURRENCIES = ['UAH', 'USD', 'EUR', 'PLN', 'GBP', 'CAD', 'PEN', 'CLP', 'MXN', 'COP', 'UZS'] as const;
export const LANGUAGES = ['uk', 'en', 'es', 'fr', 'de', 'it', 'pt-BR', 'ru', 'pl', 'cs', 'zh-CN', 'ar', 'ja', 'uz'] as const;
export const MODIFIER_TYPES_ACCEPTED = ['single_choice', 'multiple_choice', 'add_ingredients', 'remove_ingredients'] as const;
export const MODIFIER_TYPES_CANONICAL = ['single_choice', 'add_ingredients', 'remove_ingredients'] as const;
export const MODIFIER_TYPES_DEPRECATED = {
  multiple_choice: 'Deprecated: accepted for backward compatibility and stored as add_ingredients',
} as const;

/** The 14 allergens of EU Regulation 1169/2011 Annex II, in its order, with English names. */
export const ALLERGENS = [
  { code: 'gluten', name: 'Cereals containing gluten' },
  { code: 'crustaceans', name: 'Crustaceans' },
  { code: 'eggs', name: 'Eggs' },
  { code: 'fish', name: 'Fish' },
  { code: 'peanuts', name: 'Peanuts' },
  { code: 'soybeans', name: 'Soybeans' },
  { code: 'milk', name: 'Milk' },
  { code: 'nuts', name: 'Nuts' },
  { code: 'celery', name: 'Celery' },
  { code: 'mustard', name: 'Mustard' },
  { code: 'sesame', name: 'Sesame seeds' },
  { code: 'sulphites', name: 'Sulphur dioxide and sulphites' },
  { code: 'lupin', name: 'Lupin' },
  { code: 'molluscs', name: 'Molluscs' },
] as const;
export const ALLERGEN_CODES = ALLERGENS.map((a) => a.code);

export const DIETARY_LABELS = [
  { code: 'vegetarian', name: 'Vegetarian' },
  { code: 'vegan', name: 'Vegan' },
  { code: 'gluten_free', name: 'Gluten-free' },
  { code: 'lactose_free', name: 'Lactose-free' },
  { code: 'halal', name: 'Halal' },
  { code: 'kosher', name: 'Kosher' },
] as const;
export const DIETARY_LABEL_CODES = DIETARY_LABELS.map((l) => l.code);

/** Nutrition values per portion, in grams. */
export const NUTRIENTS = ['fat', 'saturatedFat', 'carbohydrate', 'sugars', 'fibre', 'protein', 'salt'] as const;

export type Currency = (typeof CURRENCIES)[number];
export type Language = (typeof LANGUAGES)[number];
