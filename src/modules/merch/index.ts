// The merch module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { translateBanners } from './banner-translations.js';
export { promoPrice } from './guest-merch.js';
export type { GuestMerch, LiveMerch } from './guest-merch.js';
export { TokenParams } from './tables.schemas.js';
export type { TablesService } from './tables.service.js';
