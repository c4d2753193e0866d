// The settings module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { OrderConfig } from './settings.schemas.js';
export type { OpeningHoursValue, OrderConfigValue, SettingsView, ThemeValue } from './settings.schemas.js';
export { effectiveLanguages, effectiveOrderConfig, readSettings } from './settings.service.js';
export type { SettingsService } from './settings.service.js';
