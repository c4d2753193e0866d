import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';

// Two syncs of one venue at once: they run one after the other (the menu lock), so each sees the
// other's result, the counts add up, and no externalId ever gets two rows.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

function sync(v: VenueFixture, body: unknown): Promise<Call> {
  return call(t.app, 'POST', '/v1/sync', { key: v.key, body });
}

async function usage(v: VenueFixture): Promise<number> {
  return (await call(t.app, 'GET', '/v1/reference', { key: v.key })).body.planLimits.usage.products;
}

const products = (from: number, n: number, priceMinor = 100) =>
  Array.from({ length: n }, (_, i) => ({ externalId: `p${from + i}`, name: `Product ${from + i}`, priceMinor }));

describe('POST /v1/sync: concurrent syncs of one venue', () => {
  it('creates the same 100 new products once when they are sent twice at the same time', async () => {
    const v = await createVenue(t.app);
    const body = { products: products(0, 100) };
    const [a, b] = await Promise.all([sync(v, body), sync(v, body)]);
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.equal(b.status, 201, JSON.stringify(b.body));
    const results = [a.body.products, b.body.products].map((s) => [s.created, s.updated, s.skipped]).sort();
    assert.deepEqual(results, [
      [0, 0, 100],
      [100, 0, 0],
    ]);
    assert.equal(await usage(v), 100);
  });

  it('adds up the counts of two overlapping payloads sent at the same time', async () => {
    const v = await createVenue(t.app);
    const [a, b] = await Promise.all([sync(v, { products: products(0, 60) }), sync(v, { products: products(40, 60) })]);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    for (const res of [a, b]) {
      const s = res.body.products;
      assert.equal(s.created + s.updated + s.skipped, 60);
      assert.equal(s.updated, 0);
    }
    // The 20 shared products are created by whichever ran first and skipped by the other.
    assert.equal(a.body.products.created + b.body.products.created, 100);
    assert.equal(a.body.products.skipped + b.body.products.skipped, 20);
    assert.equal(await usage(v), 100);
  });

  it('applies two different versions of the same products one after the other', async () => {
    const v = await createVenue(t.app);
    const [a, b] = await Promise.all([sync(v, { products: products(0, 50, 100) }), sync(v, { products: products(0, 50, 200) })]);
    const results = [a.body.products, b.body.products].map((s) => [s.created, s.updated, s.skipped]).sort();
    assert.deepEqual(results, [
      [0, 50, 0],
      [50, 0, 0],
    ]);
    assert.equal(await usage(v), 50);
    // Every product holds the price of the sync that ran last, never a mix within one request.
    const menu = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
    const prices = new Set(menu.products.map((p: any) => p.priceMinor));
    assert.equal(prices.size, 1);
    const last = a.body.products.updated === 50 ? 100 : 200;
    assert.deepEqual([...prices], [last]);
  });

  it('checks the plan limit of concurrent syncs against each other', async () => {
    const v = await createVenue(t.app, { plan: 'free' });
    const [a, b] = await Promise.all([sync(v, { products: products(0, 40) }), sync(v, { products: products(100, 40) })]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [201, 400]);
    const refused = a.status === 400 ? a : b;
    assert.equal(refused.body.code, 'PRODUCT_BULK_LIMIT_EXCEEDED');
    assert.deepEqual(refused.body.details, { limit: 70, available: 30, requested: 40 });
    assert.equal(await usage(v), 40);
  });

  it('keeps venues apart when they sync the same externalIds at the same time', async () => {
    const a = await createVenue(t.app);
    const b = await createVenue(t.app);
    const body = { products: products(0, 30) };
    const [ra, rb] = await Promise.all([sync(a, body), sync(b, body)]);
    assert.deepEqual([ra.body.products.created, rb.body.products.created], [30, 30]);
    assert.deepEqual([await usage(a), await usage(b)], [30, 30]);
  });
});
