import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { syncCalls } from '../helpers/sync.js';

// POST /v1/sync refuses a whole request and writes nothing: schema validation, a body over 5 MB
// and a sync past its window.
// Every test makes its own venue, so none depends on another's data.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const { sync, syncOk, draft } = syncCalls(() => t.app);

describe('POST /v1/sync: schema validation', () => {
  const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
  const good = (i: number) => ({ externalId: `ok${i}`, name: `Good ${i}`, priceMinor: 100 });
  const goodCategory = { externalId: 'okc', name: 'Good category' };
  const open = (day: string) => ({ day, isOpen: true, openTime: '09:00', closeTime: '17:00' });

  // Each case mixes the bad item with good ones: the whole request is refused, nothing is written.
  const cases: { name: string; body: unknown; expect: string }[] = [
    {
      name: 'a price below 0, reported with the item index',
      body: { products: [good(0), good(1), good(2), { ...good(3), priceMinor: -1 }] },
      expect: 'products[3].priceMinor must be >= 0',
    },
    {
      name: 'a price above 100000000',
      body: { products: [good(0), { ...good(1), priceMinor: 100_000_001 }] },
      expect: 'products[1].priceMinor must be <= 100000000',
    },
    {
      name: 'a sale price above 100000000',
      body: { products: [{ ...good(0), salePriceMinor: 100_000_001 }] },
      expect: 'products[0].salePriceMinor must be <= 100000000',
    },
    {
      name: 'a price sent as text',
      body: { products: [{ ...good(0), priceMinor: '100' }] },
      expect: 'products[0].priceMinor must be an integer',
    },
    {
      name: 'a missing required field',
      body: { products: [{ externalId: 'p1', name: 'No price' }, good(1)] },
      expect: 'products[0].priceMinor is required',
    },
    {
      name: 'an unknown product property',
      body: { products: [{ ...good(0), colour: 'red' }, good(1)] },
      expect: 'products[0].colour is not allowed',
    },
    { name: 'an unknown top-level property', body: { products: [good(0)], banners: [] }, expect: 'banners is not allowed' },
    {
      name: 'an unknown category property',
      body: { categories: [{ ...goodCategory, color: 'x' }] },
      expect: 'categories[0].color is not allowed',
    },
    {
      name: 'an unknown ingredient property',
      body: { ingredients: [{ externalId: 'i1', name: 'I', price: 1 }] },
      expect: 'ingredients[0].price is not allowed',
    },
    {
      name: 'an unknown modifier group property',
      body: { products: [{ ...good(0), modifierGroups: [{ name: 'G', type: 'add_ingredients', options: [], max: 2 }] }] },
      expect: 'products[0].modifierGroups[0].max is not allowed',
    },
    {
      name: 'an unknown modifier option property',
      body: {
        products: [
          { ...good(0), modifierGroups: [{ name: 'G', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1', price: 5 }] }] },
        ],
      },
      expect: 'products[0].modifierGroups[0].options[0].price is not allowed',
    },
    {
      name: 'an unknown schedule entry property',
      body: { categories: [{ ...goodCategory, schedule: [{ ...open('monday'), note: 'x' }] }] },
      expect: 'categories[0].schedule[0].note is not allowed',
    },
    {
      name: 'a translation field the entity does not have',
      body: { products: [{ ...good(0), translations: { uk: { title: 'x' } } }] },
      expect: 'products[0].translations.uk.title is not allowed',
    },
    { name: 'more than 500 products', body: { products: many(501, good) }, expect: 'products must have at most 500 items' },
    {
      name: 'more than 200 categories',
      body: { categories: many(201, (i) => ({ externalId: `c${i}`, name: `C${i}` })) },
      expect: 'categories must have at most 200 items',
    },
    {
      name: 'more than 200 ingredients',
      body: { ingredients: many(201, (i) => ({ externalId: `i${i}`, name: `I${i}` })) },
      expect: 'ingredients must have at most 200 items',
    },
    {
      name: 'more than 20 modifier groups on a product',
      body: {
        products: [good(0), { ...good(1), modifierGroups: many(21, (i) => ({ name: `G${i}`, type: 'add_ingredients', options: [] })) }],
      },
      expect: 'products[1].modifierGroups must have at most 20 items',
    },
    {
      name: 'more than 50 options in a group',
      body: {
        products: [
          {
            ...good(0),
            modifierGroups: [{ name: 'G', type: 'add_ingredients', options: many(51, (i) => ({ ingredientExternalId: `i${i}` })) }],
          },
        ],
      },
      expect: 'products[0].modifierGroups[0].options must have at most 50 items',
    },
    {
      name: 'more than 100 ingredient references on a product',
      body: { products: [{ ...good(0), ingredientExternalIds: many(101, (i) => `i${i}`) }] },
      expect: 'products[0].ingredientExternalIds must have at most 100 items',
    },
    {
      name: 'a name over 200 characters',
      body: { products: [{ ...good(0), name: 'n'.repeat(201) }] },
      expect: 'products[0].name must be at most 200 characters',
    },
    {
      name: 'a category name over 200 characters',
      body: { categories: [{ externalId: 'c1', name: 'n'.repeat(201) }] },
      expect: 'categories[0].name must be at most 200 characters',
    },
    {
      name: 'an externalId over 255 characters',
      body: { products: [good(0), { ...good(1), externalId: 'x'.repeat(256) }] },
      expect: 'products[1].externalId must be at most 255 characters',
    },
    {
      name: 'a categoryExternalId over 255 characters',
      body: { products: [{ ...good(0), categoryExternalId: 'x'.repeat(256) }] },
      expect: 'products[0].categoryExternalId must be at most 255 characters',
    },
    {
      name: 'an empty externalId',
      body: { products: [{ ...good(0), externalId: '' }] },
      expect: 'products[0].externalId must not be empty',
    },
    {
      name: 'a badgeLabel over 16 characters',
      body: { products: [{ ...good(0), badgeLabel: 'b'.repeat(17) }] },
      expect: 'products[0].badgeLabel must be at most 16 characters',
    },
    {
      name: 'a description over 1000 characters',
      body: { products: [{ ...good(0), description: 'd'.repeat(1001) }] },
      expect: 'products[0].description must be at most 1000 characters',
    },
    {
      name: 'an unknown unit',
      body: { products: [{ ...good(0), unit: 'KG' }] },
      expect: 'products[0].unit must be one of: PCS, G, ML, null',
    },
    {
      name: 'an amount over 100000',
      body: { products: [{ ...good(0), amount: 100_001 }] },
      expect: 'products[0].amount must be <= 100000',
    },
    {
      name: 'an unknown badgeColor',
      body: { products: [{ ...good(0), badgeColor: 'PINK' }] },
      expect: 'products[0].badgeColor must be one of: RED, PURPLE, YELLOW, GREEN, BLUE, GREY, null',
    },
    {
      name: 'an unknown cardStyle',
      body: { categories: [{ ...goodCategory, cardStyle: 'fancy' }] },
      expect: 'categories[0].cardStyle must be one of: minimalism, compact, premium, null',
    },
    {
      name: 'an unknown modifier group type',
      body: { products: [{ ...good(0), modifierGroups: [{ name: 'G', type: 'pick_many', options: [] }] }] },
      expect: 'products[0].modifierGroups[0].type must be one of: single_choice, multiple_choice, add_ingredients, remove_ingredients',
    },
    {
      name: 'an unknown option action',
      body: {
        products: [
          {
            ...good(0),
            modifierGroups: [{ name: 'G', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1', action: 'swap' }] }],
          },
        ],
      },
      expect: 'products[0].modifierGroups[0].options[0].action must be one of: add, remove',
    },
    {
      name: 'a schedule day that is not a weekday name',
      body: { categories: [goodCategory, { externalId: 'c1', name: 'C', schedule: [open('funday')] }] },
      expect: 'categories[1].schedule[0].day must be one of: monday, tuesday, wednesday, thursday, friday, saturday, sunday',
    },
    {
      name: 'an opening time that is not HH:MM',
      body: { categories: [{ ...goodCategory, schedule: [{ ...open('monday'), openTime: '9:00' }] }] },
      expect: 'categories[0].schedule[0].openTime must match ^([01][0-9]|2[0-3]):[0-5][0-9]$',
    },
    {
      name: 'a closing time of 24:00',
      body: { categories: [{ ...goodCategory, schedule: [{ ...open('monday'), closeTime: '24:00' }] }] },
      expect: 'categories[0].schedule[0].closeTime must match ^([01][0-9]|2[0-3]):[0-5][0-9]$',
    },
    {
      name: 'more than 7 schedule entries',
      body: {
        categories: [
          { ...goodCategory, schedule: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'monday'].map(open) },
        ],
      },
      expect: 'categories[0].schedule must have at most 7 items',
    },
    {
      name: 'two schedule entries for one day',
      body: {
        categories: [goodCategory, { externalId: 'c1', name: 'C', schedule: [open('monday'), { day: 'monday', isOpen: false }] }],
        products: [good(0)],
      },
      expect: "categories[1].schedule[1].day 'monday' appears more than once",
    },
    {
      name: 'an open day without opening hours',
      body: {
        categories: [goodCategory, { externalId: 'c1', name: 'C', schedule: [{ day: 'monday', isOpen: true, openTime: '09:00' }] }],
        products: [good(0)],
      },
      expect: 'categories[1].schedule[0] needs openTime and closeTime when isOpen is true',
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name} with 400 Validation failed and writes nothing`, async () => {
      const v = await createVenue(t.app);
      const res = await sync(v, c.body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.message, 'Validation failed');
      assert.ok(res.body.errors.includes(c.expect), `expected ${JSON.stringify(c.expect)} in ${JSON.stringify(res.body.errors)}`);
      const menu = await draft(v);
      assert.deepEqual([menu.categories, menu.ingredients, menu.products], [[], [], []]);
      const log = await call(t.app, 'GET', '/v1/audit-log', { key: v.key });
      assert.equal(log.body.total, 0);
    });
  }

  it('lists every violation of one request, each starting with its field path', async () => {
    const v = await createVenue(t.app);
    const res = await sync(v, {
      categories: [{ externalId: 'c1', name: 'C', cardStyle: 'fancy' }],
      products: [{ ...good(0), priceMinor: -5, unit: 'KG', extra: 1 }],
    });
    assert.equal(res.status, 400);
    assert.deepEqual([...res.body.errors].sort(), [
      'categories[0].cardStyle must be one of: minimalism, compact, premium, null',
      'products[0].extra is not allowed',
      'products[0].priceMinor must be >= 0',
      'products[0].unit must be one of: PCS, G, ML, null',
    ]);
  });

  it('leaves stored items untouched when a request with one invalid item would have updated them', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Stored', priceMinor: 100 }] });
    const before = await draft(v);
    const res = await sync(v, {
      categories: [{ externalId: 'c1', name: 'New' }],
      products: [
        { externalId: 'p1', name: 'Changed', priceMinor: 200 },
        { externalId: 'p2', name: 'Bad', priceMinor: -1 },
      ],
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await draft(v), before);
  });
});

describe('POST /v1/sync: request size and the sync window', () => {
  it('refuses a body over 5 MB with 413 PAYLOAD_TOO_LARGE and writes nothing', async () => {
    const v = await createVenue(t.app);
    const description = 'd'.repeat(1000);
    const products = Array.from({ length: 5300 }, (_, i) => ({ externalId: `p${i}`, name: `P${i}`, priceMinor: 1, description }));
    assert.ok(Buffer.byteLength(JSON.stringify({ products })) > 5 * 1024 * 1024);
    const res = await sync(v, { products });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'PAYLOAD_TOO_LARGE');
    assert.deepEqual((await draft(v)).products, []);
  });

  it('answers 413 SYNC_TOO_LARGE and writes nothing when the transaction outlives the sync window', async () => {
    // A second app on the same database with a 1 ms window: any real sync outlives it.
    const { app } = await buildApp({ config: Object.freeze({ ...t.config, syncTimeoutMs: 1 }), db: t.database.db });
    await app.ready();
    try {
      const v = await createVenue(app);
      const products = Array.from({ length: 200 }, (_, i) => ({ externalId: `p${i}`, name: `P${i}`, priceMinor: 1 }));
      const res = await call(app, 'POST', '/v1/sync', { key: v.key, body: { categories: [{ externalId: 'c1', name: 'C' }], products } });
      assert.equal(res.status, 413, JSON.stringify(res.body));
      assert.equal(res.body.code, 'SYNC_TOO_LARGE');
      const menu = await draft(v);
      assert.deepEqual([menu.categories, menu.products], [[], []]);
      assert.equal((await call(t.app, 'GET', '/v1/audit-log', { key: v.key })).body.total, 0);
    } finally {
      await app.close();
    }
  });
});
