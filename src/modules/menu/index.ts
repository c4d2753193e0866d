// The menu module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { locales, translateDraft } from './draft-translations.js';
export type { TranslationsApplied } from './draft-translations.js';
export type { CachedBody, MenuCache } from './menu-cache.js';
export { Nutrition, ScheduleEntry } from './menu.schemas.js';
export type { MenuDocumentValue } from './menu.schemas.js';
export { publicationDocument } from './menu.service.js';
export { guestVisible, productWithDefaults } from './menu.views.js';
export { findProductByRef } from './products.service.js';
export { checkTranslations, mergeTranslations } from './translations.js';
export { BannerTranslations, NameTranslations, ProductTranslations, TEXT_MAX } from './translations.schemas.js';
export type { StoredTranslations, TranslationsInput } from './translations.schemas.js';
