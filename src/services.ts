import type { Config } from './config.js';
import type { Database } from './db/port.js';
import { AuditService } from './modules/audit/audit.service.js';
import { CleanupService } from './modules/menu/cleanup.service.js';
import { GuestService } from './modules/guest/guest.service.js';
import { MenuCache } from './modules/menu/menu-cache.js';
import { MenuService } from './modules/menu/menu.service.js';
import { ProductsService } from './modules/menu/products.service.js';
import { SyncService } from './modules/menu/sync.service.js';
import { OrdersService } from './modules/orders/orders.service.js';
import { ReferenceService, type RouteEntry } from './modules/reference/reference.service.js';
import { SettingsService } from './modules/settings/settings.service.js';
import { TranslationsService } from './modules/translations/translations.service.js';
import { ApiKeysService } from './modules/venues/api-keys.service.js';
import { VenuesService } from './modules/venues/venues.service.js';

export interface ServiceDeps {
  config: Config;
  db: Database;
  /** The registered routes, for the reference resources index (empty outside the HTTP app). */
  routes?: () => readonly RouteEntry[];
}

/** Every service, wired once; the HTTP app and the CLI both use this. */
export function createServices({ config, db, routes = () => [] }: ServiceDeps) {
  const menuCache = new MenuCache();
  return {
    venues: new VenuesService(db),
    apiKeys: new ApiKeysService(db),
    reference: new ReferenceService(db, routes),
    audit: new AuditService(db),
    settings: new SettingsService(db),
    sync: new SyncService(db, config),
    menu: new MenuService(db, menuCache),
    products: new ProductsService(db),
    cleanup: new CleanupService(db),
    translations: new TranslationsService(db),
    orders: new OrdersService(db),
    guest: new GuestService(db, menuCache),
  };
}

export type Services = ReturnType<typeof createServices>;
