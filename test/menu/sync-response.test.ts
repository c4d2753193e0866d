import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { counts, syncCalls } from '../helpers/sync.js';

// What POST /v1/sync answers: the 201 response and its audit entry, duplicates and empty
// requests, per-item failures. Every test makes its own venue, so none depends on another's data.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const { sync, syncOk, product, draft, usage } = syncCalls(() => t.app);

describe('POST /v1/sync: the response', () => {
  it('answers 201 with success, only the sections sent, warnings, translations.applied and syncedAt', async () => {
    const v = await createVenue(t.app);
    const before = Date.now();
    const res = await sync(v, {
      ingredients: [{ externalId: 'i1', name: 'Basil' }],
      products: [{ externalId: 'p1', name: 'P', priceMinor: 1 }],
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['ingredients', 'products', 'success', 'syncedAt', 'translations', 'warnings']);
    assert.equal(res.body.success, true);
    assert.deepEqual(res.body.warnings, []);
    assert.deepEqual(res.body.translations, { applied: 0 });
    assert.deepEqual(res.body.ingredients, { created: 1, updated: 0, skipped: 0, errors: [], warnings: [] });
    assert.deepEqual(res.body.products, { created: 1, updated: 0, skipped: 0, errors: [], warnings: [] });
    assert.match(res.body.syncedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Date.parse(res.body.syncedAt) >= before - 1000 && Date.parse(res.body.syncedAt) <= Date.now() + 1000);
    assert.equal('dryRun' in res.body, false);
  });

  it('writes one menu.sync audit entry per real sync, with counts only', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Secret name', priceMinor: 4242 }] });
    const log = await call(t.app, 'GET', '/v1/audit-log?action=menu.sync', { key: v.key });
    assert.equal(log.status, 200);
    assert.equal(log.body.total, 1);
    const text = JSON.stringify(log.body.items[0].changes);
    assert.ok(!text.includes('Secret name') && !text.includes('4242'), text);
    assert.equal(log.body.items[0].changes.products.created, 1);
  });
});

describe('POST /v1/sync: duplicates and empty requests', () => {
  it('warns once per repeated externalId at the top level and keeps the last occurrence', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      categories: [
        { externalId: 'c1', name: 'First' },
        { externalId: 'c1', name: 'Last' },
      ],
      products: [
        { externalId: 'p1', name: 'First', priceMinor: 1 },
        { externalId: 'p2', name: 'Other', priceMinor: 2 },
        { externalId: 'p1', name: 'Middle', priceMinor: 3 },
        { externalId: 'p1', name: 'Last', priceMinor: 4 },
      ],
    });
    assert.deepEqual(counts(res.categories), { created: 1, updated: 0, skipped: 0 });
    assert.deepEqual(counts(res.products), { created: 2, updated: 0, skipped: 0 });
    assert.equal(res.warnings.length, 2);
    assert.ok(
      res.warnings.some((w: string) => w.startsWith('Category c1:')),
      res.warnings.join('; '),
    );
    assert.ok(
      res.warnings.some((w: string) => w.startsWith('Product p1:')),
      res.warnings.join('; '),
    );
    assert.deepEqual(res.products.warnings, []);
    const p = await product(v, 'p1');
    assert.deepEqual([p.name, p.priceMinor], ['Last', 4]);
    assert.equal((await draft(v)).categories[0].name, 'Last');
  });

  it('answers {} with success, a top-level warning, no sections and no change', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Kept', priceMinor: 1 }] });
    const before = await product(v, 'p1');
    const res = await sync(v, {});
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    assert.equal(res.body.warnings.length, 1);
    assert.deepEqual(Object.keys(res.body).sort(), ['success', 'syncedAt', 'translations', 'warnings']);
    assert.deepEqual(res.body.translations, { applied: 0 });
    assert.deepEqual(await product(v, 'p1'), before);
    assert.deepEqual(await usage(v), { products: 1, categories: 0, ingredients: 0, banners: 0, tables: 0 });
  });

  it('answers only empty arrays with the sections sent at zero counts and a top-level warning', async () => {
    const v = await createVenue(t.app);
    const res = await sync(v, { categories: [], products: [] });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    assert.equal(res.body.warnings.length, 1);
    const zero = { created: 0, updated: 0, skipped: 0, errors: [], warnings: [] };
    assert.deepEqual(res.body.categories, zero);
    assert.deepEqual(res.body.products, zero);
    assert.equal('ingredients' in res.body, false);
    assert.deepEqual((await draft(v)).products, []);
  });

  it('answers a request without a body like {}', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'POST', '/v1/sync', { key: v.key });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(res.body.warnings.length, 1);
    assert.deepEqual(Object.keys(res.body).sort(), ['success', 'syncedAt', 'translations', 'warnings']);
  });
});

describe('POST /v1/sync: per-item failures', () => {
  it('reports isSaleActive without a sale price in errors[], does not save that item and saves the others', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      products: [
        { externalId: 'p1', name: 'Ok', priceMinor: 100 },
        { externalId: 'p2', name: 'Broken sale', priceMinor: 100, isSaleActive: true },
        { externalId: 'p3', name: 'Also ok', priceMinor: 100, isSaleActive: true, salePriceMinor: 80 },
      ],
    });
    assert.equal(res.success, true);
    assert.deepEqual(counts(res.products), { created: 2, updated: 0, skipped: 0 });
    assert.equal(res.products.errors.length, 1);
    assert.match(res.products.errors[0], /^Product p2: /);
    const missing = await call(t.app, 'GET', '/v1/products/p2', { key: v.key });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'PRODUCT_NOT_FOUND');
    assert.equal((await product(v, 'p3')).salePriceMinor, 80);
  });

  it('rejects isSaleActive true on an update when no sale price is sent or stored, and leaves the product as it was', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Plain', priceMinor: 100 }] });
    const before = await product(v, 'p1');
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Plain renamed', priceMinor: 90, isSaleActive: true }] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 0 });
    assert.match(res.products.errors[0], /^Product p1: /);
    assert.deepEqual(await product(v, 'p1'), before);
  });

  it('accepts isSaleActive true when the sale price is stored from an earlier sync', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Plain', priceMinor: 100, salePriceMinor: 70 }] });
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Plain', priceMinor: 100, isSaleActive: true }] });
    assert.deepEqual(res.products.errors, []);
    assert.equal(res.products.updated, 1);
    const p = await product(v, 'p1');
    assert.deepEqual([p.isSaleActive, p.salePriceMinor], [true, 70]);
  });

  it('rejects clearing the sale price of an active sale unless isSaleActive false is sent too', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Sale', priceMinor: 100, salePriceMinor: 70, isSaleActive: true }] });
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Sale', priceMinor: 100, salePriceMinor: null }] });
    assert.match(res.products.errors[0], /^Product p1: /);
    assert.equal((await product(v, 'p1')).salePriceMinor, 70);
  });
});
