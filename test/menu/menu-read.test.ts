import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture, syncOk } from '../helpers/app.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /v1/menu', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const sync = (v: VenueFixture, body: unknown) => syncOk(t.app, v, body);

  async function readMenu(v: VenueFixture, query = '') {
    const res = await call(t.app, 'GET', `/v1/menu${query}`, { key: v.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res;
  }

  it('reads an empty draft with the document envelope', async () => {
    const v = await createVenue(t.app);
    const { body } = await readMenu(v);
    assert.deepEqual(Object.keys(body).sort(), [
      'categories',
      'currency',
      'generatedAt',
      'ingredients',
      'products',
      'publicationId',
      'publishedAt',
      'version',
    ]);
    assert.equal(body.version, 'draft');
    assert.equal(body.publicationId, null);
    assert.equal(body.publishedAt, null);
    assert.match(body.generatedAt, ISO_UTC);
    assert.equal(body.currency, 'EUR');
    assert.deepEqual([body.categories, body.ingredients, body.products], [[], [], []]);
  });

  it('defaults to the draft and reads version=draft the same way', async () => {
    const v = await createVenue(t.app);
    await sync(v, { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
    const implicit = await readMenu(v);
    const explicit = await readMenu(v, '?version=draft');
    assert.equal(implicit.body.version, 'draft');
    assert.deepEqual(explicit.body.products, implicit.body.products);
  });

  it('shows every field of the read shape, unset optional fields as null and schedule as []', async () => {
    const v = await createVenue(t.app);
    await sync(v, {
      categories: [{ externalId: 'c1', name: 'Drinks' }],
      ingredients: [{ externalId: 'i1', name: 'Milk' }],
      products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }],
    });
    const { body } = await readMenu(v);

    const { id: categoryId, updatedAt: categoryUpdatedAt, ...category } = body.categories[0];
    assert.equal(typeof categoryId, 'string');
    assert.match(categoryUpdatedAt, ISO_UTC);
    assert.deepEqual(category, {
      externalId: 'c1',
      name: 'Drinks',
      sortOrder: 0,
      schedule: [],
      cardStyle: null,
      isActive: true,
      translations: {},
    });

    const [ingredient] = body.ingredients;
    assert.deepEqual(Object.keys(ingredient).sort(), [
      'allergens',
      'availability',
      'externalId',
      'id',
      'name',
      'sortOrder',
      'translations',
      'updatedAt',
    ]);
    assert.deepEqual([ingredient.externalId, ingredient.name, ingredient.sortOrder, ingredient.translations], ['i1', 'Milk', 0, {}]);
    assert.match(ingredient.updatedAt, ISO_UTC);

    const [product] = body.products;
    assert.deepEqual(Object.keys(product).sort(), [
      'allergens',
      'amount',
      'availability',
      'badgeColor',
      'badgeLabel',
      'calories',
      'categoryExternalId',
      'categoryId',
      'description',
      'dietaryLabels',
      'effectiveAllergens',
      'externalId',
      'id',
      'image',
      'imageUrl',
      'ingredients',
      'isSaleActive',
      'mayContain',
      'menuVisible',
      'modifierGroups',
      'name',
      'nutrition',
      'priceMinor',
      'salePriceMinor',
      'sortOrder',
      'spiceLevel',
      'translations',
      'unit',
      'updatedAt',
    ]);
    const { id, updatedAt, ...rest } = product;
    assert.equal(typeof id, 'string');
    assert.match(updatedAt, ISO_UTC);
    assert.deepEqual(rest, {
      externalId: 'p1',
      name: 'Tea',
      description: null,
      priceMinor: 100,
      salePriceMinor: null,
      isSaleActive: false,
      amount: null,
      unit: null,
      badgeLabel: null,
      badgeColor: null,
      categoryId: null,
      categoryExternalId: null,
      ingredients: [],
      modifierGroups: [],
      sortOrder: 0,
      menuVisible: true,
      imageUrl: null,
      image: null,
      translations: {},
      allergens: [],
      effectiveAllergens: [],
      mayContain: [],
      dietaryLabels: [],
      spiceLevel: null,
      calories: null,
      nutrition: null,
      availability: { available: true, until: null, reason: null },
    });
  });

  it('expands composition as { externalId, name } and modifier groups with their options', async () => {
    const v = await createVenue(t.app);
    await sync(v, {
      categories: [
        {
          externalId: 'c1',
          name: 'Coffee',
          cardStyle: 'premium',
          schedule: [
            { day: 'monday', isOpen: true, openTime: '08:00', closeTime: '18:00' },
            { day: 'sunday', isOpen: false },
          ],
        },
      ],
      ingredients: [
        { externalId: 'milk', name: 'Milk' },
        { externalId: 'sugar', name: 'Sugar' },
        { externalId: 'syrup', name: 'Syrup' },
      ],
      products: [
        {
          externalId: 'latte',
          name: 'Latte',
          description: 'Milky',
          priceMinor: 350,
          salePriceMinor: 300,
          isSaleActive: true,
          amount: 300,
          unit: 'ML',
          badgeLabel: 'New',
          badgeColor: 'GREEN',
          categoryExternalId: 'c1',
          ingredientExternalIds: ['milk', 'sugar'],
          modifierGroups: [
            {
              name: 'Size',
              type: 'single_choice',
              options: [{ ingredientExternalId: 'milk', priceAdjustment: -50 }, { ingredientExternalId: 'syrup' }],
            },
            { name: 'Without', type: 'remove_ingredients', isRequired: true, options: [{ ingredientExternalId: 'sugar' }] },
            { name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'syrup', priceAdjustment: 40 }] },
          ],
        },
      ],
    });
    const { body } = await readMenu(v);
    const category = body.categories[0];
    assert.equal(category.cardStyle, 'premium');
    assert.deepEqual(category.schedule, [
      { day: 'monday', isOpen: true, openTime: '08:00', closeTime: '18:00' },
      { day: 'sunday', isOpen: false },
    ]);

    const p = body.products[0];
    assert.equal(p.categoryId, category.id);
    assert.equal(p.categoryExternalId, 'c1');
    assert.deepEqual(
      [p.description, p.salePriceMinor, p.isSaleActive, p.amount, p.unit, p.badgeLabel, p.badgeColor],
      ['Milky', 300, true, 300, 'ML', 'New', 'GREEN'],
    );
    assert.deepEqual(p.ingredients, [
      { externalId: 'milk', name: 'Milk' },
      { externalId: 'sugar', name: 'Sugar' },
    ]);

    assert.deepEqual(
      p.modifierGroups.map((g: any) => [g.name, g.type, g.isRequired, g.sortOrder]),
      [
        ['Size', 'single_choice', true, 0],
        ['Without', 'remove_ingredients', false, 1],
        ['Extras', 'add_ingredients', false, 2],
      ],
    );
    for (const g of p.modifierGroups) {
      assert.deepEqual(Object.keys(g).sort(), [
        'id',
        'isRequired',
        'maxQuantityPerOption',
        'maxSelections',
        'minSelections',
        'name',
        'options',
        'sortOrder',
        'translations',
        'type',
      ]);
      assert.equal(typeof g.id, 'string');
      assert.deepEqual(g.translations, {});
      for (const o of g.options) {
        assert.deepEqual(Object.keys(o).sort(), [
          'action',
          'allergens',
          'availability',
          'id',
          'ingredientExternalId',
          'ingredientName',
          'isDefault',
          'priceAdjustment',
          'sortOrder',
        ]);
        assert.equal(typeof o.id, 'string');
      }
    }
    const strip = (g: any) => g.options.map(({ id: _id, availability: _a, allergens: _al, ...o }: any) => o);
    assert.deepEqual(strip(p.modifierGroups[0]), [
      { ingredientExternalId: 'milk', ingredientName: 'Milk', action: 'add', priceAdjustment: -50, sortOrder: 0, isDefault: false },
      { ingredientExternalId: 'syrup', ingredientName: 'Syrup', action: 'add', priceAdjustment: 0, sortOrder: 1, isDefault: false },
    ]);
    assert.deepEqual(strip(p.modifierGroups[1]), [
      { ingredientExternalId: 'sugar', ingredientName: 'Sugar', action: 'remove', priceAdjustment: 0, sortOrder: 0, isDefault: false },
    ]);
    assert.deepEqual(strip(p.modifierGroups[2]), [
      { ingredientExternalId: 'syrup', ingredientName: 'Syrup', action: 'add', priceAdjustment: 40, sortOrder: 0, isDefault: false },
    ]);
  });

  it('orders categories, ingredients, products and modifier groups by sortOrder, then name, then id', async () => {
    const v = await createVenue(t.app);
    const items = (prefix: string) => [
      { externalId: `${prefix}-1`, name: 'Beta', sortOrder: 2 },
      { externalId: `${prefix}-2`, name: 'Delta', sortOrder: 1 },
      { externalId: `${prefix}-3`, name: 'Alpha', sortOrder: 1 },
      { externalId: `${prefix}-4`, name: 'Twin', sortOrder: 5 },
      { externalId: `${prefix}-5`, name: 'Twin', sortOrder: 5 },
      { externalId: `${prefix}-6`, name: 'Zulu', sortOrder: -1 },
    ];
    await sync(v, {
      categories: items('c'),
      ingredients: items('i'),
      products: [
        ...items('p').map((p) => ({ ...p, priceMinor: 100 })),
        {
          externalId: 'groups',
          name: 'Groups',
          priceMinor: 1,
          sortOrder: 99,
          modifierGroups: [
            { name: 'Beta', type: 'add_ingredients', sortOrder: 2, options: [] },
            { name: 'Delta', type: 'add_ingredients', sortOrder: 1, options: [] },
            { name: 'Alpha', type: 'add_ingredients', sortOrder: 1, options: [] },
            { name: 'Twin', type: 'add_ingredients', sortOrder: 5, options: [] },
            { name: 'Twin', type: 'add_ingredients', sortOrder: 5, options: [] },
            { name: 'Zulu', type: 'add_ingredients', sortOrder: -1, options: [] },
          ],
        },
      ],
    });
    const { body } = await readMenu(v);
    const expectedNames = ['Zulu', 'Alpha', 'Delta', 'Beta', 'Twin', 'Twin'];
    const groups = body.products.find((p: any) => p.externalId === 'groups').modifierGroups;
    const lists: [string, { name: string; id: string }[]][] = [
      ['categories', body.categories],
      ['ingredients', body.ingredients],
      ['products', body.products.filter((p: any) => p.externalId !== 'groups')],
      ['modifierGroups', groups],
    ];
    for (const [label, list] of lists) {
      assert.deepEqual(
        list.map((x) => x.name),
        expectedNames,
        label,
      );
      const twins = list.slice(4).map((x) => x.id);
      assert.deepEqual(twins, [...twins].sort(), `${label}: equal sortOrder and name fall back to id`);
    }
    assert.equal(body.products.at(-1).externalId, 'groups');
  });

  it('includes hidden products and inactive categories with their flags', async () => {
    const v = await createVenue(t.app);
    await sync(v, {
      categories: [
        { externalId: 'off', name: 'Off', isActive: false },
        { externalId: 'on', name: 'On' },
      ],
      products: [
        { externalId: 'hidden', name: 'Hidden', priceMinor: 1, menuVisible: false, categoryExternalId: 'off' },
        { externalId: 'shown', name: 'Shown', priceMinor: 1, categoryExternalId: 'on' },
      ],
    });
    const { body } = await readMenu(v);
    assert.deepEqual(
      body.categories.map((c: any) => [c.externalId, c.isActive]),
      [
        ['off', false],
        ['on', true],
      ],
    );
    assert.deepEqual(
      body.products.map((p: any) => [p.externalId, p.menuVisible, p.categoryExternalId]),
      [
        ['hidden', false, 'off'],
        ['shown', true, 'on'],
      ],
    );
  });

  it('sends an ETag, and answers If-None-Match with it by 304 and no body', async () => {
    const v = await createVenue(t.app);
    await sync(v, { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
    const first = await readMenu(v);
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[^"]+"$/);

    const again = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.equal(again.headers.etag, etag, 'an unchanged menu keeps its ETag');

    const cached = await call(t.app, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);
    assert.equal(cached.raw.body, '');
    assert.equal(cached.headers.etag, etag);

    const listed = await call(t.app, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': `"other", ${etag}` } });
    assert.equal(listed.status, 304);

    const other = await call(t.app, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': '"not-the-etag"' } });
    assert.equal(other.status, 200);
    assert.equal(other.body.products.length, 1);
  });

  it('changes the ETag and serves the new content after every kind of change (no stale cache)', async () => {
    const v = await createVenue(t.app);
    await sync(v, {
      categories: [{ externalId: 'c1', name: 'Food' }],
      ingredients: [{ externalId: 'i1', name: 'Salt' }],
      products: [
        { externalId: 'p1', name: 'Soup', priceMinor: 500, categoryExternalId: 'c1', ingredientExternalIds: ['i1'] },
        { externalId: 'p2', name: 'Bread', priceMinor: 100 },
      ],
    });
    let previous = await readMenu(v);
    const seen = new Set<string>([previous.headers.etag as string]);

    /** After a change: the old ETag no longer gives 304; the fresh body and a new ETag come back. */
    async function expectFresh(label: string, check: (menu: any) => void) {
      const res = await call(t.app, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': previous.headers.etag as string } });
      assert.equal(res.status, 200, `${label}: the old ETag must not give 304`);
      const etag = res.headers.etag as string;
      assert.ok(!seen.has(etag), `${label}: the ETag changes`);
      seen.add(etag);
      check(res.body);
      previous = res;
    }

    await sync(v, { products: [{ externalId: 'p1', name: 'Soup of the day', priceMinor: 500 }] });
    await expectFresh('sync', (m) => assert.equal(m.products.find((p: any) => p.externalId === 'p1').name, 'Soup of the day'));

    await sync(v, { ingredients: [{ externalId: 'i1', name: 'Sea salt' }] });
    await expectFresh('ingredient rename', (m) =>
      assert.deepEqual(m.products.find((p: any) => p.externalId === 'p1').ingredients, [{ externalId: 'i1', name: 'Sea salt' }]),
    );

    const patched = await call(t.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 650 } });
    assert.equal(patched.status, 200);
    await expectFresh('patch', (m) => assert.equal(m.products.find((p: any) => p.externalId === 'p1').priceMinor, 650));

    const deleted = await call(t.app, 'DELETE', '/v1/products/p2', { key: v.key });
    assert.equal(deleted.status, 200);
    await expectFresh('delete', (m) =>
      assert.deepEqual(
        m.products.map((p: any) => p.externalId),
        ['p1'],
      ),
    );

    const cleaned = await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'category', ref: 'c1' }] } });
    assert.equal(cleaned.status, 201);
    await expectFresh('cleanup', (m) => {
      assert.deepEqual(m.categories, []);
      assert.equal(m.products[0].categoryId, null);
    });

    const translated = await call(t.app, 'PUT', '/v1/translations', {
      key: v.key,
      body: { products: [{ ref: 'p1', translations: { en: { name: 'Soup EN' } } }] },
    });
    assert.equal(translated.status, 200);
    await expectFresh('PUT translations', (m) => assert.deepEqual(m.products[0].translations, { en: { name: 'Soup EN' } }));
  });

  it('answers with the same bytes and ETag from a fresh instance on the same database (restart, scale-out)', async () => {
    const v = await createVenue(t.app);
    const empty = await readMenu(v);
    await sync(v, {
      categories: [{ externalId: 'c1', name: 'Drinks' }],
      products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100, categoryExternalId: 'c1' }],
    });
    const draft = await readMenu(v);
    assert.notEqual(draft.headers.etag, empty.headers.etag);
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    const published = await readMenu(v, '?version=published');
    const guest = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    assert.equal(guest.status, 200);

    // Another app on the same database: nothing cached, every document built again.
    const { app: other } = await buildApp({ config: t.config, db: t.database.db });
    await other.ready();
    try {
      for (const [url, before] of [
        ['/v1/menu', draft],
        ['/v1/menu?version=published', published],
      ] as const) {
        const again = await call(other, 'GET', url, { key: v.key });
        assert.equal(again.headers.etag, before.headers.etag, url);
        assert.equal(again.raw.body, before.raw.body, url);
        const notModified = await call(other, 'GET', url, { key: v.key, headers: { 'if-none-match': before.headers.etag as string } });
        assert.equal(notModified.status, 304, url);
      }
      const guestAgain = await call(other, 'GET', `/guest/v1/venues/${v.slug}/menu`);
      assert.equal(guestAgain.headers.etag, guest.headers.etag, 'guest menu');
      assert.equal(guestAgain.raw.body, guest.raw.body, 'guest menu');
    } finally {
      await other.close();
    }
  });

  it('keeps the draft ETag of a never-edited draft across its first publish, on any instance', async () => {
    const v = await createVenue(t.app);
    const before = await readMenu(v);
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    const { app: other } = await buildApp({ config: t.config, db: t.database.db });
    await other.ready();
    try {
      const again = await call(other, 'GET', '/v1/menu', { key: v.key });
      assert.equal(again.headers.etag, before.headers.etag);
      assert.equal((await readMenu(v)).headers.etag, before.headers.etag);
    } finally {
      await other.close();
    }
  });

  it('answers 404 MENU_NOT_PUBLISHED for the published menu before the first publish', async () => {
    const v = await createVenue(t.app);
    await sync(v, { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
    const res = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'MENU_NOT_PUBLISHED');
  });

  it('rejects an unknown version with 400', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'GET', '/v1/menu?version=bogus', { key: v.key });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith('version')),
      JSON.stringify(res.body.errors),
    );
  });
});
