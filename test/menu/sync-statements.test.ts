import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { menuFixture, mutate, type SyncBody } from '../../bench/workload.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// A sync issues a fixed number of SQL statements whatever the number of items: the look-ups and
// writes are one statement per table (menu.repository), never one per row.

let t: TestApp;
let counting = false;
let statements: string[] = [];

before(async () => {
  t = await startApp({}, (text) => {
    if (counting) statements.push(text);
  });
});
after(() => t.close());

/** The statements one sync request sends, after a warm-up read with the same key. */
async function statementsOf(v: VenueFixture, body: SyncBody): Promise<{ count: number; body: any }> {
  await call(t.app, 'GET', '/v1/reference', { key: v.key });
  statements = [];
  counting = true;
  try {
    const res = await call(t.app, 'POST', '/v1/sync', { key: v.key, body });
    assert.equal(res.status, 201, JSON.stringify(res.body).slice(0, 1000));
    return { count: statements.length, body: res.body };
  } finally {
    counting = false;
  }
}

const shape = { groupsPerProduct: 2, optionsPerGroup: 3, ingredientRefsPerProduct: 4, locales: [] };

/** A venue holding the fixture's categories and ingredients, ready for products that use them. */
async function venueWithReferences(fixture: SyncBody): Promise<VenueFixture> {
  const v = await createVenue(t.app);
  const res = await call(t.app, 'POST', '/v1/sync', {
    key: v.key,
    body: { categories: fixture.categories, ingredients: fixture.ingredients },
  });
  assert.equal(res.status, 201);
  return v;
}

describe('POST /v1/sync: the number of SQL statements does not grow with the number of items', () => {
  const small = menuFixture({ seed: 1, products: 10, categories: 20, ingredients: 30, ...shape });
  const large = menuFixture({ seed: 2, products: 400, categories: 20, ingredients: 30, ...shape });

  it('sends as many statements to create 400 products as to create 10', async () => {
    const a = await venueWithReferences(small);
    const b = await venueWithReferences(large);
    const few = await statementsOf(a, { products: small.products });
    const many = await statementsOf(b, { products: large.products });
    assert.equal(few.body.products.created, 10);
    assert.equal(many.body.products.created, 400);
    assert.ok(few.count > 0);
    assert.equal(many.count, few.count, `10 products: ${few.count} statements, 400 products: ${many.count}`);
  });

  it('sends as many statements to update 400 products as to update 10', async () => {
    const a = await venueWithReferences(small);
    const b = await venueWithReferences(large);
    await statementsOf(a, { products: small.products });
    await statementsOf(b, { products: large.products });
    const few = await statementsOf(a, { products: mutate(small, 1, 3).body.products });
    const many = await statementsOf(b, { products: mutate(large, 1, 3).body.products });
    assert.equal(few.body.products.updated, 10);
    assert.equal(many.body.products.updated, 400);
    assert.equal(many.count, few.count, `10 products: ${few.count} statements, 400 products: ${many.count}`);
  });

  it('sends as many statements for a whole menu of 200 categories, 200 ingredients and 400 products as for one of 10 each', async () => {
    const tiny = menuFixture({ seed: 3, products: 10, categories: 10, ingredients: 10, ...shape });
    const full = menuFixture({ seed: 4, products: 400, categories: 200, ingredients: 200, ...shape });
    const few = await statementsOf(await createVenue(t.app), tiny);
    const many = await statementsOf(await createVenue(t.app), full);
    assert.deepEqual([many.body.categories.created, many.body.ingredients.created, many.body.products.created], [200, 200, 400]);
    assert.equal(many.count, few.count, `small menu: ${few.count} statements, full menu: ${many.count}`);
  });

  it('sends as many statements to skip 400 unchanged products as to skip 10', async () => {
    const a = await venueWithReferences(small);
    const b = await venueWithReferences(large);
    await statementsOf(a, { products: small.products });
    await statementsOf(b, { products: large.products });
    const few = await statementsOf(a, { products: small.products });
    const many = await statementsOf(b, { products: large.products });
    assert.deepEqual([few.body.products.skipped, many.body.products.skipped], [10, 400]);
    assert.equal(many.count, few.count);
  });
});
