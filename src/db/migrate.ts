import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../paths.js';
import type { Database } from './port.js';

// One fixed advisory-lock key: two instances starting at once apply migrations one after the other.
const MIGRATION_LOCK_KEY = 7_242_019_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.replace(/\.sql$/, ''),
      sql: fs.readFileSync(path.join(dir, file), 'utf8'),
    }));
}

/** Applies pending migrations in one transaction under an advisory lock; returns the names applied. */
export async function migrate(db: Database, migrations: Migration[] = loadMigrations()): Promise<string[]> {
  return db.transaction(async (tx) => {
    // Another instance may be migrating: wait for it longer than the request lock timeout.
    await tx.query(`set local lock_timeout = '300s'`);
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz(3) not null default now()
    )`);
    const { rows } = await tx.query<{ version: number }>('select version from schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
      done.push(m.name);
    }
    return done;
  });
}
