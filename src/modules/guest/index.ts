// The guest module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export type { GuestVenueInfo } from './guest-view.js';
export { guestOrderPath, guestVenuePath } from './guest.paths.js';
export { GuestOrderParams, SlugParams } from './guest.schemas.js';
export type { GuestMenuView, GuestOrderView } from './guest.schemas.js';
export type { GuestService } from './guest.service.js';
