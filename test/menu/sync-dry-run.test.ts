import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';

// POST /v1/sync?dryRun=true: the same plan as a real sync, nothing written.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

function sync(v: VenueFixture, body: unknown, dryRun = false): Promise<Call> {
  return call(t.app, 'POST', `/v1/sync${dryRun ? '?dryRun=true' : ''}`, { key: v.key, body });
}

async function syncOk(v: VenueFixture, body: unknown, dryRun = false): Promise<any> {
  const res = await sync(v, body, dryRun);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Everything a sync could change, as one comparable value (generatedAt aside). */
async function state(v: VenueFixture) {
  const menu = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
  const reference = (await call(t.app, 'GET', '/v1/reference', { key: v.key })).body;
  const audit = (await call(t.app, 'GET', '/v1/audit-log', { key: v.key })).body;
  return {
    categories: menu.categories,
    ingredients: menu.ingredients,
    products: menu.products,
    usage: reference.planLimits.usage,
    audit: audit.total,
  };
}

const BASE = {
  categories: [{ externalId: 'c1', name: 'Pizza' }],
  ingredients: [
    { externalId: 'i1', name: 'Mozzarella' },
    { externalId: 'i2', name: 'Basil' },
  ],
  products: [
    { externalId: 'p1', name: 'Margherita', priceMinor: 21500, categoryExternalId: 'c1', ingredientExternalIds: ['i1', 'i2'] },
    { externalId: 'p2', name: 'Marinara', priceMinor: 18000, salePriceMinor: 15000 },
  ],
};

describe('POST /v1/sync?dryRun=true', () => {
  it('returns the counts of a real sync with dryRun true and writes nothing, not even an audit entry', async () => {
    const v = await createVenue(t.app);
    const before = await state(v);
    const res = await syncOk(v, BASE, true);
    assert.equal(res.dryRun, true);
    assert.equal(res.success, true);
    assert.deepEqual([res.categories.created, res.ingredients.created, res.products.created], [1, 2, 2]);
    assert.match(res.syncedAt, /Z$/);
    assert.deepEqual(await state(v), before);
    assert.equal(before.audit, 0);
  });

  it('writes nothing on a dry run of updates to stored items', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, BASE);
    const before = await state(v);
    const res = await syncOk(
      v,
      { products: [{ ...BASE.products[0], priceMinor: 1, categoryExternalId: null, ingredientExternalIds: [] }] },
      true,
    );
    assert.deepEqual([res.products.updated, res.dryRun], [1, true]);
    assert.deepEqual(await state(v), before);
  });

  it('does not restore a cleaned-up product on a dry run', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, BASE);
    await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'product', ref: 'p1' }] } });
    const before = await state(v);
    assert.equal((await syncOk(v, { products: [BASE.products[0]] }, true)).products.updated, 1);
    assert.deepEqual(await state(v), before);
  });

  it('answers a real sync for dryRun=false', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, BASE, false);
    assert.equal('dryRun' in res, false);
    const explicit = await call(t.app, 'POST', '/v1/sync?dryRun=false', { key: v.key, body: BASE });
    assert.equal(explicit.status, 201);
    assert.equal('dryRun' in explicit.body, false);
    assert.equal(explicit.body.products.skipped, 2);
  });

  it('returns the same validation errors as a real sync', async () => {
    const v = await createVenue(t.app);
    const body = {
      categories: [{ externalId: 'c1', name: 'C', schedule: [{ day: 'monday', isOpen: true }] }],
      products: [{ externalId: 'p1', name: 'P', priceMinor: -1, colour: 'red' }],
    };
    const dry = await sync(v, body, true);
    const real = await sync(v, body);
    assert.equal(dry.status, 400);
    assert.equal(dry.body.message, 'Validation failed');
    assert.deepEqual(dry.body.errors, real.body.errors);
    assert.ok(dry.body.errors.includes('products[0].colour is not allowed'));
  });

  it('returns the same schedule errors as a real sync', async () => {
    const v = await createVenue(t.app);
    const body = { categories: [{ externalId: 'c1', name: 'C', schedule: [{ day: 'monday', isOpen: true }] }] };
    const dry = await sync(v, body, true);
    assert.equal(dry.status, 400);
    assert.deepEqual(dry.body.errors, ['categories[0].schedule[0] needs openTime and closeTime when isOpen is true']);
    assert.deepEqual(dry.body.errors, (await sync(v, body)).body.errors);
  });

  it('returns the same plan-limit error as a real sync', async () => {
    const v = await createVenue(t.app, { plan: 'free' });
    await syncOk(v, { products: Array.from({ length: 65 }, (_, i) => ({ externalId: `p${i}`, name: `P${i}`, priceMinor: 1 })) });
    const body = { products: Array.from({ length: 10 }, (_, i) => ({ externalId: `n${i}`, name: `N${i}`, priceMinor: 1 })) };
    const dry = await sync(v, body, true);
    const real = await sync(v, body);
    for (const res of [dry, real]) {
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'PRODUCT_BULK_LIMIT_EXCEEDED');
      assert.equal(res.body.message, 'Bad Request Exception');
      assert.deepEqual(res.body.details, { limit: 70, available: 5, requested: 10 });
    }
  });
});

describe('POST /v1/sync?dryRun=true against the real sync that follows it', () => {
  interface Scenario {
    name: string;
    setup?: unknown[];
    cleanup?: string[];
    languages?: string[];
    body: unknown;
  }

  const scenarios: Scenario[] = [
    { name: 'creates only', body: BASE },
    {
      name: 'updates only',
      setup: [BASE],
      body: { products: BASE.products.map((p) => ({ ...p, priceMinor: p.priceMinor + 1 })) },
    },
    {
      name: 'creates, updates and skips mixed in every section',
      setup: [BASE],
      body: {
        categories: [
          { externalId: 'c1', name: 'Pizza' },
          { externalId: 'c2', name: 'Drinks' },
        ],
        ingredients: [
          { externalId: 'i1', name: 'Fior di latte' },
          { externalId: 'i2', name: 'Basil' },
          { externalId: 'i3', name: 'Olives' },
        ],
        products: [
          BASE.products[0],
          { ...BASE.products[1], description: 'No cheese' },
          { externalId: 'p3', name: 'Lemonade', priceMinor: 5000, categoryExternalId: 'c2' },
        ],
      },
    },
    {
      name: 'warnings: unknown references and a deprecated modifier type',
      setup: [BASE],
      body: {
        products: [
          {
            externalId: 'p1',
            name: 'Margherita',
            priceMinor: 21500,
            categoryExternalId: 'ghost',
            ingredientExternalIds: ['i1', 'nope'],
            modifierGroups: [
              { name: 'Extras', type: 'multiple_choice', options: [{ ingredientExternalId: 'i2' }, { ingredientExternalId: 'gone' }] },
            ],
          },
          { externalId: 'p9', name: 'New', priceMinor: 1, categoryExternalId: 'ghost' },
        ],
      },
    },
    {
      name: 'per-item errors: a sale without a price and bad translations',
      languages: ['en', 'uk'],
      body: {
        categories: [{ externalId: 'c1', name: 'Pizza', translations: { es: { name: 'Pizza' } } }],
        ingredients: [
          { externalId: 'i1', name: 'Basil', translations: { uk: {} } },
          { externalId: 'i2', name: 'Olives', translations: { uk: { name: 'Оливки' } } },
        ],
        products: [
          { externalId: 'p1', name: 'Sale', priceMinor: 100, isSaleActive: true },
          { externalId: 'p2', name: 'Bad locale', priceMinor: 100, translations: { zz: { name: 'x' } } },
          { externalId: 'p3', name: 'Fine', priceMinor: 100, translations: { uk: { name: 'Добре' } } },
        ],
      },
    },
    {
      name: 'duplicate externalIds',
      setup: [BASE],
      body: {
        ingredients: [
          { externalId: 'i1', name: 'A' },
          { externalId: 'i1', name: 'Mozzarella' },
        ],
        products: [
          { externalId: 'p1', name: 'First', priceMinor: 1 },
          { externalId: 'p7', name: 'New', priceMinor: 1 },
          { externalId: 'p1', name: 'Margherita', priceMinor: 21500 },
          { externalId: 'p7', name: 'Newer', priceMinor: 2 },
        ],
      },
    },
    { name: 'an empty request', setup: [BASE], body: { categories: [], ingredients: [], products: [] } },
    {
      name: 'a restore of a cleaned-up product',
      setup: [BASE],
      cleanup: ['p1', 'p2'],
      body: { products: [BASE.products[0], { ...BASE.products[1], menuVisible: false }] },
    },
  ];

  for (const s of scenarios) {
    it(`gives the same answer as the real sync for ${s.name}`, async () => {
      const v = await createVenue(t.app);
      if (s.languages) {
        assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: s.languages } })).status, 200);
      }
      for (const body of s.setup ?? []) await syncOk(v, body);
      if (s.cleanup) {
        const items = s.cleanup.map((ref) => ({ type: 'product', ref }));
        assert.equal((await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items } })).status, 201);
      }
      const before = await state(v);
      const dry = await syncOk(v, s.body, true);
      assert.deepEqual(await state(v), before, 'the dry run changed something');
      const real = await syncOk(v, s.body);

      assert.equal(dry.dryRun, true);
      assert.equal('dryRun' in real, false);
      const { dryRun: _d, syncedAt: _s1, ...dryRest } = dry;
      const { syncedAt: _s2, ...realRest } = real;
      // A dry run also lists its changes: one per item it creates or updates.
      for (const section of ['categories', 'ingredients', 'products'] as const) {
        if (!dryRest[section]) continue;
        const { changes, ...counts } = dryRest[section];
        assert.equal(changes.length, counts.created + counts.updated, `${section} changes`);
        dryRest[section] = counts;
      }
      assert.deepEqual(dryRest, realRest);
    });
  }
});
