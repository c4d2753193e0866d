import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const MENU = {
  categories: [
    { externalId: 'hot', name: 'Hot' },
    { externalId: 'cold', name: 'Cold' },
  ],
  ingredients: [
    { externalId: 'milk', name: 'Milk' },
    { externalId: 'ice', name: 'Ice' },
    { externalId: 'sugar', name: 'Sugar' },
  ],
  products: [
    {
      externalId: 'latte',
      name: 'Latte',
      priceMinor: 350,
      categoryExternalId: 'hot',
      ingredientExternalIds: ['milk', 'sugar'],
      modifierGroups: [
        {
          name: 'Extras',
          type: 'add_ingredients',
          options: [{ ingredientExternalId: 'milk' }, { ingredientExternalId: 'ice' }, { ingredientExternalId: 'sugar' }],
        },
      ],
    },
    { externalId: 'iced', name: 'Iced tea', priceMinor: 300, categoryExternalId: 'cold', ingredientExternalIds: ['ice'] },
    { externalId: 'water', name: 'Water', priceMinor: 100, categoryExternalId: 'cold' },
  ],
};

describe('POST /v1/cleanup', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  async function seeded(): Promise<VenueFixture> {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'POST', '/v1/sync', { key: v.key, body: MENU });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return v;
  }

  function cleanup(v: VenueFixture, body: unknown) {
    return call(t.app, 'POST', '/v1/cleanup', { key: v.key, body });
  }

  async function readMenu(v: VenueFixture) {
    const res = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.equal(res.status, 200);
    return res.body;
  }

  async function usage(v: VenueFixture) {
    const res = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    const { products, categories, ingredients } = res.body.planLimits.usage;
    return { products, categories, ingredients };
  }

  const product = (menu: any, externalId: string) => menu.products.find((p: any) => p.externalId === externalId);

  it('hides products by externalId and by id; they stay in the menu and in planLimits.usage', async () => {
    const v = await seeded();
    const latteId = product(await readMenu(v), 'latte').id;
    const res = await cleanup(v, {
      items: [
        { type: 'product', ref: 'iced' },
        { type: 'product', ref: latteId },
      ],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['categories', 'cleanedAt', 'ingredients', 'notFound', 'products']);
    assert.deepEqual(res.body.products, { hidden: 2 });
    assert.deepEqual(res.body.categories, { deleted: 0 });
    assert.deepEqual(res.body.ingredients, { deleted: 0 });
    assert.deepEqual(res.body.notFound, []);
    assert.match(res.body.cleanedAt, ISO_UTC);

    const menu = await readMenu(v);
    assert.deepEqual(
      menu.products.map((p: any) => [p.externalId, p.menuVisible]),
      [
        ['iced', false],
        ['latte', false],
        ['water', true],
      ],
    );
    assert.equal(product(menu, 'latte').categoryExternalId, 'hot', 'a hidden product keeps its content');
    assert.deepEqual(await usage(v), { products: 3, categories: 2, ingredients: 3 });
  });

  it('deletes categories (here by id): their products lose the category (categoryId null) and the counter drops', async () => {
    const v = await seeded();
    const coldId = (await readMenu(v)).categories.find((c: any) => c.externalId === 'cold').id;
    const res = await cleanup(v, { items: [{ type: 'category', ref: coldId }] });
    assert.equal(res.status, 201);
    assert.deepEqual([res.body.products.hidden, res.body.categories.deleted, res.body.ingredients.deleted], [0, 1, 0]);

    const menu = await readMenu(v);
    assert.deepEqual(
      menu.categories.map((c: any) => c.externalId),
      ['hot'],
    );
    for (const ref of ['iced', 'water']) {
      const p = product(menu, ref);
      assert.deepEqual([p.categoryId, p.categoryExternalId, p.menuVisible], [null, null, true], ref);
    }
    assert.equal(product(menu, 'latte').categoryExternalId, 'hot');
    const byRef = await call(t.app, 'GET', '/v1/products/water', { key: v.key });
    assert.equal(byRef.body.categoryId, null);
    assert.deepEqual(await usage(v), { products: 3, categories: 1, ingredients: 3 });
  });

  it('deletes ingredients by externalId or id: compositions lose them and options on them are removed', async () => {
    const v = await seeded();
    const iceId = (await readMenu(v)).ingredients.find((i: any) => i.externalId === 'ice').id;
    const res = await cleanup(v, {
      items: [
        { type: 'ingredient', ref: 'milk' },
        { type: 'ingredient', ref: iceId },
      ],
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.ingredients, { deleted: 2 });

    const menu = await readMenu(v);
    assert.deepEqual(
      menu.ingredients.map((i: any) => i.externalId),
      ['sugar'],
    );
    const latte = product(menu, 'latte');
    assert.deepEqual(latte.ingredients, [{ externalId: 'sugar', name: 'Sugar' }]);
    assert.equal(latte.modifierGroups.length, 1, 'the group stays');
    assert.deepEqual(
      latte.modifierGroups[0].options.map((o: any) => o.ingredientExternalId),
      ['sugar'],
    );
    assert.deepEqual(product(menu, 'iced').ingredients, []);
    assert.deepEqual(await usage(v), { products: 3, categories: 2, ingredients: 1 });

    // Deleted for real: a sync naming them again creates them anew.
    const resync = await call(t.app, 'POST', '/v1/sync', { key: v.key, body: { ingredients: [{ externalId: 'milk', name: 'Milk' }] } });
    assert.equal(resync.body.ingredients.created, 1);
  });

  it('lists unknown refs as "<type>:<ref>" in notFound and still cleans up the known ones', async () => {
    const v = await seeded();
    const res = await cleanup(v, {
      items: [
        { type: 'product', ref: 'water' },
        { type: 'product', ref: 'ghost' },
        { type: 'category', ref: 'nope' },
        { type: 'ingredient', ref: '01900000-0000-7000-8000-000000000000' },
        { type: 'category', ref: 'latte' },
      ],
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.products, { hidden: 1 });
    assert.deepEqual(res.body.categories, { deleted: 0 });
    assert.deepEqual([...res.body.notFound].sort(), [
      'category:latte',
      'category:nope',
      'ingredient:01900000-0000-7000-8000-000000000000',
      'product:ghost',
    ]);
  });

  it('rejects items: [] without force with 400 whose message says force is needed, and changes nothing', async () => {
    const v = await seeded();
    const before = await readMenu(v);
    for (const body of [{ items: [] }, { items: [], force: false }]) {
      const res = await cleanup(v, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.message, /force/);
    }
    assert.deepEqual(await readMenu(v), before);
  });

  it('cleans up everything of the venue with items: [] and force: true', async () => {
    const v = await seeded();
    const other = await seeded();
    const res = await cleanup(v, { items: [], force: true });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.products.hidden, res.body.categories.deleted, res.body.ingredients.deleted, res.body.notFound],
      [3, 2, 3, []],
    );
    const menu = await readMenu(v);
    assert.deepEqual(menu.categories, []);
    assert.deepEqual(menu.ingredients, []);
    assert.equal(menu.products.length, 3);
    for (const p of menu.products) {
      assert.deepEqual(
        [p.menuVisible, p.categoryId, p.ingredients, p.modifierGroups.flatMap((g: any) => g.options)],
        [false, null, [], []],
      );
    }
    assert.deepEqual(await usage(v), { products: 3, categories: 0, ingredients: 0 });

    const untouched = await readMenu(other);
    assert.equal(untouched.categories.length, 2, 'another venue is not touched');
    assert.ok(untouched.products.every((p: any) => p.menuVisible));
  });

  it('cleans up only the listed items when force is sent with a non-empty list', async () => {
    const v = await seeded();
    const res = await cleanup(v, { items: [{ type: 'product', ref: 'water' }], force: true });
    assert.equal(res.status, 201);
    assert.deepEqual([res.body.products.hidden, res.body.categories.deleted, res.body.ingredients.deleted], [1, 0, 0]);
    const menu = await readMenu(v);
    assert.deepEqual(
      menu.products.map((p: any) => [p.externalId, p.menuVisible]),
      [
        ['iced', true],
        ['latte', true],
        ['water', false],
      ],
    );
    assert.equal(menu.categories.length, 2);
  });

  it('rejects more than 1000 items with 400 before doing anything', async () => {
    const v = await seeded();
    const items = Array.from({ length: 1001 }, (_, i) => ({ type: 'product', ref: i === 0 ? 'water' : `p${i}` }));
    const res = await cleanup(v, { items });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith('items')),
      JSON.stringify(res.body.errors),
    );
    assert.equal(product(await readMenu(v), 'water').menuVisible, true);

    const atCap = await cleanup(v, { items: items.slice(0, 1000) });
    assert.equal(atCap.status, 201);
    assert.equal(atCap.body.notFound.length, 999);
  });

  it('rejects an unknown item type, a missing ref and unknown properties with 400', async () => {
    const v = await seeded();
    const bodies = [
      { items: [{ type: 'banner', ref: 'b1' }] },
      { items: [{ type: 'product' }] },
      { items: [{ type: 'product', ref: 'water', extra: true }] },
      { items: [{ type: 'product', ref: 'water' }], colour: 'red' },
      {},
    ];
    for (const body of bodies) {
      const res = await cleanup(v, body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal(product(await readMenu(v), 'water').menuVisible, true);
  });

  it('restores a cleaned-up product when a sync names it again (counted as updated)', async () => {
    const v = await seeded();
    assert.equal((await cleanup(v, { items: [{ type: 'product', ref: 'water' }] })).status, 201);
    const res = await call(t.app, 'POST', '/v1/sync', {
      key: v.key,
      body: { products: [{ externalId: 'water', name: 'Water', priceMinor: 100 }] },
    });
    assert.equal(res.status, 201);
    assert.deepEqual([res.body.products.created, res.body.products.updated], [0, 1]);
    assert.equal(product(await readMenu(v), 'water').menuVisible, true);
  });

  it('audits menu.cleanup with counts and refs only', async () => {
    const v = await seeded();
    const res = await call(t.app, 'POST', '/v1/cleanup', {
      key: v.key,
      body: {
        items: [
          { type: 'product', ref: 'latte' },
          { type: 'category', ref: 'cold' },
          { type: 'ingredient', ref: 'nope' },
        ],
      },
      headers: { 'x-request-id': 'cleanup-audit-1' },
    });
    assert.equal(res.status, 201);
    const log = await call(t.app, 'GET', '/v1/audit-log?action=menu.cleanup', { key: v.key });
    assert.equal(log.body.total, 1);
    const [entry] = log.body.items;
    assert.deepEqual([entry.entityType, entry.requestId, entry.source], ['menu', 'cleanup-audit-1', 'api_key']);
    assert.deepEqual(entry.changes.products, { hidden: 1 });
    assert.deepEqual(entry.changes.categories, { deleted: 1 });
    assert.deepEqual(entry.changes.ingredients, { deleted: 0 });
    const text = JSON.stringify(entry.changes);
    for (const name of ['Latte', 'Cold', 'Iced tea', 'Water', '350']) assert.ok(!text.includes(name), `${name} is not in the audit entry`);
  });
});
