// The availability module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { Availability, AvailabilityPutBody, AvailabilityPutResult, ORDERING_REASONS, Ordering } from './availability.schemas.js';
export type { AvailabilityValue, OrderingView } from './availability.schemas.js';
export type { AvailabilityService } from './availability.service.js';
export {
  optionAvailability,
  productAvailability,
  scheduledCategories,
  withAvailability,
  withProductAvailability,
} from './item-availability.js';
export type { AvailabilityState, ScheduledCategory } from './item-availability.js';
export { orderingAt, scheduledForProblems } from './ordering.js';
