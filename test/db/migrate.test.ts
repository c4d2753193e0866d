import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/port.js';
import { openPostgres } from '../../src/db/postgres.js';
import { testDatabase } from '../helpers/db.js';

interface Fresh {
  db: Database;
  /** A second, independent connection pool on the same database (PostgreSQL only). */
  second?: Database;
  dispose(): Promise<void>;
}

/** A database with no migrations applied. */
async function freshDatabase(): Promise<Fresh> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const owner = await openPostgres({ url, poolSize: 1 });
    await owner.query(`create schema ${schema}`);
    const db = await openPostgres({ url, poolSize: 2, schema });
    const second = await openPostgres({ url, poolSize: 2, schema });
    return {
      db,
      second,
      async dispose() {
        await db.close();
        await second.close();
        await owner.query(`drop schema ${schema} cascade`);
        await owner.close();
      },
    };
  }
  // A copy of the migrated template with its schema wiped is far cheaper than a new PGlite.
  const copy = await testDatabase();
  await copy.db.exec('drop schema public cascade; create schema public;');
  return { db: copy.db, dispose: () => copy.dispose() };
}

async function appliedVersions(db: Database): Promise<number[]> {
  const { rows } = await db.query<{ version: number }>('select version from schema_migrations order by version');
  return rows.map((r) => r.version);
}

const ALL = loadMigrations();

describe('migrations', () => {
  it('finds the migration files in version order, each version once', () => {
    assert.ok(ALL.length >= 2);
    const versions = ALL.map((m) => m.version);
    assert.deepEqual(
      versions,
      [...versions].sort((a, b) => a - b),
    );
    assert.equal(new Set(versions).size, versions.length);
    assert.equal(ALL[0].name, '0001_venues');
    for (const m of ALL) assert.match(m.name, /^\d{4}_[\w-]+$/);
  });

  it('applies every migration on a fresh database and nothing the second time', async () => {
    const f = await freshDatabase();
    try {
      assert.deepEqual(
        await migrate(f.db),
        ALL.map((m) => m.name),
      );
      assert.deepEqual(await migrate(f.db), []);
      assert.deepEqual(
        await appliedVersions(f.db),
        ALL.map((m) => m.version),
      );
      // The schema is really there.
      const { rows } = await f.db.query<{ n: number }>('select count(*)::int as n from venues');
      assert.equal(rows[0].n, 0);
    } finally {
      await f.dispose();
    }
  });

  it('applies each migration once when two migrate() calls race on one fresh database', async () => {
    const f = await freshDatabase();
    try {
      // PGlite has one connection and serialises the two; PostgreSQL runs two pools against each other.
      const results = await Promise.all([migrate(f.db), migrate(f.second ?? f.db)]);
      const applied = results.flat().sort();
      assert.deepEqual(applied, ALL.map((m) => m.name).sort());
      assert.ok(
        results.some((r) => r.length === 0),
        'one of the two found nothing left to do',
      );
      assert.deepEqual(
        await appliedVersions(f.db),
        ALL.map((m) => m.version),
      );
    } finally {
      await f.dispose();
    }
  });

  it('applies only the migrations not yet recorded', async () => {
    const f = await freshDatabase();
    try {
      assert.deepEqual(await migrate(f.db, ALL.slice(0, 1)), [ALL[0].name]);
      assert.deepEqual(
        await migrate(f.db),
        ALL.slice(1).map((m) => m.name),
      );
      assert.deepEqual(
        await appliedVersions(f.db),
        ALL.map((m) => m.version),
      );
    } finally {
      await f.dispose();
    }
  });

  it('rolls back every migration of a run when one of them fails', async () => {
    const f = await freshDatabase();
    try {
      await migrate(f.db);
      const broken = [
        ...ALL,
        { version: 9001, name: '9001_ok', sql: 'create table migrate_probe (x integer);' },
        { version: 9002, name: '9002_broken', sql: 'this is not sql;' },
      ];
      await assert.rejects(migrate(f.db, broken));
      assert.deepEqual(
        await appliedVersions(f.db),
        ALL.map((m) => m.version),
      );
      const { rows } = await f.db.query<{ t: string | null }>(`select to_regclass('migrate_probe')::text as t`);
      assert.equal(rows[0].t, null);
    } finally {
      await f.dispose();
    }
  });
});
