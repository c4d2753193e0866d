import type { Config } from '../config.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import type { Database, QueryListener } from './port.js';

export interface OpenOptions {
  onQuery?: QueryListener;
  /** PostgreSQL schema (tests isolate each file in one). */
  schema?: string;
}

/** PGlite under DATA_DIR by default; PostgreSQL when DATABASE_URL is set. */
export function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  if (config.databaseUrl) {
    return openPostgres({
      url: config.databaseUrl,
      poolSize: config.databasePoolSize,
      schema: options.schema,
      onQuery: options.onQuery,
    });
  }
  return openPglite(`${config.dataDir}/pglite`, options.onQuery);
}
