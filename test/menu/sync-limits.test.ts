import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';

// Plan limits in POST /v1/sync.
// Free plan: 10 categories, 70 products, 300 ingredients.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const freeVenue = () => createVenue(t.app, { plan: 'free' });

function sync(v: VenueFixture, body: unknown): Promise<Call> {
  return call(t.app, 'POST', '/v1/sync', { key: v.key, body });
}

async function syncOk(v: VenueFixture, body: unknown): Promise<any> {
  const res = await sync(v, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function usage(v: VenueFixture): Promise<{ products: number; categories: number; ingredients: number }> {
  const { products, categories, ingredients } = (await call(t.app, 'GET', '/v1/reference', { key: v.key })).body.planLimits.usage;
  return { products, categories, ingredients };
}

const categories = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ externalId: `c${from + i}`, name: `Category ${from + i}` }));
const ingredients = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ externalId: `i${from + i}`, name: `Ingredient ${from + i}` }));
const products = (from: number, n: number, priceMinor = 100) =>
  Array.from({ length: n }, (_, i) => ({ externalId: `p${from + i}`, name: `Product ${from + i}`, priceMinor }));

function assertLimit(res: Call, code: string, details: { limit: number; available: number; requested: number }) {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, code);
  assert.equal(res.body.message, 'Bad Request Exception');
  assert.deepEqual(res.body.details, details);
}

describe('POST /v1/sync: plan limits', () => {
  it('refuses more new categories than the plan allows with CATEGORY_BULK_LIMIT_EXCEEDED and writes nothing', async () => {
    const v = await freeVenue();
    const res = await sync(v, { categories: categories(0, 11), ingredients: ingredients(0, 2), products: products(0, 2) });
    assertLimit(res, 'CATEGORY_BULK_LIMIT_EXCEEDED', { limit: 10, available: 10, requested: 11 });
    assert.deepEqual(await usage(v), { products: 0, categories: 0, ingredients: 0 });
  });

  it('reports available as what is left under the limit and requested as the new items only', async () => {
    const v = await freeVenue();
    await syncOk(v, { categories: categories(0, 4) });
    // 4 stored (sent again: updates and skips never count) + 7 new > 10.
    const res = await sync(v, { categories: [...categories(0, 4).map((c) => ({ ...c, name: `${c.name}!` })), ...categories(4, 7)] });
    assertLimit(res, 'CATEGORY_BULK_LIMIT_EXCEEDED', { limit: 10, available: 6, requested: 7 });
    assert.deepEqual(await usage(v), { products: 0, categories: 4, ingredients: 0 });

    const fits = await syncOk(v, { categories: categories(0, 10) });
    assert.deepEqual([fits.categories.created, fits.categories.skipped], [6, 4]);
  });

  it('refuses more new products than the plan allows with PRODUCT_BULK_LIMIT_EXCEEDED', async () => {
    const v = await freeVenue();
    assertLimit(await sync(v, { products: products(0, 71) }), 'PRODUCT_BULK_LIMIT_EXCEEDED', { limit: 70, available: 70, requested: 71 });
    assert.equal((await syncOk(v, { products: products(0, 70) })).products.created, 70);
    assertLimit(await sync(v, { products: products(70, 1) }), 'PRODUCT_BULK_LIMIT_EXCEEDED', { limit: 70, available: 0, requested: 1 });
    assert.deepEqual(await usage(v), { products: 70, categories: 0, ingredients: 0 });
  });

  it('refuses more new ingredients than the plan allows with INGREDIENT_BULK_LIMIT_EXCEEDED', async () => {
    const v = await freeVenue();
    await syncOk(v, { ingredients: ingredients(0, 200) });
    assertLimit(await sync(v, { ingredients: ingredients(200, 101) }), 'INGREDIENT_BULK_LIMIT_EXCEEDED', {
      limit: 300,
      available: 100,
      requested: 101,
    });
    assert.equal((await syncOk(v, { ingredients: ingredients(200, 100) })).ingredients.created, 100);
    assertLimit(await sync(v, { ingredients: ingredients(300, 1) }), 'INGREDIENT_BULK_LIMIT_EXCEEDED', {
      limit: 300,
      available: 0,
      requested: 1,
    });
    assert.deepEqual(await usage(v), { products: 0, categories: 0, ingredients: 300 });
  });

  it('never counts updates: a venue at its limit re-syncs all its products with new values', async () => {
    const v = await freeVenue();
    await syncOk(v, { categories: categories(0, 10), products: products(0, 70) });
    const res = await syncOk(v, { categories: categories(0, 10), products: products(0, 70, 250) });
    assert.deepEqual([res.products.created, res.products.updated], [0, 70]);
    assert.equal(res.categories.skipped, 10);
    assert.deepEqual(await usage(v), { products: 70, categories: 10, ingredients: 0 });
  });

  it('counts a product repeated in one request once', async () => {
    const v = await freeVenue();
    const res = await syncOk(v, { products: [...products(0, 70), ...products(0, 5, 300)] });
    assert.equal(res.products.created, 70);
    assert.equal(res.warnings.length, 5);
  });

  it('does not count a new item that fails with a per-item error', async () => {
    const v = await freeVenue();
    const res = await syncOk(v, { products: [...products(0, 70), { externalId: 'bad', name: 'Bad', priceMinor: 1, isSaleActive: true }] });
    assert.equal(res.products.created, 70);
    assert.match(res.products.errors[0], /^Product bad: /);
  });

  it('rejects the whole request, other sections included, when one section is over its limit', async () => {
    const v = await freeVenue();
    await syncOk(v, { products: products(0, 69) });
    const res = await sync(v, {
      categories: categories(0, 3),
      ingredients: ingredients(0, 3),
      products: [...products(0, 69, 999), ...products(69, 2)],
    });
    assertLimit(res, 'PRODUCT_BULK_LIMIT_EXCEEDED', { limit: 70, available: 1, requested: 2 });
    assert.deepEqual(await usage(v), { products: 69, categories: 0, ingredients: 0 });
    const menu = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
    assert.ok(menu.products.every((p: any) => p.priceMinor === 100));
    const log = await call(t.app, 'GET', '/v1/audit-log?action=menu.sync', { key: v.key });
    assert.equal(log.body.total, 1);
  });

  it('still counts products hidden by cleanup', async () => {
    const v = await freeVenue();
    await syncOk(v, { products: products(0, 70) });
    const cleanup = await call(t.app, 'POST', '/v1/cleanup', {
      key: v.key,
      body: {
        items: [
          { type: 'product', ref: 'p0' },
          { type: 'product', ref: 'p1' },
        ],
      },
    });
    assert.equal(cleanup.status, 201);
    assert.equal(cleanup.body.products.hidden, 2);
    assertLimit(await sync(v, { products: products(70, 1) }), 'PRODUCT_BULK_LIMIT_EXCEEDED', { limit: 70, available: 0, requested: 1 });
    // Restoring a hidden product is an update, so it fits.
    const restored = await syncOk(v, { products: products(0, 1) });
    assert.deepEqual([restored.products.created, restored.products.updated], [0, 1]);
  });

  it('frees capacity when a product is deleted', async () => {
    const v = await freeVenue();
    await syncOk(v, { products: products(0, 70) });
    const del = await call(t.app, 'DELETE', '/v1/products/p5', { key: v.key });
    assert.equal(del.status, 200);
    assert.equal(del.body.deleted, true);
    assert.equal((await syncOk(v, { products: products(70, 1) })).products.created, 1);
    assertLimit(await sync(v, { products: products(71, 1) }), 'PRODUCT_BULK_LIMIT_EXCEEDED', { limit: 70, available: 0, requested: 1 });
  });

  it('frees category capacity when a category is cleaned up', async () => {
    const v = await freeVenue();
    await syncOk(v, { categories: categories(0, 10) });
    await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'category', ref: 'c0' }] } });
    assert.equal((await syncOk(v, { categories: categories(10, 1) })).categories.created, 1);
  });

  it('lets a venue over its limit after a downgrade update its items but add none', async () => {
    const v = await createVenue(t.app, { plan: 'standard' });
    await syncOk(v, { products: products(0, 80) });
    assert.equal((await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'free' })).status, 200);
    const updated = await syncOk(v, { products: products(0, 80, 500) });
    assert.deepEqual([updated.products.created, updated.products.updated], [0, 80]);
    assertLimit(await sync(v, { products: products(80, 1) }), 'PRODUCT_BULK_LIMIT_EXCEEDED', { limit: 70, available: 0, requested: 1 });
  });

  it('lifts the limit when the operator moves the venue to a paid plan', async () => {
    const v = await freeVenue();
    await syncOk(v, { products: products(0, 70) });
    assertLimit(await sync(v, { products: products(70, 30) }), 'PRODUCT_BULK_LIMIT_EXCEEDED', { limit: 70, available: 0, requested: 30 });
    const patched = await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'standard' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const res = await syncOk(v, { products: products(70, 30), categories: categories(0, 11) });
    assert.deepEqual([res.products.created, res.categories.created], [30, 11]);
    assert.deepEqual(await usage(v), { products: 100, categories: 11, ingredients: 0 });
  });
});
