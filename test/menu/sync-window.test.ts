import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/migrate.js';
import { openPostgres } from '../../src/db/postgres.js';
import type { Database } from '../../src/db/port.js';
import type { App } from '../../src/http/types.js';
import { BODY_LIMIT_BYTES } from '../../src/limits.js';
import { ADMIN_TOKEN, call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';

// The sync window: a sync whose transaction runs
// past SYNC_TIMEOUT_MS is 413 SYNC_TOO_LARGE and writes nothing; and a write that waits on a
// venue's menu lock past lock_timeout is 503 LOCK_TIMEOUT with Retry-After instead of hanging.
// Runs on PGlite and, with DATABASE_URL, on PostgreSQL (the lock test on PostgreSQL only).

/** 200 ingredients and 500 products of 20 modifier groups x 4 options: valid, under 5 MB, slow to plan and write. */
function largeSync() {
  const ingredients = Array.from({ length: 200 }, (_, i) => ({ externalId: `i${i}`, name: `Ingredient ${i}` }));
  const products = Array.from({ length: 500 }, (_, p) => ({
    externalId: `p${p}`,
    name: `Product ${p}`,
    priceMinor: 1000 + p,
    ingredientExternalIds: [`i${p % 200}`, `i${(p + 1) % 200}`],
    modifierGroups: Array.from({ length: 20 }, (_, g) => ({
      name: `Group ${g}`,
      type: 'add_ingredients',
      options: Array.from({ length: 4 }, (_, o) => ({ ingredientExternalId: `i${(p + g * 4 + o) % 200}`, priceAdjustment: 10 * o })),
    })),
  }));
  return { ingredients, products };
}

async function assertNothingWritten(app: App, key: string): Promise<void> {
  const menu = await call(app, 'GET', '/v1/menu', { key });
  assert.equal(menu.status, 200);
  assert.deepEqual([menu.body.categories.length, menu.body.ingredients.length, menu.body.products.length], [0, 0, 0]);
  const audit = await call(app, 'GET', '/v1/audit-log', { key });
  assert.equal(audit.body.total, 0, 'no audit entry');
  const usage = (await call(app, 'GET', '/v1/reference', { key })).body.planLimits.usage;
  assert.deepEqual([usage.products, usage.ingredients], [0, 0]);
}

describe('sync window', () => {
  let tight: TestApp;
  let normal: App;
  before(async () => {
    // loadConfig keeps SYNC_TIMEOUT_MS >= 100; an override can go lower so the window always trips.
    tight = await startApp({ syncTimeoutMs: 2 });
    // A second instance on the same database with the normal 30 s window.
    normal = (await buildApp({ config: { ...tight.config, syncTimeoutMs: 30_000 }, db: tight.database.db })).app;
    await normal.ready();
  });
  after(async () => {
    await normal.close();
    await tight.close();
  });

  it('fails a sync that runs past the window with 413 SYNC_TOO_LARGE and writes nothing', async () => {
    const venue = await createVenue(tight.app, { plan: 'standard' });
    const body = largeSync();
    assert.ok(Buffer.byteLength(JSON.stringify(body)) < BODY_LIMIT_BYTES, 'under the body cap');

    const res = await call(tight.app, 'POST', '/v1/sync', { key: venue.key, body });
    assert.equal(res.status, 413, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.code, 'SYNC_TOO_LARGE');
    assert.match(res.body.message, /nothing was written/);
    assert.equal(res.body.path, '/v1/sync');
    await assertNothingWritten(tight.app, venue.key);

    // The same payload is valid: with the normal window the plan creates everything.
    const dry = await call(normal, 'POST', '/v1/sync?dryRun=true', { key: venue.key, body });
    assert.equal(dry.status, 201, JSON.stringify(dry.body).slice(0, 300));
    assert.deepEqual([dry.body.products.created, dry.body.ingredients.created], [500, 200]);
    await assertNothingWritten(normal, venue.key);
  });

  it('bounds a dry run by the same window', async () => {
    const venue = await createVenue(tight.app, { plan: 'standard' });
    const res = await call(tight.app, 'POST', '/v1/sync?dryRun=true', { key: venue.key, body: largeSync() });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'SYNC_TOO_LARGE');
  });

  it('lets a tiny sync through with the normal window', async () => {
    const venue = await createVenue(normal, { plan: 'standard' });
    const res = await call(normal, 'POST', '/v1/sync', {
      key: venue.key,
      body: { ingredients: [{ externalId: 'i1', name: 'Milk' }], products: [{ externalId: 'p1', name: 'Latte', priceMinor: 350 }] },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.products.created, 1);
    const menu = await call(normal, 'GET', '/v1/menu', { key: venue.key });
    assert.deepEqual(
      menu.body.products.map((p: any) => p.externalId),
      ['p1'],
    );
  });
});

describe(
  'menu lock wait (PostgreSQL)',
  { skip: onPostgres ? false : 'PGlite has one connection: no other session can hold the lock' },
  () => {
    const LOCK_TIMEOUT_MS = 300;
    const url = process.env.DATABASE_URL as string;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    let admin: Database;
    let db: Database;
    let holder: Database;
    let app: App;

    before(async () => {
      admin = await openPostgres({ url, poolSize: 1 });
      await admin.query(`create schema ${schema}`);
      // The app's pool as openDatabase builds it, but with a short lock_timeout (10 s by default,
      // which Config does not expose) so the test does not wait 10 s.
      db = await openPostgres({ url, poolSize: 4, schema, lockTimeoutMs: LOCK_TIMEOUT_MS });
      await migrate(db);
      holder = await openPostgres({ url, poolSize: 1, schema });
      const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'silent', ADMIN_TOKEN, DATA_DIR: '/nonexistent' });
      app = (await buildApp({ config, db })).app;
      await app.ready();
    });
    after(async () => {
      await app?.close();
      await db?.close();
      await holder?.close();
      await admin?.query(`drop schema if exists ${schema} cascade`);
      await admin?.close();
    });

    /** Runs `fn` while another session holds the venue's menu lock. */
    function whileLocked<T>(venueId: string, fn: () => Promise<T>): Promise<T> {
      return holder.transaction(async (tx) => {
        await tx.query(`select pg_advisory_xact_lock(hashtextextended('menu:' || $1::text, 0))`, [venueId]);
        return fn();
      });
    }

    it('ends a PATCH that waits on the venue lock with 503 LOCK_TIMEOUT and Retry-After instead of hanging', async () => {
      const venue = await createVenue(app);
      await call(app, 'POST', '/v1/sync', { key: venue.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 300 }] } });

      const { res, ms } = await whileLocked(venue.id, async () => {
        const started = Date.now();
        const res = await call(app, 'PATCH', '/v1/products/p1', { key: venue.key, body: { priceMinor: 350 } });
        return { res, ms: Date.now() - started };
      });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.code, 'LOCK_TIMEOUT');
      assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/);
      assert.ok(ms >= LOCK_TIMEOUT_MS - 50 && ms < 5_000, `answered after ${ms} ms`);

      // Nothing changed, and once the lock is free the same PATCH goes through.
      assert.equal((await call(app, 'GET', '/v1/products/p1', { key: venue.key })).body.priceMinor, 300);
      const retry = await call(app, 'PATCH', '/v1/products/p1', { key: venue.key, body: { priceMinor: 350 } });
      assert.equal(retry.status, 200);
      assert.equal(retry.body.priceMinor, 350);
    });

    it('ends a sync that waits on the venue lock with 503 LOCK_TIMEOUT and writes nothing', async () => {
      const venue = await createVenue(app);
      const res = await whileLocked(venue.id, () =>
        call(app, 'POST', '/v1/sync', { key: venue.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 300 }] } }),
      );
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.code, 'LOCK_TIMEOUT');
      assert.ok(res.headers['retry-after']);
      await assertNothingWritten(app, venue.key);
    });
  },
);
