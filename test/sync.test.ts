import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from './helpers/app.js';

// POST /v1/sync: spec 4.1 rules 1-8 and 10, the response of 4.1, decisions 3, 4, 11 and 12.
// Every test makes its own venue, so none depends on another's data.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

function sync(v: VenueFixture, body?: unknown): Promise<Call> {
  return call(t.app, 'POST', '/v1/sync', { key: v.key, body });
}

async function syncOk(v: VenueFixture, body: unknown): Promise<any> {
  const res = await sync(v, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function product(v: VenueFixture, ref: string): Promise<any> {
  const res = await call(t.app, 'GET', `/v1/products/${encodeURIComponent(ref)}`, { key: v.key });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function draft(v: VenueFixture): Promise<any> {
  const res = await call(t.app, 'GET', '/v1/menu', { key: v.key });
  assert.equal(res.status, 200);
  return res.body;
}

async function usage(v: VenueFixture): Promise<{ products: number; categories: number; ingredients: number }> {
  const res = await call(t.app, 'GET', '/v1/reference', { key: v.key });
  assert.equal(res.status, 200);
  return res.body.planLimits.usage;
}

function counts(section: { created: number; updated: number; skipped: number }) {
  return { created: section.created, updated: section.updated, skipped: section.skipped };
}

const BASE = {
  categories: [
    { externalId: 'c1', name: 'Pizza' },
    { externalId: 'c2', name: 'Drinks' },
  ],
  ingredients: [
    { externalId: 'i1', name: 'Mozzarella' },
    { externalId: 'i2', name: 'Basil' },
    { externalId: 'i3', name: 'Olives' },
  ],
};

describe('POST /v1/sync: create, update, skip (spec 4.1 rule 1)', () => {
  it('creates unknown externalIds, updates known ones and skips identical ones', async () => {
    const v = await createVenue(t.app);
    const first = await syncOk(v, {
      ...BASE,
      products: [
        { externalId: 'p1', name: 'Margherita', priceMinor: 21500 },
        { externalId: 'p2', name: 'Marinara', priceMinor: 18000 },
      ],
    });
    assert.deepEqual(counts(first.categories), { created: 2, updated: 0, skipped: 0 });
    assert.deepEqual(counts(first.ingredients), { created: 3, updated: 0, skipped: 0 });
    assert.deepEqual(counts(first.products), { created: 2, updated: 0, skipped: 0 });

    const second = await syncOk(v, {
      categories: [{ externalId: 'c1', name: 'Pizzas' }, { externalId: 'c2', name: 'Drinks' }],
      products: [
        { externalId: 'p1', name: 'Margherita', priceMinor: 22500 },
        { externalId: 'p2', name: 'Marinara', priceMinor: 18000 },
        { externalId: 'p3', name: 'Diavola', priceMinor: 24000 },
      ],
    });
    assert.deepEqual(counts(second.categories), { created: 0, updated: 1, skipped: 1 });
    assert.deepEqual(counts(second.products), { created: 1, updated: 1, skipped: 1 });
    assert.equal((await product(v, 'p1')).priceMinor, 22500);
    assert.equal((await product(v, 'p3')).name, 'Diavola');
    assert.deepEqual(await usage(v), { products: 3, categories: 2, ingredients: 3, banners: 0, tables: 0 });
  });

  it('skips every item when the same request is repeated, modifier groups and translations included', async () => {
    const v = await createVenue(t.app);
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk'] } })).status, 200);
    const body = {
      categories: [
        {
          externalId: 'c1',
          name: 'Pizza',
          sortOrder: 2,
          schedule: [
            { day: 'monday', isOpen: true, openTime: '09:00', closeTime: '22:00' },
            { day: 'sunday', isOpen: false },
          ],
          cardStyle: 'premium',
          isActive: true,
          translations: { uk: { name: 'Піца' } },
        },
      ],
      ingredients: [
        { externalId: 'i1', name: 'Mozzarella', translations: { uk: { name: 'Моцарела' } } },
        { externalId: 'i2', name: 'Basil', sortOrder: 3 },
      ],
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          description: 'Tomato, mozzarella, basil',
          priceMinor: 21500,
          salePriceMinor: 19900,
          isSaleActive: true,
          amount: 450,
          unit: 'G',
          badgeLabel: 'NEW',
          badgeColor: 'RED',
          categoryExternalId: 'c1',
          ingredientExternalIds: ['i1', 'i2'],
          sortOrder: 1,
          menuVisible: true,
          translations: { uk: { name: 'Маргарита', description: 'Томат, моцарела, базилік' } },
          modifierGroups: [
            {
              name: 'Size',
              type: 'single_choice',
              translations: { uk: { name: 'Розмір' } },
              options: [
                { ingredientExternalId: 'i1', priceAdjustment: -500 },
                { ingredientExternalId: 'i2', priceAdjustment: 700 },
              ],
            },
            { name: 'Remove', type: 'remove_ingredients', options: [{ ingredientExternalId: 'i2' }] },
          ],
        },
      ],
    };
    const first = await syncOk(v, body);
    assert.deepEqual(counts(first.products), { created: 1, updated: 0, skipped: 0 });
    assert.equal(first.translations.applied, 4);
    const before = await product(v, 'p1');

    const again = await syncOk(v, body);
    assert.deepEqual(counts(again.categories), { created: 0, updated: 0, skipped: 1 });
    assert.deepEqual(counts(again.ingredients), { created: 0, updated: 0, skipped: 2 });
    assert.deepEqual(counts(again.products), { created: 0, updated: 0, skipped: 1 });
    assert.equal(again.translations.applied, 0);
    // A skip leaves the row as it was: same option ids, same updatedAt.
    assert.deepEqual(await product(v, 'p1'), before);
  });

  it('counts a change inside a modifier group only as an update', async () => {
    const v = await createVenue(t.app);
    const group = (price: number) => ({
      name: 'Extras',
      type: 'add_ingredients',
      options: [{ ingredientExternalId: 'i1', priceAdjustment: price }],
    });
    await syncOk(v, { ...BASE, products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, modifierGroups: [group(300)] }] });
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, modifierGroups: [group(400)] }] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
    assert.equal((await product(v, 'p1')).modifierGroups[0].options[0].priceAdjustment, 400);
  });

  it('keeps modifier group and option ids when the groups sent are identical', async () => {
    const v = await createVenue(t.app);
    const groups = [{ name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1', priceAdjustment: 300 }] }];
    await syncOk(v, { ...BASE, products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, modifierGroups: groups }] });
    const before = await product(v, 'p1');
    // The price changes (an update), the groups do not: guests' option ids stay valid.
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 200, modifierGroups: groups }] });
    const after = await product(v, 'p1');
    assert.equal(after.priceMinor, 200);
    assert.deepEqual(after.modifierGroups, before.modifierGroups);
  });
});

describe('POST /v1/sync: sections and references (spec 4.1 rules 2, 3, 5)', () => {
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
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 200 }, { externalId: 'p2', name: 'New', priceMinor: 1 }] });
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
    assert.deepEqual((await product(v, 'p1')).ingredients.map((i: any) => i.externalId), ['i1', 'i2']);
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
    assert.deepEqual(group.options.map((o: any) => o.ingredientExternalId), ['i1', 'i3']);
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

describe('POST /v1/sync: omitted, null and [] (spec 4.1 rule 4, decisions 12)', () => {
  const FULL = {
    externalId: 'p1',
    name: 'Margherita',
    description: 'Tomato and mozzarella',
    priceMinor: 21500,
    salePriceMinor: 19900,
    isSaleActive: true,
    amount: 450,
    unit: 'G',
    badgeLabel: 'NEW',
    badgeColor: 'GREEN',
    categoryExternalId: 'c1',
    ingredientExternalIds: ['i1', 'i2'],
    modifierGroups: [
      { name: 'Size', type: 'single_choice', options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', priceAdjustment: 300 }] },
      { name: 'No', type: 'remove_ingredients', options: [{ ingredientExternalId: 'i2' }] },
    ],
    sortOrder: 7,
    menuVisible: false,
  };

  async function stored(v: VenueFixture) {
    await syncOk(v, { ...BASE, products: [FULL] });
    return product(v, 'p1');
  }

  it('keeps every optional field that an update omits, the category included', async () => {
    const v = await createVenue(t.app);
    const before = await stored(v);
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 23000 }] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
    const after = await product(v, 'p1');
    assert.equal(after.priceMinor, 23000);
    const { priceMinor: _a, updatedAt: _b, ...kept } = after;
    const { priceMinor: _c, updatedAt: _d, ...was } = before;
    assert.deepEqual(kept, was);
    assert.equal(after.categoryExternalId, 'c1');
    assert.equal(after.description, 'Tomato and mozzarella');
    assert.equal(after.sortOrder, 7);
    assert.equal(after.badgeLabel, 'NEW');
    assert.equal(after.menuVisible, false);
  });

  it('skips an update that omits optional fields and repeats the required ones', async () => {
    const v = await createVenue(t.app);
    await stored(v);
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500 }] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 1 });
  });

  it('clears categoryExternalId, salePriceMinor, badgeLabel and badgeColor sent as null', async () => {
    const v = await createVenue(t.app);
    await stored(v);
    const res = await syncOk(v, {
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 21500,
          categoryExternalId: null,
          salePriceMinor: null,
          isSaleActive: false,
          badgeLabel: null,
          badgeColor: null,
        },
      ],
    });
    assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
    const p = await product(v, 'p1');
    assert.equal(p.categoryId, null);
    assert.equal(p.categoryExternalId, null);
    assert.equal(p.salePriceMinor, null);
    assert.equal(p.isSaleActive, false);
    assert.equal(p.badgeLabel, null);
    assert.equal(p.badgeColor, null);
    // Everything else is kept.
    assert.equal(p.description, 'Tomato and mozzarella');
    assert.equal(p.ingredients.length, 2);
    assert.equal(p.modifierGroups.length, 2);
  });

  it('clears the composition and the modifier groups sent as []', async () => {
    const v = await createVenue(t.app);
    await stored(v);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500, ingredientExternalIds: [], modifierGroups: [] }] });
    const p = await product(v, 'p1');
    assert.deepEqual(p.ingredients, []);
    assert.deepEqual(p.modifierGroups, []);
    assert.equal(p.categoryExternalId, 'c1');
  });

  it('replaces the whole composition with a non-empty array', async () => {
    const v = await createVenue(t.app);
    await stored(v);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500, ingredientExternalIds: ['i3'] }] });
    assert.deepEqual((await product(v, 'p1')).ingredients, [{ externalId: 'i3', name: 'Olives' }]);
  });

  it('replaces the modifier groups wholesale, never merging them with the stored ones', async () => {
    const v = await createVenue(t.app);
    const before = await stored(v);
    await syncOk(v, {
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 21500,
          modifierGroups: [{ name: 'Size', type: 'single_choice', options: [{ ingredientExternalId: 'i3', priceAdjustment: 100 }] }],
        },
      ],
    });
    const p = await product(v, 'p1');
    assert.equal(p.modifierGroups.length, 1);
    assert.deepEqual(p.modifierGroups[0].options.map((o: any) => [o.ingredientExternalId, o.priceAdjustment]), [['i3', 100]]);
    // A replaced group is a new group: none of the old ids survive.
    const oldIds = new Set(before.modifierGroups.flatMap((g: any) => [g.id, ...g.options.map((o: any) => o.id)]));
    assert.ok(!oldIds.has(p.modifierGroups[0].id));
    assert.ok(!oldIds.has(p.modifierGroups[0].options[0].id));
  });

  it('reads unset optional fields of a new product as their defaults', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Bare', priceMinor: 0 }] });
    const p = await product(v, 'p1');
    assert.deepEqual(
      {
        description: p.description,
        salePriceMinor: p.salePriceMinor,
        isSaleActive: p.isSaleActive,
        amount: p.amount,
        unit: p.unit,
        badgeLabel: p.badgeLabel,
        badgeColor: p.badgeColor,
        categoryExternalId: p.categoryExternalId,
        ingredients: p.ingredients,
        modifierGroups: p.modifierGroups,
        sortOrder: p.sortOrder,
        menuVisible: p.menuVisible,
        translations: p.translations,
      },
      {
        description: null,
        salePriceMinor: null,
        isSaleActive: false,
        amount: null,
        unit: null,
        badgeLabel: null,
        badgeColor: null,
        categoryExternalId: null,
        ingredients: [],
        modifierGroups: [],
        sortOrder: 0,
        menuVisible: true,
        translations: {},
      },
    );
  });

  it('keeps category sortOrder, schedule, cardStyle and isActive that an update omits', async () => {
    const v = await createVenue(t.app);
    const schedule = [{ day: 'friday', isOpen: true, openTime: '18:00', closeTime: '02:00' }];
    await syncOk(v, { categories: [{ externalId: 'c1', name: 'Bar', sortOrder: 4, schedule, cardStyle: 'compact', isActive: false }] });
    const res = await syncOk(v, { categories: [{ externalId: 'c1', name: 'Night bar' }] });
    assert.deepEqual(counts(res.categories), { created: 0, updated: 1, skipped: 0 });
    const [c] = (await draft(v)).categories;
    assert.deepEqual(
      { name: c.name, sortOrder: c.sortOrder, schedule: c.schedule, cardStyle: c.cardStyle, isActive: c.isActive },
      { name: 'Night bar', sortOrder: 4, schedule, cardStyle: 'compact', isActive: false },
    );
    await syncOk(v, { categories: [{ externalId: 'c1', name: 'Night bar', cardStyle: null, schedule: [] }] });
    const [cleared] = (await draft(v)).categories;
    assert.equal(cleared.cardStyle, null);
    assert.deepEqual(cleared.schedule, []);
  });
});

describe('POST /v1/sync: duplicates and empty requests (spec 4.1 rules 6, 7; decisions 11)', () => {
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
    assert.ok(res.warnings.some((w: string) => w.startsWith('Category c1:')), res.warnings.join('; '));
    assert.ok(res.warnings.some((w: string) => w.startsWith('Product p1:')), res.warnings.join('; '));
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

describe('POST /v1/sync: per-item failures (spec 4.1 rule 8, decisions 11)', () => {
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

describe('POST /v1/sync: modifier groups (spec 2.4, 2.5)', () => {
  it('accepts multiple_choice, stores it as add_ingredients and warns', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      ...BASE,
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 100,
          modifierGroups: [{ name: 'Toppings', type: 'multiple_choice', isRequired: true, options: [{ ingredientExternalId: 'i1' }] }],
        },
      ],
    });
    assert.equal(res.products.created, 1);
    assert.equal(res.products.warnings.length, 1);
    assert.match(res.products.warnings[0], /^Product p1: .*multiple_choice/);
    const [g] = (await product(v, 'p1')).modifierGroups;
    assert.equal(g.type, 'add_ingredients');
    assert.equal(g.isRequired, false);
    assert.equal(g.options[0].action, 'add');
  });

  it('defaults isRequired to true for single_choice, honours false there, and forces false for other types', async () => {
    const v = await createVenue(t.app);
    const option = [{ ingredientExternalId: 'i1' }];
    await syncOk(v, {
      ...BASE,
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 100,
          modifierGroups: [
            { name: 'A single default', type: 'single_choice', options: option },
            { name: 'B single optional', type: 'single_choice', isRequired: false, options: option },
            { name: 'C add required', type: 'add_ingredients', isRequired: true, options: option },
            { name: 'D remove required', type: 'remove_ingredients', isRequired: true, options: option },
          ],
        },
      ],
    });
    const groups = (await product(v, 'p1')).modifierGroups;
    assert.deepEqual(
      groups.map((g: any) => [g.name, g.type, g.isRequired]),
      [
        ['A single default', 'single_choice', true],
        ['B single optional', 'single_choice', false],
        ['C add required', 'add_ingredients', false],
        ['D remove required', 'remove_ingredients', false],
      ],
    );
  });

  it('defaults option action to remove in remove_ingredients groups and to add elsewhere, and honours an explicit one', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, {
      ...BASE,
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 100,
          modifierGroups: [
            { name: 'A', type: 'single_choice', options: [{ ingredientExternalId: 'i1' }] },
            { name: 'B', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', action: 'remove' }] },
            { name: 'C', type: 'remove_ingredients', options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', action: 'add' }] },
          ],
        },
      ],
    });
    const groups = (await product(v, 'p1')).modifierGroups;
    assert.deepEqual(
      groups.map((g: any) => g.options.map((o: any) => o.action)),
      [['add'], ['add', 'remove'], ['remove', 'add']],
    );
  });

  it('defaults group and option sortOrder to the position in the array and keeps explicit ones', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, {
      ...BASE,
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 100,
          modifierGroups: [
            { name: 'Zeta', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2' }, { ingredientExternalId: 'i3' }] },
            { name: 'Alpha', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1', sortOrder: 9 }, { ingredientExternalId: 'i2' }] },
            { name: 'Late', type: 'add_ingredients', sortOrder: 10, options: [] },
          ],
        },
      ],
    });
    const groups = (await product(v, 'p1')).modifierGroups;
    // Read order is sortOrder, then name (decisions 3): the defaults keep the sent order.
    assert.deepEqual(groups.map((g: any) => [g.name, g.sortOrder]), [['Zeta', 0], ['Alpha', 1], ['Late', 10]]);
    assert.deepEqual(groups[0].options.map((o: any) => [o.ingredientExternalId, o.sortOrder]), [['i1', 0], ['i2', 1], ['i3', 2]]);
    assert.deepEqual(groups[1].options.map((o: any) => [o.ingredientExternalId, o.sortOrder]), [['i2', 1], ['i1', 9]]);
  });

  it('defaults priceAdjustment to 0 and accepts a negative one', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, {
      ...BASE,
      products: [
        {
          externalId: 'p1',
          name: 'Margherita',
          priceMinor: 1000,
          modifierGroups: [
            { name: 'Size', type: 'single_choice', options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', priceAdjustment: -250 }] },
          ],
        },
      ],
    });
    const [g] = (await product(v, 'p1')).modifierGroups;
    assert.deepEqual(g.options.map((o: any) => o.priceAdjustment), [0, -250]);
  });
});

describe('POST /v1/sync: schema validation (spec 4.1 rule 10, 8.2; decisions 3, 11)', () => {
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
    { name: 'a price above 100000000', body: { products: [good(0), { ...good(1), priceMinor: 100_000_001 }] }, expect: 'products[1].priceMinor must be <= 100000000' },
    { name: 'a sale price above 100000000', body: { products: [{ ...good(0), salePriceMinor: 100_000_001 }] }, expect: 'products[0].salePriceMinor must be <= 100000000' },
    { name: 'a price sent as text', body: { products: [{ ...good(0), priceMinor: '100' }] }, expect: 'products[0].priceMinor must be an integer' },
    { name: 'a missing required field', body: { products: [{ externalId: 'p1', name: 'No price' }, good(1)] }, expect: 'products[0].priceMinor is required' },
    { name: 'an unknown product property', body: { products: [{ ...good(0), colour: 'red' }, good(1)] }, expect: 'products[0].colour is not allowed' },
    { name: 'an unknown top-level property', body: { products: [good(0)], banners: [] }, expect: 'banners is not allowed' },
    { name: 'an unknown category property', body: { categories: [{ ...goodCategory, color: 'x' }] }, expect: 'categories[0].color is not allowed' },
    { name: 'an unknown ingredient property', body: { ingredients: [{ externalId: 'i1', name: 'I', price: 1 }] }, expect: 'ingredients[0].price is not allowed' },
    {
      name: 'an unknown modifier group property',
      body: { products: [{ ...good(0), modifierGroups: [{ name: 'G', type: 'add_ingredients', options: [], max: 2 }] }] },
      expect: 'products[0].modifierGroups[0].max is not allowed',
    },
    {
      name: 'an unknown modifier option property',
      body: { products: [{ ...good(0), modifierGroups: [{ name: 'G', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1', price: 5 }] }] }] },
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
      body: { products: [good(0), { ...good(1), modifierGroups: many(21, (i) => ({ name: `G${i}`, type: 'add_ingredients', options: [] })) }] },
      expect: 'products[1].modifierGroups must have at most 20 items',
    },
    {
      name: 'more than 50 options in a group',
      body: {
        products: [
          { ...good(0), modifierGroups: [{ name: 'G', type: 'add_ingredients', options: many(51, (i) => ({ ingredientExternalId: `i${i}` })) }] },
        ],
      },
      expect: 'products[0].modifierGroups[0].options must have at most 50 items',
    },
    {
      name: 'more than 100 ingredient references on a product',
      body: { products: [{ ...good(0), ingredientExternalIds: many(101, (i) => `i${i}`) }] },
      expect: 'products[0].ingredientExternalIds must have at most 100 items',
    },
    { name: 'a name over 200 characters', body: { products: [{ ...good(0), name: 'n'.repeat(201) }] }, expect: 'products[0].name must be at most 200 characters' },
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
    { name: 'an empty externalId', body: { products: [{ ...good(0), externalId: '' }] }, expect: 'products[0].externalId must not be empty' },
    { name: 'a badgeLabel over 16 characters', body: { products: [{ ...good(0), badgeLabel: 'b'.repeat(17) }] }, expect: 'products[0].badgeLabel must be at most 16 characters' },
    { name: 'a description over 1000 characters', body: { products: [{ ...good(0), description: 'd'.repeat(1001) }] }, expect: 'products[0].description must be at most 1000 characters' },
    { name: 'an unknown unit', body: { products: [{ ...good(0), unit: 'KG' }] }, expect: 'products[0].unit must be one of: PCS, G, ML' },
    { name: 'an amount over 100000', body: { products: [{ ...good(0), amount: 100_001 }] }, expect: 'products[0].amount must be <= 100000' },
    { name: 'an unknown badgeColor', body: { products: [{ ...good(0), badgeColor: 'PINK' }] }, expect: 'products[0].badgeColor must be one of: RED, PURPLE, YELLOW, GREEN, BLUE, GREY, null' },
    { name: 'an unknown cardStyle', body: { categories: [{ ...goodCategory, cardStyle: 'fancy' }] }, expect: 'categories[0].cardStyle must be one of: minimalism, compact, premium, null' },
    {
      name: 'an unknown modifier group type',
      body: { products: [{ ...good(0), modifierGroups: [{ name: 'G', type: 'pick_many', options: [] }] }] },
      expect: 'products[0].modifierGroups[0].type must be one of: single_choice, multiple_choice, add_ingredients, remove_ingredients',
    },
    {
      name: 'an unknown option action',
      body: { products: [{ ...good(0), modifierGroups: [{ name: 'G', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1', action: 'swap' }] }] }] },
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
      body: { categories: [{ ...goodCategory, schedule: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'monday'].map(open) }] },
      expect: 'categories[0].schedule must have at most 7 items',
    },
    {
      name: 'two schedule entries for one day',
      body: { categories: [goodCategory, { externalId: 'c1', name: 'C', schedule: [open('monday'), { day: 'monday', isOpen: false }] }], products: [good(0)] },
      expect: "categories[1].schedule[1].day 'monday' appears more than once",
    },
    {
      name: 'an open day without opening hours',
      body: { categories: [goodCategory, { externalId: 'c1', name: 'C', schedule: [{ day: 'monday', isOpen: true, openTime: '09:00' }] }], products: [good(0)] },
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
      'products[0].unit must be one of: PCS, G, ML',
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

describe('POST /v1/sync: cleaned-up and hidden products (spec 3.2, decisions 4)', () => {
  async function cleanup(v: VenueFixture, ref: string) {
    const res = await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'product', ref }] } });
    assert.equal(res.status, 201);
    assert.equal(res.body.products.hidden, 1);
  }

  it('restores a cleaned-up product synced again as an update, visible again', async () => {
    const v = await createVenue(t.app);
    const item = { externalId: 'p1', name: 'Margherita', priceMinor: 100 };
    await syncOk(v, { products: [item] });
    await cleanup(v, 'p1');
    assert.equal((await product(v, 'p1')).menuVisible, false);

    const res = await syncOk(v, { products: [item] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
    assert.equal((await product(v, 'p1')).menuVisible, true);
    // Restored means ordinary again: the same payload now skips.
    assert.deepEqual(counts((await syncOk(v, { products: [item] })).products), { created: 0, updated: 0, skipped: 1 });
  });

  it('restores a cleaned-up product as hidden when the payload says menuVisible false', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100 }] });
    await cleanup(v, 'p1');
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, menuVisible: false }] });
    assert.equal(res.products.updated, 1);
    assert.equal((await product(v, 'p1')).menuVisible, false);
    // No longer soft-deleted: an omitted menuVisible now keeps it hidden.
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 150 }] });
    assert.equal((await product(v, 'p1')).menuVisible, false);
  });

  it('keeps a product hidden by menuVisible false hidden when a later sync omits menuVisible', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100, menuVisible: false }] });
    const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 100 }] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 1 });
    await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 120 }] });
    assert.equal((await product(v, 'p1')).menuVisible, false);
  });
});

describe('POST /v1/sync: the response (spec 4.1)', () => {
  it('answers 201 with success, only the sections sent, warnings, translations.applied and syncedAt', async () => {
    const v = await createVenue(t.app);
    const before = Date.now();
    const res = await sync(v, { ingredients: [{ externalId: 'i1', name: 'Basil' }], products: [{ externalId: 'p1', name: 'P', priceMinor: 1 }] });
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

describe('POST /v1/sync: request size and the sync window (spec 4.1 rules 10, 11; 8.1)', () => {
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
