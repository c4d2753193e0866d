import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import type { Database, QueryListener } from '../../src/db/port.js';

export interface TestDatabase {
  db: Database;
  /** PostgreSQL: the schema this file's tables live in (a second instance can open it too). */
  schema?: string;
  /** Drops what the test made (a schema or a copied directory). */
  dispose(): Promise<void>;
}

export const onPostgres = Boolean(process.env.DATABASE_URL);

/**
 * A database of this test file's own. PGlite: a copy of the run's migrated template (reopening a
 * data directory is ~10x cheaper than initialising one). PostgreSQL: a fresh schema, migrated.
 */
export async function testDatabase(onQuery?: QueryListener): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = await openPostgres({ url, poolSize: 1 });
    await admin.query(`create schema ${schema}`);
    const db = await openPostgres({ url, poolSize: 10, schema, onQuery, listen: true });
    await migrate(db);
    return {
      db,
      schema,
      async dispose() {
        await db.close();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.close();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-test-'));
  const template = process.env.CARTA_TEST_TEMPLATE;
  if (template) fs.cpSync(template, dir, { recursive: true });
  const db = await openPglite(dir, onQuery);
  if (!template) await migrate(db);
  return {
    db,
    async dispose() {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ThrowawayDatabase {
  /** The new database's name. */
  name: string;
  /** DATABASE_URL with the new database's name. */
  url: URL;
  /** A client on the server's `postgres` database (for pg_stat_activity and the drop). */
  server: import('pg').Client;
  /** Drops the database, whoever is still connected, and closes the client. */
  drop(): Promise<void>;
}

/**
 * A database of its own on DATABASE_URL's server, for tests that run real processes or cut
 * connections and must touch nothing else on the shared server.
 */
export async function throwawayDatabase(prefix: string): Promise<ThrowawayDatabase> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const serverUrl = new URL(process.env.DATABASE_URL as string);
  serverUrl.pathname = '/postgres';
  const server = new pg.Client({ connectionString: serverUrl.href });
  await server.connect();
  await server.query(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL as string);
  url.pathname = `/${name}`;
  return {
    name,
    url,
    server,
    async drop() {
      await server.query(`drop database if exists ${name} with (force)`);
      await server.end();
    },
  };
}
