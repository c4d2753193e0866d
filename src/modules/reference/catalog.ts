// Static catalog data of spec 2.9 that validators across modules share.

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

export type Currency = (typeof CURRENCIES)[number];
export type Language = (typeof LANGUAGES)[number];
