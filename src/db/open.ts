import type { Config } from '../config.js';
import type { Database, QueryListener } from './port.js';

export interface OpenOptions {
  onQuery?: QueryListener;
  /** PostgreSQL schema (tests isolate each file in one). */
  schema?: string;
  /** PostgreSQL: follow other instances' writes (a server does; see change-feed.ts). */
  listen?: boolean;
  /** PGlite: return while its thread still opens the files; statements wait for it (pglite.ts). */
  background?: boolean;
}

/** PGlite under DATA_DIR by default; PostgreSQL when DATABASE_URL is set. */
export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  // Each driver is loaded only when used: a start on one engine never pays for the other.
  if (config.databaseUrl) {
    const { openPostgres } = await import('./postgres.js');
    return openPostgres({
      url: config.databaseUrl,
      poolSize: config.databasePoolSize,
      lockTimeoutMs: config.databaseLockTimeoutMs,
      schema: options.schema,
      onQuery: options.onQuery,
      // The change feed, when this process serves requests and the operator has not turned it off.
      listenUrl: options.listen ? config.databaseListenUrl : null,
    });
  }
  const { openPglite } = await import('./pglite.js');
  return openPglite(`${config.dataDir}/pglite`, options.onQuery, { background: options.background });
}
