// The guest menu JSON the page reads (GET /guest/v1/venues/:slug/menu), as the server's schema
// defines it (one schema, one type: style rule 2). Type-only imports: nothing of the server
// enters the bundle.
import type { GuestMenuView } from '../../src/modules/guest/guest.schemas.js';

export type GuestMenu = GuestMenuView;
export type MenuProduct = GuestMenu['products'][number];
export type MenuGroup = MenuProduct['modifierGroups'][number];
export type MenuOption = MenuGroup['options'][number];
