import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/port.js';
import { openPostgres } from '../../src/db/postgres.js';
import type { App } from '../../src/http/types.js';
import { admin, call, createVenue, startApp, type Call, type Method, type TestApp, type VenueFixture } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { createOrder, orderBody, setUpOrderMenu } from '../helpers/orders.js';

// Idempotency-Key on every /v1 write (docs/security.md): the first response replayed
// to the same key and request for 24 hours with Idempotent-Replayed: true, 409
// IDEMPOTENCY_KEY_REUSED for another request, keys per venue (a test key's sandbox is a venue of
// its own), and exactly one execution under concurrent copies, here and on another instance.
// "Executions" are counted in the audit log: every write records its request id there.

interface Write {
  method: Method;
  url: string;
  body?: unknown;
}

/** Every /v1 write route: a request that succeeds once, built on venue `v`'s own data. */
type WriteFactory = (v: Venue, n: number) => Promise<Write>;

let image: string;
let bannerImage: string;

function writes(t: TestApp): Record<string, WriteFactory> {
  const create = async (v: VenueFixture, url: string, body: unknown) => {
    const res = await call(t.app, 'POST', url, { key: v.key, body });
    assert.ok(res.status === 201, `${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const banner = (v: VenueFixture, n: number) => create(v, '/v1/banners', { title: `Banner ${n}` });
  const promotion = (v: VenueFixture, n: number) => create(v, '/v1/promotions', { name: `Promo ${n}` });
  const table = (v: VenueFixture, n: number) => create(v, '/v1/tables', { name: `Table ${n}` });
  const webhook = (v: VenueFixture, n: number) =>
    create(v, '/v1/webhooks', { url: `https://pos.example.com/hooks/${n}`, events: ['order.created'] });
  return {
    'POST /v1/sync': async (_v, n) => ({
      method: 'POST',
      url: '/v1/sync',
      body: { products: [{ externalId: `s${n}`, name: `Synced ${n}`, priceMinor: 100 + n }] },
    }),
    'POST /v1/publish': async () => ({ method: 'POST', url: '/v1/publish' }),
    'POST /v1/cleanup': async (v, n) => {
      await create(v, '/v1/sync', { products: [{ externalId: `c${n}`, name: 'Gone', priceMinor: 1 }] });
      return { method: 'POST', url: '/v1/cleanup', body: { items: [{ type: 'product', ref: `c${n}` }] } };
    },
    'POST /v1/publications/{id}/restore': async (v) => ({
      method: 'POST',
      url: `/v1/publications/${v.ids.publicationId}/restore`,
      body: { publish: false },
    }),
    'PATCH /v1/products/{ref}': async (_v, n) => ({ method: 'PATCH', url: '/v1/products/p1', body: { name: `Renamed ${n}` } }),
    'DELETE /v1/products/{ref}': async (v, n) => {
      await create(v, '/v1/sync', { products: [{ externalId: `d${n}`, name: 'Doomed', priceMinor: 1 }] });
      return { method: 'DELETE', url: `/v1/products/d${n}` };
    },
    'PATCH /v1/settings': async (_v, n) => ({ method: 'PATCH', url: '/v1/settings', body: { name: `Venue ${n}` } }),
    'PUT /v1/translations': async (_v, n) => ({
      method: 'PUT',
      url: '/v1/translations',
      body: { products: [{ ref: 'p1', translations: { uk: { name: `Чай ${n}` } } }] },
    }),
    // A product of its own per call, so each first request changes a mark (and is audited once).
    'PUT /v1/availability': async (v, n) => {
      await create(v, '/v1/sync', { products: [{ externalId: `a${n}`, name: `Sold out ${n}`, priceMinor: 100 }] });
      return { method: 'PUT', url: '/v1/availability', body: { products: [{ ref: `a${n}`, available: false }], ingredients: [] } };
    },
    'PATCH /v1/orders/{id}/status': async (v) => {
      const order = await createOrder(t.app, v.slug, orderBody(v.ids));
      return { method: 'PATCH', url: `/v1/orders/${order.id}/status`, body: { status: 'confirmed' } };
    },
    'POST /v1/products/{ref}/image': async () => ({ method: 'POST', url: '/v1/products/p1/image', body: { base64: image } }),
    'DELETE /v1/products/{ref}/image': async (v) => {
      await call(t.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { base64: image } });
      return { method: 'DELETE', url: '/v1/products/p1/image' };
    },
    'POST /v1/banners/{id}/image': async (v, n) => ({
      method: 'POST',
      url: `/v1/banners/${(await banner(v, n)).id}/image`,
      body: { base64: bannerImage },
    }),
    'DELETE /v1/banners/{id}/image': async (v, n) => {
      const b = await banner(v, n);
      await call(t.app, 'POST', `/v1/banners/${b.id}/image`, { key: v.key, body: { base64: bannerImage } });
      return { method: 'DELETE', url: `/v1/banners/${b.id}/image` };
    },
    'POST /v1/logo': async () => ({ method: 'POST', url: '/v1/logo', body: { base64: image } }),
    'DELETE /v1/logo': async (v) => {
      await call(t.app, 'POST', '/v1/logo', { key: v.key, body: { base64: image } });
      return { method: 'DELETE', url: '/v1/logo' };
    },
    'POST /v1/banners': async (_v, n) => ({ method: 'POST', url: '/v1/banners', body: { title: `New banner ${n}` } }),
    'PATCH /v1/banners/{id}': async (v, n) => ({
      method: 'PATCH',
      url: `/v1/banners/${(await banner(v, n)).id}`,
      body: { title: `Patched ${n}` },
    }),
    'DELETE /v1/banners/{id}': async (v, n) => ({ method: 'DELETE', url: `/v1/banners/${(await banner(v, n)).id}` }),
    'POST /v1/promotions': async (_v, n) => ({ method: 'POST', url: '/v1/promotions', body: { name: `New promo ${n}` } }),
    'PATCH /v1/promotions/{id}': async (v, n) => ({
      method: 'PATCH',
      url: `/v1/promotions/${(await promotion(v, n)).id}`,
      body: { name: `Patched ${n}` },
    }),
    'DELETE /v1/promotions/{id}': async (v, n) => ({ method: 'DELETE', url: `/v1/promotions/${(await promotion(v, n)).id}` }),
    'POST /v1/promotions/{id}/items': async (v, n) => ({
      method: 'POST',
      url: `/v1/promotions/${(await promotion(v, n)).id}/items`,
      body: { productRef: 'p1', promoPriceMinor: 50 },
    }),
    'PATCH /v1/promotions/{id}/items/{itemId}': async (v, n) => {
      const p = await promotion(v, n);
      const item = await create(v, `/v1/promotions/${p.id}/items`, { productRef: 'p1' });
      return { method: 'PATCH', url: `/v1/promotions/${p.id}/items/${item.id}`, body: { promoPriceMinor: 10 } };
    },
    'DELETE /v1/promotions/{id}/items/{itemId}': async (v, n) => {
      const p = await promotion(v, n);
      const item = await create(v, `/v1/promotions/${p.id}/items`, { productRef: 'p1' });
      return { method: 'DELETE', url: `/v1/promotions/${p.id}/items/${item.id}` };
    },
    'POST /v1/tables': async (_v, n) => ({ method: 'POST', url: '/v1/tables', body: { name: `New table ${n}` } }),
    'PATCH /v1/tables/{id}': async (v, n) => ({
      method: 'PATCH',
      url: `/v1/tables/${(await table(v, n)).id}`,
      body: { name: `Patched table ${n}` },
    }),
    'DELETE /v1/tables/{id}': async (v, n) => ({ method: 'DELETE', url: `/v1/tables/${(await table(v, n)).id}` }),
    'POST /v1/tables/{id}/regenerate-token': async (v, n) => ({
      method: 'POST',
      url: `/v1/tables/${(await table(v, n)).id}/regenerate-token`,
    }),
    'POST /v1/webhooks': async (_v, n) => ({
      method: 'POST',
      url: '/v1/webhooks',
      body: { url: `https://pos.example.com/new/${n}`, events: ['order.updated'] },
    }),
    'PATCH /v1/webhooks/{id}': async (v, n) => ({
      method: 'PATCH',
      url: `/v1/webhooks/${(await webhook(v, n)).id}`,
      body: { enabled: false },
    }),
    'DELETE /v1/webhooks/{id}': async (v, n) => ({ method: 'DELETE', url: `/v1/webhooks/${(await webhook(v, n)).id}` }),
    'POST /v1/webhooks/{id}/rotate-secret': async (v, n) => ({
      method: 'POST',
      url: `/v1/webhooks/${(await webhook(v, n)).id}/rotate-secret`,
    }),
    'POST /v1/webhooks/{id}/test': async (v, n) => ({ method: 'POST', url: `/v1/webhooks/${(await webhook(v, n)).id}/test` }),
    'POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry': async (v, n) => {
      const w = await webhook(v, n);
      const ping = await call(t.app, 'POST', `/v1/webhooks/${w.id}/test`, { key: v.key });
      assert.equal(ping.status, 202);
      return { method: 'POST', url: `/v1/webhooks/${w.id}/deliveries/${ping.body.id}/retry` };
    },
  };
}

type Venue = VenueFixture & { ids: Awaited<ReturnType<typeof setUpOrderMenu>> };

async function venueWithMenu(app: App, options: { mode?: 'live' | 'test' } = {}): Promise<Venue> {
  const v = await createVenue(app, { plan: 'pro', ...options });
  const ids = await setUpOrderMenu(app, v, options.mode === 'test' ? { slug: v.slug } : {});
  await call(app, 'POST', '/v1/sync', { key: v.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 300 }] } });
  await call(app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk'] } });
  return { ...v, ids };
}

/** How many distinct requests among those whose request id starts with `prefix` wrote to the audit log. */
async function executions(app: App, v: VenueFixture, prefix: string): Promise<number> {
  const ids = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await call(app, 'GET', `/v1/audit-log?limit=100&page=${page}`, { key: v.key });
    assert.equal(res.status, 200);
    for (const e of res.body.items) if (e.requestId.startsWith(prefix)) ids.add(e.requestId);
    if (res.body.items.length < 100) break;
  }
  return ids.size;
}

function send(app: App, v: VenueFixture, w: Write, key: string, requestId: string): Promise<Call> {
  return call(app, w.method, w.url, { key: v.key, body: w.body, headers: { 'idempotency-key': key, 'x-request-id': requestId } });
}

function assertSameResponse(first: Call, other: Call, label: string): void {
  assert.equal(other.status, first.status, `${label}: ${JSON.stringify(other.body)}`);
  assert.deepEqual(other.body, first.body, label);
}

describe('Idempotency-Key on every /v1 write', () => {
  let t: TestApp;
  let v: Venue;
  let table: Record<string, WriteFactory>;
  before(async () => {
    t = await startApp();
    image = toBase64(await makeImage(600, 600));
    bannerImage = toBase64(await makeImage(1500, 500));
    v = await venueWithMenu(t.app);
    table = writes(t);
  });
  after(() => t.close());

  it('covers every write route of the route table (a new route must join this test)', async () => {
    const doc = JSON.parse((await t.app.inject({ url: '/v1/openapi.json' })).body);
    const routes: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (method === 'get') continue;
        routes.push(`${method.toUpperCase()} ${path}`);
        assert.ok(
          op.parameters?.some((p: any) => p.in === 'header' && p.name === 'idempotency-key'),
          `${method} ${path} documents Idempotency-Key`,
        );
      }
    }
    assert.deepEqual(routes.sort(), Object.keys(table).sort());
  });

  it('each write runs once for a key: a retry replays the first response, another request is 409', async () => {
    let n = 0;
    for (const [route, make] of Object.entries(table)) {
      n += 1;
      const w = await make(v, n);
      const key = `key-${n}-${route}`.replace(/[^ -~]/g, '');
      const first = await send(t.app, v, w, key, `seq-${n}-a`);
      assert.ok(first.status < 300, `${route}: ${first.status} ${JSON.stringify(first.body)}`);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await send(t.app, v, w, key, `seq-${n}-b`);
      assertSameResponse(first, again, route);
      assert.equal(again.headers['idempotent-replayed'], 'true', route);
      if (first.headers.etag) assert.equal(again.headers.etag, first.headers.etag, `${route} ETag`);
      assert.equal(await executions(t.app, v, `seq-${n}-`), 1, `${route} ran once`);

      const other = await call(t.app, w.method, w.url, { key: v.key, body: { different: n }, headers: { 'idempotency-key': key } });
      // A body the route refuses is refused before the key is looked at; a valid other one is 409.
      assert.ok(other.status === 409 || other.status === 400, `${route}: ${other.status}`);
      if (other.status === 409) assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
    }
  });

  it('another request under a used key is 409 IDEMPOTENCY_KEY_REUSED, on another route too', async () => {
    const a = await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'Reuse 1' }, headers: { 'idempotency-key': 'reuse' } });
    assert.equal(a.status, 201);
    const b = await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'Reuse 2' }, headers: { 'idempotency-key': 'reuse' } });
    assert.equal(b.status, 409);
    assert.equal(b.body.code, 'IDEMPOTENCY_KEY_REUSED');
    const c = await call(t.app, 'POST', '/v1/banners', { key: v.key, body: { title: 'Reuse 1' }, headers: { 'idempotency-key': 'reuse' } });
    assert.equal(c.status, 409);
    // Key order and whitespace are not a different request.
    const d = await t.app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json', 'idempotency-key': 'spacing' },
      payload: '{"products":[{"externalId":"sp","name":"Spaced","priceMinor":5}]}',
    });
    const e = await t.app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json', 'idempotency-key': 'spacing' },
      payload: '{ "products": [ { "priceMinor": 5, "name": "Spaced", "externalId": "sp" } ] }',
    });
    assert.equal(d.statusCode, 201);
    // The sync keeps the raw body's digest, so a respelled body is a different request there.
    assert.ok(e.statusCode === 201 || e.statusCode === 409);
  });

  it('refused requests take no key; bad keys are 400; a 4xx answer is kept', async () => {
    const invalid = await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: '' }, headers: { 'idempotency-key': 'refused' } });
    assert.equal(invalid.status, 400);
    const valid = await call(t.app, 'POST', '/v1/tables', {
      key: v.key,
      body: { name: 'After refusal' },
      headers: { 'idempotency-key': 'refused' },
    });
    assert.equal(valid.status, 201, 'a validation failure did not take the key');
    for (const key of ['x'.repeat(256), 'tab\tkey', 'ключ']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/publish',
        headers: { authorization: `Bearer ${v.key}`, 'idempotency-key': Buffer.from(key).toString('latin1') },
      });
      assert.equal(res.statusCode, 400, key);
      assert.match(res.json().errors[0], /^idempotency-key /);
    }
    const conflict = await call(t.app, 'POST', '/v1/tables', {
      key: v.key,
      body: { name: 'After refusal' },
      headers: { 'idempotency-key': 'conflict' },
    });
    assert.equal(conflict.status, 409);
    const replay = await call(t.app, 'POST', '/v1/tables', {
      key: v.key,
      body: { name: 'After refusal' },
      headers: { 'idempotency-key': 'conflict' },
    });
    assert.equal(replay.status, 409);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
  });

  it('keys are scoped per venue and per key mode; a key expires after 24 hours', async () => {
    const other = await createVenue(t.app);
    const sandboxKey = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' })).body.key;
    const body = { name: 'Scoped' };
    const mine = await call(t.app, 'POST', '/v1/tables', { key: v.key, body, headers: { 'idempotency-key': 'scoped' } });
    const theirs = await call(t.app, 'POST', '/v1/tables', { key: other.key, body, headers: { 'idempotency-key': 'scoped' } });
    const sandbox = await call(t.app, 'POST', '/v1/tables', { key: sandboxKey, body, headers: { 'idempotency-key': 'scoped' } });
    assert.equal(mine.status, 201);
    assert.equal(theirs.status, 201);
    assert.equal(sandbox.status, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.equal(sandbox.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.body.id, mine.body.id);
    assert.notEqual(sandbox.body.id, mine.body.id);

    await t.database.db.query(
      `update idempotency_keys set created_at = now() - interval '25 hours' where venue_id = $1 and key = 'scoped'`,
      [v.id],
    );
    const later = await call(t.app, 'POST', '/v1/tables', {
      key: v.key,
      body: { name: 'Scoped again' },
      headers: { 'idempotency-key': 'scoped' },
    });
    assert.equal(later.status, 201, 'an expired key is free again');
  });

  it('a key whose holder died is taken over once its lease runs out', async () => {
    await t.database.db.query(
      `insert into idempotency_keys (venue_id, key, request_hash, lease_until) values ($1, 'orphan', 'x', now() + interval '1 hour')`,
      [v.id],
    );
    const w = { method: 'POST' as const, url: '/v1/tables', body: { name: 'Orphan' } };
    await t.database.db.query(`update idempotency_keys set request_hash = 'x' where venue_id = $1 and key = 'orphan'`, [v.id]);
    const other = await send(t.app, v, w, 'orphan', 'orphan-1');
    assert.equal(other.status, 409, 'a running key with another request');
    // The same request, its holder gone: taken over when the lease ends.
    await t.database.db.query(`delete from idempotency_keys where venue_id = $1 and key = 'orphan'`, [v.id]);
    const first = await send(t.app, v, w, 'orphan', 'orphan-2');
    await t.database.db.query(
      `update idempotency_keys set status_code = null, response_body = null, lease_until = now() - interval '1 second' where venue_id = $1 and key = 'orphan'`,
      [v.id],
    );
    const retry = await send(t.app, v, { ...w, body: { name: 'Orphan' } }, 'orphan', 'orphan-3');
    assert.equal(first.status, 201);
    assert.equal(retry.status, 409, 'the table exists now: the retry ran again and says so');
    assert.equal(retry.body.code, 'TABLE_NAME_ALREADY_EXISTS');
  });

  it('50 concurrent identical requests execute once and all get the same answer', async () => {
    for (const route of [
      'POST /v1/sync',
      'POST /v1/publish',
      'POST /v1/tables',
      'PATCH /v1/orders/{id}/status',
      'POST /v1/products/{ref}/image',
      'PUT /v1/availability',
    ]) {
      const w = await table[route](v, 1000);
      const prefix = `burst-${route.replace(/\W+/g, '-')}-`;
      const all = await Promise.all(Array.from({ length: 50 }, (_, i) => send(t.app, v, w, `burst ${route}`, `${prefix}${i}`)));
      // Uploads past the media capacity are refused before they are read (503 MEDIA_BUSY, retry
      // later): not executions, and not answers to record.
      const answered = all.filter((r) => !(r.status === 503 && r.body.code === 'MEDIA_BUSY'));
      const fresh = answered.filter((r) => r.headers['idempotent-replayed'] === undefined);
      assert.equal(fresh.length, 1, `${route}: one execution answered fresh`);
      for (const r of answered) assertSameResponse(fresh[0], r, route);
      assert.equal(await executions(t.app, v, prefix), 1, `${route}: audited once`);
    }
  });
});

describe('Idempotency-Key across two instances on one database', () => {
  let t: TestApp;
  let otherDb: Database | null = null;
  let other: App;
  before(async () => {
    t = await startApp();
    image = toBase64(await makeImage(600, 600));
    bannerImage = toBase64(await makeImage(1500, 500));
    // PostgreSQL: a second pool and change feed, as a second process has. PGlite has one writer
    // per data directory, so the second instance shares the handle (its own services and waits).
    otherDb = onPostgres
      ? await openPostgres({ url: process.env.DATABASE_URL as string, poolSize: 10, schema: t.database.schema, listen: true })
      : null;
    ({ app: other } = await buildApp({ config: t.config, db: otherDb ?? t.database.db }));
    await other.ready();
  });
  after(async () => {
    await other?.close();
    await otherDb?.close();
    await t?.close();
  });

  it('50 concurrent identical requests split over two instances execute once', async () => {
    const v = await venueWithMenu(t.app);
    const table = writes(t);
    for (const route of ['POST /v1/tables', 'POST /v1/sync', 'PATCH /v1/orders/{id}/status']) {
      const w = await table[route](v, 7);
      const prefix = `two-${route.replace(/\W+/g, '-')}-`;
      const all = await Promise.all(
        Array.from({ length: 50 }, (_, i) => send(i % 2 === 0 ? t.app : other, v, w, `two ${route}`, `${prefix}${i}`)),
      );
      const fresh = all.filter((r) => r.headers['idempotent-replayed'] === undefined);
      assert.equal(fresh.length, 1, `${route}: ${all.map((r) => r.status).join(',')}`);
      for (const r of all) assertSameResponse(fresh[0], r, route);
      assert.equal(await executions(t.app, v, prefix), 1);
    }
  });
});
