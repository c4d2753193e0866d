// The venues module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export type { ApiKeysService, VenueContext } from './api-keys.service.js';
export { PLAN_DEFINITIONS, isSubscriptionActive, requireActiveSubscription } from './plans.js';
export type { Plan, SubscriptionStatus } from './plans.js';
export { VenueParams } from './venues.schemas.js';
export type { KeyMode } from './venues.schemas.js';
export type { VenuesService } from './venues.service.js';
