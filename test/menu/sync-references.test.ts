import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { BASE, counts, syncCalls } from '../helpers/sync.js';

// POST /v1/sync: sections in the order categories -> ingredients -> products, references by
// externalId within the venue, unknown references as warnings, and
// tenant isolation. Every test makes its own venue, so none depends on another's data.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const { syncOk, product } = syncCalls(() => t.app);

describe('POST /v1/sync: sections and references', () => {
  it('lets products reference categories and ingredients created earlier in the same request', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      // Sent in reverse order on purpose: the sections are processed categories -> ingredients -> products.
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 21500,
          categoryExternalId: 'c1',
          ingredientExternalIds: ['i1', 'i2'],
          modifierGroups: [{ name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'i3', priceAdjustment: 500 }] }],
        },
      ],
      ingredients: BASE.ingredients,
      categories: BASE.categories,
    });
    assert.deepEqual(res.products.warnings, []);
    const p = await product(v, 'p1');
    assert.equal(p.categoryExternalId, 'c1');
    assert.deepEqual(p.ingredients, [
      { externalId: 'i1', name: 'Mozzarella' },
      { externalId: 'i2', name: 'Basil' },
    ]);
    assert.equal(p.modifierGroups[0].options[0].ingredientExternalId, 'i3');
    assert.equal(p.modifierGroups[0].options[0].ingredientName, 'Olives');
  });

  it('changes the draft only: the published menu keeps its content until the next publish', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100 }] });
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    await syncOk(v, {
      products: [
        { externalId: 'p1', name: 'Margherita', priceMinor: 200 },
        { externalId: 'p2', name: 'New', priceMinor: 1 },
      ],
    });
    const published = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.deepEqual(
      published.body.products.map((p: any) => [p.externalId, p.priceMinor]),
      [['p1', 100]],
    );
    assert.equal((await product(v, 'p1')).priceMinor, 200);
  });

  it('saves a new product without a category when its categoryExternalId is unknown, with a warning', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, categoryExternalId: 'nope' }] });
    assert.deepEqual(counts(res.products), { created: 1, updated: 0, skipped: 0 });
    assert.equal(res.products.warnings.length, 1);
    assert.match(res.products.warnings[0], /^Product p1: .*nope/);
    assert.deepEqual(res.products.errors, []);
    assert.equal((await product(v, 'p1')).categoryExternalId, null);
  });

  it('keeps the stored category of an updated product when its categoryExternalId is unknown', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { ...BASE, products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, categoryExternalId: 'c1' }] });
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita 2', priceMinor: 100, categoryExternalId: 'missing' }] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
    assert.match(res.products.warnings[0], /^Product p1: .*missing/);
    const p = await product(v, 'p1');
    assert.equal(p.name, 'Margherita 2');
    assert.equal(p.categoryExternalId, 'c1');
  });

  it('leaves an unknown composition ingredient out, with a warning, and saves the rest', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      ...BASE,
      products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, ingredientExternalIds: ['i1', 'ghost', 'i2'] }],
    });
    assert.equal(res.products.created, 1);
    assert.equal(res.products.warnings.length, 1);
    assert.match(res.products.warnings[0], /^Product p1: .*ghost/);
    assert.deepEqual(
      (await product(v, 'p1')).ingredients.map((i: any) => i.externalId),
      ['i1', 'i2'],
    );
  });

  it('skips a modifier option on an unknown ingredient, with a warning, and keeps the group', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      ...BASE,
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 100,
          modifierGroups: [
            {
              name: 'Extras',
              type: 'add_ingredients',
              options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'phantom' }, { ingredientExternalId: 'i3' }],
            },
          ],
        },
      ],
    });
    assert.equal(res.products.created, 1);
    assert.equal(res.products.warnings.length, 1);
    assert.match(res.products.warnings[0], /^Product p1: .*phantom/);
    const [group] = (await product(v, 'p1')).modifierGroups;
    assert.deepEqual(
      group.options.map((o: any) => o.ingredientExternalId),
      ['i1', 'i3'],
    );
  });

  it('refers to a category by its externalId only within the venue that owns it', async () => {
    const a = await createVenue(t.app);
    const b = await createVenue(t.app);
    await syncOk(a, { categories: [{ externalId: 'c1', name: 'A' }] });
    const res = await syncOk(b, { products: [{ externalId: 'p1', name: 'X', priceMinor: 1, categoryExternalId: 'c1' }] });
    assert.match(res.products.warnings[0], /^Product p1: .*c1/);
    assert.equal((await product(b, 'p1')).categoryExternalId, null);
  });
});

describe('POST /v1/sync: tenant isolation', () => {
  it("does not show one venue's products to another venue's key, and gives each venue its own rows for the same externalIds", async () => {
    const a = await createVenue(t.app);
    const b = await createVenue(t.app);
    await syncOk(a, { ...BASE, products: [{ externalId: 'p1', name: 'A pizza', priceMinor: 100, categoryExternalId: 'c1' }] });

    const hidden = await call(t.app, 'GET', '/v1/products/p1', { key: b.key });
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.code, 'PRODUCT_NOT_FOUND');
    const aId = (await product(a, 'p1')).id;
    assert.equal((await call(t.app, 'GET', `/v1/products/${aId}`, { key: b.key })).status, 404);

    const res = await syncOk(b, { ...BASE, products: [{ externalId: 'p1', name: 'B pizza', priceMinor: 200, categoryExternalId: 'c1' }] });
    assert.deepEqual(counts(res.products), { created: 1, updated: 0, skipped: 0 });
    assert.deepEqual(counts(res.categories), { created: 2, updated: 0, skipped: 0 });
    const pa = await product(a, 'p1');
    const pb = await product(b, 'p1');
    assert.notEqual(pa.id, pb.id);
    assert.notEqual(pa.categoryId, pb.categoryId);
    assert.deepEqual([pa.name, pa.priceMinor], ['A pizza', 100]);
    assert.deepEqual([pb.name, pb.priceMinor], ['B pizza', 200]);
  });
});
