import type { Config } from './config.js';
import type { Database } from './db/port.js';
import { ReferenceService, type RouteEntry } from './modules/reference/reference.service.js';
import { ApiKeysService } from './modules/venues/api-keys.service.js';
import { VenuesService } from './modules/venues/venues.service.js';

export interface ServiceDeps {
  config: Config;
  db: Database;
  /** The registered routes, for the reference resources index (empty outside the HTTP app). */
  routes?: () => readonly RouteEntry[];
}

/** Every service, wired once; the HTTP app and the CLI both use this. */
export function createServices({ db, routes = () => [] }: ServiceDeps) {
  return {
    venues: new VenuesService(db),
    apiKeys: new ApiKeysService(db),
    reference: new ReferenceService(db, routes),
  };
}

export type Services = ReturnType<typeof createServices>;
