import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { menuToSyncInput } from '../../src/modules/menu/menu-export.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { auditEntries, publish } from '../helpers/orders.js';
import { counts, syncCalls } from '../helpers/sync.js';

// Food information: the reference's allergens and dietary labels; allergens on
// ingredients; declared allergens, traces, dietary labels, spice level, calories and nutrition on
// products, through sync (omitted keeps, [] or null clears, unknown codes a per-item error, bad
// values a 400), PATCH, the menu reads (effectiveAllergens, options' allergens), snapshots, the
// guest menu and the pull -> push round trip. Every test makes its own venue.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const { sync, syncOk, product, draft } = syncCalls(() => t.app);

const ALLERGENS = [
  'gluten',
  'crustaceans',
  'eggs',
  'fish',
  'peanuts',
  'soybeans',
  'milk',
  'nuts',
  'celery',
  'mustard',
  'sesame',
  'sulphites',
  'lupin',
  'molluscs',
];
const LABELS = ['vegetarian', 'vegan', 'gluten_free', 'lactose_free', 'halal', 'kosher'];

/** Codes sent out of the reference's order; what they read back as. */
const FOOD = {
  allergens: ['sesame', 'milk'],
  mayContain: ['molluscs', 'nuts', 'peanuts'],
  dietaryLabels: ['vegan', 'vegetarian'],
  spiceLevel: 2,
  calories: 540,
  nutrition: { protein: 12.3, fat: 20, salt: 0.5 },
};
const FOOD_READ = {
  allergens: ['milk', 'sesame'],
  mayContain: ['peanuts', 'nuts', 'molluscs'],
  dietaryLabels: ['vegetarian', 'vegan'],
  spiceLevel: 2,
  calories: 540,
  nutrition: { fat: 20, protein: 12.3, salt: 0.5 },
};
const UNSET = { allergens: [], mayContain: [], dietaryLabels: [], spiceLevel: null, calories: null, nutrition: null };

// 0.3 / 0.1 is 2.9999999999999996 in floating point, so a `multipleOf 0.1` check without a
// precision fails a third of the one-decimal values (0.3, 0.6, 0.7, 1.2, 2.3, ...): none may fail here.
const ODD_DECIMALS = { fat: 0.3, saturatedFat: 0.6, carbohydrate: 0.7, sugars: 1.2, fibre: 2.3, protein: 8.2, salt: 0.7 };

const food = (p: any) => ({
  allergens: p.allergens,
  mayContain: p.mayContain,
  dietaryLabels: p.dietaryLabels,
  spiceLevel: p.spiceLevel,
  calories: p.calories,
  nutrition: p.nutrition,
});

const P1 = { externalId: 'p1', name: 'Pad thai', priceMinor: 1200 };

/** A venue with ingredients that carry allergens and p1 with every food field. */
async function seeded(extra: Record<string, unknown> = {}): Promise<VenueFixture> {
  const v = await createVenue(t.app);
  const res = await syncOk(v, {
    ingredients: [
      { externalId: 'i1', name: 'Noodles', allergens: ['eggs', 'gluten'] },
      { externalId: 'i2', name: 'Peanuts', allergens: ['peanuts'] },
      { externalId: 'i3', name: 'Lime' },
    ],
    products: [{ ...P1, ...FOOD, ...extra }],
  });
  assert.deepEqual([res.ingredients.errors, res.products.errors], [[], []]);
  return v;
}

function patch(v: VenueFixture, ref: string, body: unknown, headers: Record<string, string> = {}) {
  return call(t.app, 'PATCH', `/v1/products/${encodeURIComponent(ref)}`, { key: v.key, body, headers });
}

async function publishedMenu(v: VenueFixture) {
  const res = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function guestMenu(v: VenueFixture) {
  const res = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const byExternalId = (list: any[], id: string) => {
  const found = list.find((x: any) => x.externalId === id);
  assert.ok(found, `${id} is in the list`);
  return found;
};

/** A 400 Validation failed whose errors name `path`. */
function assertValidation(res: { status: number; body: any }, path: string): void {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.message, 'Validation failed', JSON.stringify(res.body));
  const errors: string[] = res.body.errors ?? [];
  assert.ok(
    errors.some((e) => e === path || e.startsWith(`${path} `)),
    `an error names ${path}: ${JSON.stringify(errors)}`,
  );
}

describe('GET /v1/reference: allergens and dietary labels', () => {
  it('lists the 14 allergens of Annex II in its order and the 6 dietary labels, each as { code, name }', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.allergens.map((a: any) => a.code),
      ALLERGENS,
    );
    assert.deepEqual(
      res.body.dietaryLabels.map((l: any) => l.code),
      LABELS,
    );
    for (const entry of [...res.body.allergens, ...res.body.dietaryLabels]) {
      assert.deepEqual(Object.keys(entry).sort(), ['code', 'name']);
      assert.equal(typeof entry.name, 'string');
      assert.ok(entry.name.length > 0, entry.code);
    }
    const names = Object.fromEntries(res.body.allergens.map((a: any) => [a.code, a.name]));
    assert.equal(names.milk, 'Milk');
    assert.match(names.gluten, /gluten/i);
    assert.equal(res.body.dietaryLabels.find((l: any) => l.code === 'gluten_free').name, 'Gluten-free');
  });
});

describe('POST /v1/sync: food information', () => {
  it('stores every food field and reads it back in the reference order, nutrition with the keys sent', async () => {
    const v = await seeded();
    const p = await product(v, 'p1');
    assert.deepEqual(food(p), FOOD_READ);
    assert.deepEqual(Object.keys(p.nutrition).sort(), ['fat', 'protein', 'salt']);
    const menu = await draft(v);
    assert.deepEqual(food(byExternalId(menu.products, 'p1')), FOOD_READ);
    assert.deepEqual(byExternalId(menu.ingredients, 'i1').allergens, ['gluten', 'eggs']);
    assert.deepEqual(byExternalId(menu.ingredients, 'i2').allergens, ['peanuts']);
    assert.deepEqual(byExternalId(menu.ingredients, 'i3').allergens, []);
  });

  it('reads unset fields of a new product as [] and null', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, { products: [P1] });
    const p = await product(v, 'p1');
    assert.deepEqual(food(p), UNSET);
    assert.deepEqual(p.effectiveAllergens, []);
  });

  it('takes every code of the reference, and each nutrient', async () => {
    const v = await createVenue(t.app);
    const nutrition = { salt: 1000, protein: 0, fibre: 0.1, sugars: 999.9, carbohydrate: 55.5, saturatedFat: 1.1, fat: 12.3 };
    await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Everything', allergens: [...ALLERGENS].reverse() }],
      products: [
        {
          ...P1,
          allergens: [...ALLERGENS].reverse(),
          mayContain: ALLERGENS,
          dietaryLabels: [...LABELS].reverse(),
          spiceLevel: 0,
          calories: 0,
          nutrition,
        },
      ],
    });
    const p = await product(v, 'p1');
    assert.deepEqual(p.allergens, ALLERGENS);
    assert.deepEqual(p.mayContain, ALLERGENS);
    assert.deepEqual(p.dietaryLabels, LABELS);
    assert.equal(p.spiceLevel, 0);
    assert.equal(p.calories, 0);
    assert.deepEqual(p.nutrition, nutrition);
    assert.deepEqual(byExternalId((await draft(v)).ingredients, 'i1').allergens, ALLERGENS);

    await syncOk(v, { products: [{ ...P1, spiceLevel: 3, calories: 10_000, nutrition: { fat: 12.3 } }] });
    const q = await product(v, 'p1');
    assert.deepEqual([q.spiceLevel, q.calories, q.nutrition], [3, 10_000, { fat: 12.3 }]);
  });

  it('reads back every one-decimal value the sync takes (0.3, 0.7, ...) on GET /v1/products/:ref, the menu and the guest menu', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, { products: [{ ...P1, nutrition: ODD_DECIMALS }] });
    assert.deepEqual(counts(res.products), { created: 1, updated: 0, skipped: 0 });
    assert.deepEqual(byExternalId((await draft(v)).products, 'p1').nutrition, ODD_DECIMALS);
    await publish(t.app, v);
    assert.deepEqual(byExternalId((await publishedMenu(v)).products, 'p1').nutrition, ODD_DECIMALS);
    assert.deepEqual((await guestMenu(v)).products[0].nutrition, ODD_DECIMALS);
    const read = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual(read.body.nutrition, ODD_DECIMALS);
  });

  it('keeps every food field an update omits (product and ingredient), and skips it when nothing else changed', async () => {
    const v = await seeded();
    const before = await product(v, 'p1');
    const res = await syncOk(v, { ingredients: [{ externalId: 'i1', name: 'Noodles' }], products: [P1] });
    assert.deepEqual(counts(res.ingredients), { created: 0, updated: 0, skipped: 1 });
    assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 1 });
    assert.deepEqual(await product(v, 'p1'), before);
    assert.deepEqual(byExternalId((await draft(v)).ingredients, 'i1').allergens, ['gluten', 'eggs']);

    // Another field changed: the food information is still kept.
    const renamed = await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Rice noodles' }],
      products: [{ ...P1, name: 'Pad see ew' }],
    });
    assert.deepEqual(counts(renamed.ingredients), { created: 0, updated: 1, skipped: 0 });
    assert.deepEqual(counts(renamed.products), { created: 0, updated: 1, skipped: 0 });
    assert.deepEqual(food(await product(v, 'p1')), FOOD_READ);
    assert.deepEqual(byExternalId((await draft(v)).ingredients, 'i1').allergens, ['gluten', 'eggs']);
  });

  it('clears the lists with [] and spiceLevel, calories and nutrition with null', async () => {
    const v = await seeded();
    const res = await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Noodles', allergens: [] }],
      products: [{ ...P1, allergens: [], mayContain: [], dietaryLabels: [], spiceLevel: null, calories: null, nutrition: null }],
    });
    assert.deepEqual(counts(res.ingredients), { created: 0, updated: 1, skipped: 0 });
    assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
    assert.deepEqual(food(await product(v, 'p1')), UNSET);
    assert.deepEqual(byExternalId((await draft(v)).ingredients, 'i1').allergens, []);
  });

  it('clears each field on its own, keeping the others', async () => {
    const clears: [string, unknown][] = [
      ['allergens', []],
      ['mayContain', []],
      ['dietaryLabels', []],
      ['spiceLevel', null],
      ['calories', null],
      ['nutrition', null],
    ];
    const v = await seeded();
    for (const [field, value] of clears) {
      await syncOk(v, { products: [{ ...P1, ...FOOD, [field]: value }] });
      assert.deepEqual(food(await product(v, 'p1')), { ...FOOD_READ, [field]: value }, field);
    }
  });

  it('replaces nutrition as a whole: the keys read back are those of the last sync', async () => {
    const v = await seeded();
    await syncOk(v, { products: [{ ...P1, nutrition: { sugars: 4.5 } }] });
    const p = await product(v, 'p1');
    assert.deepEqual(p.nutrition, { sugars: 4.5 });
    assert.deepEqual(Object.keys(p.nutrition), ['sugars']);
    await syncOk(v, { products: [{ ...P1, nutrition: {} }] });
    assert.deepEqual((await product(v, 'p1')).nutrition, {});
  });

  it('refuses null on a list with 400 and writes nothing', async () => {
    const v = await createVenue(t.app);
    const cases: [unknown, string][] = [
      [{ products: [{ ...P1, allergens: null }] }, 'products[0].allergens'],
      [{ products: [{ ...P1, mayContain: null }] }, 'products[0].mayContain'],
      [{ products: [{ ...P1, dietaryLabels: null }] }, 'products[0].dietaryLabels'],
      [{ ingredients: [{ externalId: 'i1', name: 'Noodles', allergens: null }], products: [P1] }, 'ingredients[0].allergens'],
    ];
    for (const [body, path] of cases) assertValidation(await sync(v, body), path);
    const menu = await draft(v);
    assert.deepEqual([menu.products.length, menu.ingredients.length], [0, 0]);
  });

  it('refuses a duplicate code with 400 Validation failed naming the field, and writes nothing', async () => {
    const v = await createVenue(t.app);
    const good = { externalId: 'ok', name: 'Good', priceMinor: 100, allergens: ['milk'] };
    const cases: [unknown, string][] = [
      [{ products: [good, { ...P1, allergens: ['milk', 'gluten', 'milk'] }] }, 'products[1].allergens'],
      [{ products: [{ ...P1, mayContain: ['nuts', 'nuts'] }, good] }, 'products[0].mayContain'],
      [{ products: [{ ...P1, dietaryLabels: ['vegan', 'vegan'] }] }, 'products[0].dietaryLabels'],
      [
        {
          ingredients: [
            { externalId: 'i0', name: 'Fine' },
            { externalId: 'i1', name: 'Noodles', allergens: ['eggs', 'eggs'] },
          ],
        },
        'ingredients[1].allergens',
      ],
      // An unknown code twice is a duplicate too: the whole request is refused.
      [{ products: [{ ...P1, allergens: ['glutten', 'glutten'] }, good] }, 'products[0].allergens'],
    ];
    for (const [body, path] of cases) {
      assertValidation(await sync(v, body), path);
      assertValidation(await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body }), path);
    }
    const menu = await draft(v);
    assert.deepEqual([menu.products.length, menu.ingredients.length], [0, 0]);
  });

  it("reports an unknown code as the item's own error: that item is not saved, the others are", async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      ingredients: [
        { externalId: 'i1', name: 'Noodles', allergens: ['eggs', 'wheat'] },
        { externalId: 'i2', name: 'Peanuts', allergens: ['peanuts'] },
      ],
      products: [
        { ...P1, allergens: ['glutten'] },
        { externalId: 'p2', name: 'Satay', priceMinor: 900, allergens: ['peanuts'], ingredientExternalIds: ['i2'] },
        { externalId: 'p3', name: 'Salad', priceMinor: 700, dietaryLabels: ['vegan', 'keto'] },
        { externalId: 'p4', name: 'Soup', priceMinor: 600, mayContain: ['shellfish'] },
      ],
    });
    assert.deepEqual(res.ingredients.errors, ['Ingredient i1: unknown allergen "wheat"']);
    assert.deepEqual(counts(res.ingredients), { created: 1, updated: 0, skipped: 0 });
    assert.equal(res.products.errors.length, 3, JSON.stringify(res.products.errors));
    assert.equal(res.products.errors[0], 'Product p1: unknown allergen "glutten"');
    assert.equal(res.products.errors[1], 'Product p3: unknown dietary label "keto"');
    assert.ok(res.products.errors[2].startsWith('Product p4: unknown allergen "shellfish"'), res.products.errors[2]);
    assert.deepEqual(counts(res.products), { created: 1, updated: 0, skipped: 0 });

    const menu = await draft(v);
    assert.deepEqual(
      menu.ingredients.map((i: any) => i.externalId),
      ['i2'],
    );
    assert.deepEqual(
      menu.products.map((p: any) => p.externalId),
      ['p2'],
    );
    const p2 = byExternalId(menu.products, 'p2');
    assert.deepEqual([p2.allergens, p2.effectiveAllergens], [['peanuts'], ['peanuts']]);
    for (const ref of ['p1', 'p3', 'p4']) {
      assert.equal((await call(t.app, 'GET', `/v1/products/${ref}`, { key: v.key })).status, 404, ref);
    }
  });

  it('leaves a stored item as it was when its update sends an unknown code', async () => {
    const v = await seeded();
    const before = await product(v, 'p1');
    const beforeMenu = await draft(v);
    const res = await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Rice noodles', allergens: ['gluten', 'soy'] }],
      products: [{ ...P1, name: 'Renamed', allergens: ['milk'], dietaryLabels: ['paleo'] }],
    });
    assert.deepEqual(res.ingredients.errors, ['Ingredient i1: unknown allergen "soy"']);
    assert.deepEqual(res.products.errors, ['Product p1: unknown dietary label "paleo"']);
    assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 0 });
    assert.deepEqual(await product(v, 'p1'), before);
    assert.deepEqual(byExternalId((await draft(v)).ingredients, 'i1'), byExternalId(beforeMenu.ingredients, 'i1'));
  });

  it('refuses bad values with 400 for the whole request and writes nothing', async () => {
    const v = await createVenue(t.app);
    const good = { externalId: 'ok', name: 'Good', priceMinor: 100, calories: 10 };
    const bad = (field: string, value: unknown) => ({
      ingredients: [{ externalId: 'i1', name: 'Fine', allergens: ['milk'] }],
      products: [good, { ...P1, [field]: value }],
    });
    const cases: [string, unknown, string][] = [
      ['spiceLevel 4', bad('spiceLevel', 4), 'products[1].spiceLevel'],
      ['spiceLevel -1', bad('spiceLevel', -1), 'products[1].spiceLevel'],
      ['spiceLevel 1.5', bad('spiceLevel', 1.5), 'products[1].spiceLevel'],
      ['calories -1', bad('calories', -1), 'products[1].calories'],
      ['calories 10001', bad('calories', 10_001), 'products[1].calories'],
      ['calories 1.5', bad('calories', 1.5), 'products[1].calories'],
      ['calories as text', bad('calories', '500'), 'products[1].calories'],
      ['nutrition.fat 1000.5', bad('nutrition', { fat: 1000.5 }), 'products[1].nutrition.fat'],
      ['nutrition.fat 1000.1', bad('nutrition', { fat: 1000.1 }), 'products[1].nutrition.fat'],
      ['nutrition.fat -0.1', bad('nutrition', { fat: -0.1 }), 'products[1].nutrition.fat'],
      ['nutrition.fat 12.34 (two decimals)', bad('nutrition', { fat: 12.34 }), 'products[1].nutrition.fat'],
      ['nutrition.salt 0.05', bad('nutrition', { salt: 0.05 }), 'products[1].nutrition.salt'],
      ['nutrition.protein as text', bad('nutrition', { protein: '12' }), 'products[1].nutrition.protein'],
      ['an unknown nutrition key', bad('nutrition', { fat: 1, kcal: 200 }), 'products[1].nutrition.kcal'],
      ['nutrition as a list', bad('nutrition', [1, 2]), 'products[1].nutrition'],
      ['a code that is not text', bad('allergens', [7]), 'products[1].allergens[0]'],
      ['an empty code', bad('mayContain', ['']), 'products[1].mayContain[0]'],
    ];
    for (const [name, body, path] of cases) {
      const res = await sync(v, body);
      assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
      assertValidation(res, path);
    }
    const menu = await draft(v);
    assert.deepEqual([menu.products.length, menu.ingredients.length], [0, 0]);
  });

  it('skips a re-sync of the same items, also with codes and nutrition keys in another order', async () => {
    const body = {
      ingredients: [{ externalId: 'i1', name: 'Noodles', allergens: ['eggs', 'gluten'] }],
      products: [{ ...P1, ...FOOD, ingredientExternalIds: ['i1'] }],
    };
    const v = await createVenue(t.app);
    await syncOk(v, body);
    const again = await syncOk(v, body);
    assert.deepEqual(counts(again.ingredients), { created: 0, updated: 0, skipped: 1 });
    assert.deepEqual(counts(again.products), { created: 0, updated: 0, skipped: 1 });

    const reordered = {
      ingredients: [{ externalId: 'i1', name: 'Noodles', allergens: ['gluten', 'eggs'] }],
      products: [{ ...P1, ...FOOD_READ, ingredientExternalIds: ['i1'], nutrition: { salt: 0.5, protein: 12.3, fat: 20 } }],
    };
    const res = await syncOk(v, reordered);
    assert.deepEqual(counts(res.ingredients), { created: 0, updated: 0, skipped: 1 });
    assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 1 });
    const dry = await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body: reordered });
    assert.equal(dry.status, 201);
    assert.deepEqual(counts(dry.body.products), { created: 0, updated: 0, skipped: 1 });
  });

  it('counts a change in any food field as updated, and a dry run reports the same counts without writing', async () => {
    const changes: Record<string, unknown>[] = [
      { allergens: ['milk'] },
      { allergens: ['milk', 'sesame', 'fish'] },
      { mayContain: ['nuts'] },
      { dietaryLabels: ['vegetarian'] },
      { dietaryLabels: ['vegetarian', 'vegan', 'halal'] },
      { spiceLevel: 3 },
      { spiceLevel: 0 },
      { calories: 541 },
      { nutrition: { fat: 20, protein: 12.4, salt: 0.5 } },
      { nutrition: { fat: 20, protein: 12.3 } },
      { nutrition: { fat: 20, protein: 12.3, salt: 0.5, sugars: 0 } },
    ];
    for (const change of changes) {
      const v = await seeded();
      const body = { products: [{ ...P1, ...FOOD, ...change }] };
      const before = await draft(v);
      const dry = await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body });
      assert.equal(dry.status, 201);
      assert.equal(dry.body.dryRun, true);
      assert.deepEqual(counts(dry.body.products), { created: 0, updated: 1, skipped: 0 }, JSON.stringify(change));
      assert.deepEqual((await draft(v)).products, before.products, `dry run wrote nothing: ${JSON.stringify(change)}`);
      const res = await syncOk(v, body);
      assert.deepEqual(counts(res.products), counts(dry.body.products), JSON.stringify(change));
      const [field] = Object.keys(change);
      const read = (await product(v, 'p1'))[field];
      if (field === 'nutrition') assert.deepEqual(read, change.nutrition);
      else
        assert.deepEqual(
          read,
          Array.isArray(change[field])
            ? (field === 'dietaryLabels' ? LABELS : ALLERGENS).filter((c) => (change[field] as string[]).includes(c))
            : change[field],
        );
    }
  });

  it('counts an ingredient whose allergens change as updated, in a dry run too', async () => {
    const v = await seeded();
    for (const allergens of [['gluten'], ['gluten', 'eggs', 'milk'], []]) {
      const body = { ingredients: [{ externalId: 'i1', name: 'Noodles', allergens }] };
      const dry = await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body });
      assert.deepEqual(counts(dry.body.ingredients), { created: 0, updated: 1, skipped: 0 }, JSON.stringify(allergens));
      const res = await syncOk(v, body);
      assert.deepEqual(counts(res.ingredients), { created: 0, updated: 1, skipped: 0 }, JSON.stringify(allergens));
      assert.deepEqual(
        byExternalId((await draft(v)).ingredients, 'i1').allergens,
        ALLERGENS.filter((c) => allergens.includes(c)),
      );
    }
  });

  it('reports the same per-item errors and counts in a dry run', async () => {
    const v = await seeded();
    const body = {
      ingredients: [
        { externalId: 'i1', name: 'Noodles', allergens: ['wheat'] },
        { externalId: 'i4', name: 'Egg', allergens: ['eggs'] },
      ],
      products: [
        { ...P1, allergens: ['glutten'] },
        { externalId: 'p2', name: 'Satay', priceMinor: 900, spiceLevel: 1 },
        { ...P1, externalId: 'p3', ...FOOD },
      ],
    };
    const dry = await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body });
    assert.equal(dry.status, 201);
    const res = await syncOk(v, body);
    for (const section of ['ingredients', 'products'] as const) {
      assert.deepEqual(counts(dry.body[section]), counts(res[section]), section);
      assert.deepEqual(dry.body[section].errors, res[section].errors, section);
    }
    assert.deepEqual(counts(res.products), { created: 2, updated: 0, skipped: 0 });
    assert.deepEqual(counts(res.ingredients), { created: 1, updated: 0, skipped: 0 });
  });
});

describe("menu reads: effectiveAllergens and options' allergens", () => {
  /**
   * p1: declared milk and sesame (milk also through i4), composition i1 (gluten, eggs), i3 (none)
   * and i4 (milk); options on i2 (peanuts) and i3. p2: nothing declared, composition i2.
   */
  async function composed(): Promise<VenueFixture> {
    const v = await createVenue(t.app);
    await syncOk(v, {
      ingredients: [
        { externalId: 'i1', name: 'Noodles', allergens: ['gluten', 'eggs'] },
        { externalId: 'i2', name: 'Peanuts', allergens: ['peanuts'] },
        { externalId: 'i3', name: 'Lime' },
        { externalId: 'i4', name: 'Butter', allergens: ['milk'] },
      ],
      products: [
        {
          ...P1,
          allergens: ['sesame', 'milk'],
          ingredientExternalIds: ['i1', 'i3', 'i4'],
          modifierGroups: [
            {
              name: 'Extras',
              type: 'add_ingredients',
              options: [{ ingredientExternalId: 'i2', priceAdjustment: 100 }, { ingredientExternalId: 'i3' }],
            },
          ],
        },
        { externalId: 'p2', name: 'Satay', priceMinor: 900, ingredientExternalIds: ['i2'] },
      ],
    });
    return v;
  }

  const EFFECTIVE = ['gluten', 'eggs', 'milk', 'sesame'];

  function assertComposed(p1: any, p2: any) {
    // Declared allergens are stored as sent (in reference order), even those the composition has.
    assert.deepEqual(p1.allergens, ['milk', 'sesame']);
    // The options are not the composition: peanuts of option i2 are the option's, not the product's.
    assert.deepEqual(p1.effectiveAllergens, EFFECTIVE);
    assert.deepEqual(
      p1.modifierGroups[0].options.map((o: any) => [o.ingredientExternalId, o.allergens]),
      [
        ['i2', ['peanuts']],
        ['i3', []],
      ],
    );
    assert.deepEqual([p2.allergens, p2.effectiveAllergens], [[], ['peanuts']]);
  }

  it('adds effectiveAllergens (declared joined with the composition, in reference order) on GET /v1/menu and GET /v1/products/:ref', async () => {
    const v = await composed();
    const menu = await draft(v);
    assertComposed(byExternalId(menu.products, 'p1'), byExternalId(menu.products, 'p2'));
    assertComposed(await product(v, 'p1'), await product(v, 'p2'));
    const byId = await product(v, byExternalId(menu.products, 'p1').id);
    assert.deepEqual(byId.effectiveAllergens, EFFECTIVE);
  });

  it('shows the same on the published menu', async () => {
    const v = await composed();
    await publish(t.app, v);
    const menu = await publishedMenu(v);
    assertComposed(byExternalId(menu.products, 'p1'), byExternalId(menu.products, 'p2'));
    assert.deepEqual(byExternalId(menu.ingredients, 'i1').allergens, ['gluten', 'eggs']);
  });

  it("moves a draft product's effectiveAllergens and its options' allergens when an ingredient's allergens change", async () => {
    const v = await composed();
    const etagBefore = String((await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).headers.etag);
    await syncOk(v, {
      ingredients: [
        { externalId: 'i1', name: 'Noodles', allergens: ['gluten', 'soybeans'] },
        { externalId: 'i3', name: 'Lime', allergens: ['celery'] },
      ],
    });
    const expected = ['gluten', 'soybeans', 'milk', 'celery', 'sesame'];
    const p1 = await product(v, 'p1');
    assert.deepEqual(p1.effectiveAllergens, expected);
    // The product's ETag moves with it (its read shape changed).
    const read = await call(t.app, 'GET', '/v1/products/p1', { key: v.key, headers: { 'if-none-match': etagBefore } });
    assert.equal(read.status, 200);
    assert.notEqual(read.headers.etag, etagBefore);
    assert.deepEqual(p1.allergens, ['milk', 'sesame']);
    assert.deepEqual(
      p1.modifierGroups[0].options.map((o: any) => o.allergens),
      [['peanuts'], ['celery']],
    );
    assert.deepEqual(byExternalId((await draft(v)).products, 'p1').effectiveAllergens, expected);

    // Cleared on the ingredient: gone from the product, unless declared.
    await syncOk(v, {
      ingredients: [
        { externalId: 'i4', name: 'Butter', allergens: [] },
        { externalId: 'i2', name: 'Peanuts', allergens: [] },
      ],
    });
    assert.deepEqual((await product(v, 'p1')).effectiveAllergens, ['gluten', 'soybeans', 'milk', 'celery', 'sesame']);
    assert.deepEqual((await product(v, 'p2')).effectiveAllergens, []);
  });

  it('moves effectiveAllergens with the composition and the declared allergens', async () => {
    const v = await composed();
    await syncOk(v, { products: [{ ...P1, ingredientExternalIds: ['i2'], allergens: [] }] });
    assert.deepEqual((await product(v, 'p1')).effectiveAllergens, ['peanuts']);
    await syncOk(v, { products: [{ ...P1, ingredientExternalIds: [], allergens: ['lupin'] }] });
    assert.deepEqual((await product(v, 'p1')).effectiveAllergens, ['lupin']);
  });
});

describe('PATCH /v1/products/:ref: food information', () => {
  async function auditFields(v: VenueFixture): Promise<string[][]> {
    const entries = await auditEntries(t.app, v.key, 'product.update');
    return entries.map((e: any) => [...e.changes.fields].sort());
  }

  it('sets each food field, codes in reference order, and answers with the product', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Noodles', allergens: ['eggs'] }],
      products: [{ ...P1, ingredientExternalIds: ['i1'] }],
    });
    const res = await patch(v, 'p1', FOOD);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(food(res.body), FOOD_READ);
    assert.deepEqual(res.body.effectiveAllergens, ['eggs', 'milk', 'sesame']);
    const p = await product(v, 'p1');
    assert.deepEqual(food(p), FOOD_READ);
    assert.deepEqual(Object.keys(p.nutrition).sort(), ['fat', 'protein', 'salt']);
    assert.equal(res.headers.etag, (await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).headers.etag);
    assert.deepEqual(await auditFields(v), [['allergens', 'calories', 'dietaryLabels', 'mayContain', 'nutrition', 'spiceLevel']]);
  });

  it('sets one field at a time, keeping the others', async () => {
    const v = await seeded();
    const steps: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ allergens: ['fish', 'crustaceans'] }, { allergens: ['crustaceans', 'fish'] }],
      [{ mayContain: ['lupin'] }, { mayContain: ['lupin'] }],
      [{ dietaryLabels: ['kosher', 'halal'] }, { dietaryLabels: ['halal', 'kosher'] }],
      [{ spiceLevel: 0 }, { spiceLevel: 0 }],
      [{ calories: 10_000 }, { calories: 10_000 }],
      [{ nutrition: { carbohydrate: 55.5, fibre: 3 } }, { nutrition: { carbohydrate: 55.5, fibre: 3 } }],
    ];
    let expected: Record<string, unknown> = { ...FOOD_READ };
    for (const [body, read] of steps) {
      const res = await patch(v, 'p1', body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      expected = { ...expected, ...read };
      assert.deepEqual(food(await product(v, 'p1')), expected, JSON.stringify(body));
    }
    const fields = await auditFields(v);
    assert.deepEqual(fields, [['nutrition'], ['calories'], ['spiceLevel'], ['dietaryLabels'], ['mayContain'], ['allergens']]);
  });

  it('clears the lists with [] and spiceLevel, calories and nutrition with null', async () => {
    const v = await seeded();
    const res = await patch(v, 'p1', {
      allergens: [],
      mayContain: [],
      dietaryLabels: [],
      spiceLevel: null,
      calories: null,
      nutrition: null,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(food(res.body), UNSET);
    assert.deepEqual(food(await product(v, 'p1')), UNSET);
  });

  it('answers an unknown code with 400 and changes nothing', async () => {
    const v = await seeded();
    const before = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    const bodies = [
      { allergens: ['glutten'] },
      { mayContain: ['milk', 'shellfish'] },
      { dietaryLabels: ['keto'] },
      { name: 'Renamed', spiceLevel: 1, allergens: ['milk', 'wheat'] },
    ];
    for (const body of bodies) {
      const res = await patch(v, 'p1', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.message, 'Validation failed');
      assert.ok(
        res.body.errors.some((e: string) => /unknown (allergen|dietary label) "/.test(e)),
        JSON.stringify(res.body),
      );
    }
    const after = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    assert.deepEqual(after.body, before.body);
    assert.equal(after.headers.etag, before.headers.etag);
    assert.deepEqual(await auditFields(v), []);
  });

  it('refuses null on a list, a duplicate code and bad values with 400, changing nothing', async () => {
    const v = await seeded();
    const before = await product(v, 'p1');
    const cases: [unknown, string][] = [
      [{ allergens: null }, 'allergens'],
      [{ mayContain: null }, 'mayContain'],
      [{ dietaryLabels: null }, 'dietaryLabels'],
      [{ allergens: ['milk', 'milk'] }, 'allergens'],
      [{ dietaryLabels: ['vegan', 'vegan'] }, 'dietaryLabels'],
      [{ spiceLevel: 4 }, 'spiceLevel'],
      [{ calories: -1 }, 'calories'],
      [{ calories: 10_001 }, 'calories'],
      [{ nutrition: { fat: 1000.5 } }, 'nutrition.fat'],
      [{ nutrition: { fat: 12.34 } }, 'nutrition.fat'],
      [{ nutrition: { energy: 1 } }, 'nutrition.energy'],
    ];
    for (const [body, path] of cases) assertValidation(await patch(v, 'p1', body), path);
    assert.deepEqual(await product(v, 'p1'), before);
    assert.deepEqual(await auditFields(v), []);
  });

  it('audits product.update with only the food fields that changed', async () => {
    const v = await seeded();
    const res = await patch(v, 'p1', {
      allergens: ['sesame', 'milk'], // the same codes in another order
      mayContain: ['nuts'],
      dietaryLabels: ['vegetarian', 'vegan'],
      spiceLevel: 3,
      calories: 540,
      nutrition: { salt: 0.5, fat: 20, protein: 12.3 }, // the same values, keys in another order
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(await auditFields(v), [['mayContain', 'spiceLevel']]);
    const entries = await auditEntries(t.app, v.key, 'product.update');
    assert.equal(entries[0].entityRef, 'p1');
    assert.ok(!JSON.stringify(entries[0]).includes('nuts'), 'field values are never stored');
  });

  it('writes no audit and changes nothing on a PATCH that sets the stored values', async () => {
    const v = await seeded();
    const before = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    const res = await patch(v, 'p1', { ...FOOD, nutrition: { salt: 0.5, protein: 12.3, fat: 20 } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.etag, before.headers.etag);
    const after = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    assert.deepEqual(after.body, before.body);
    assert.deepEqual(await auditFields(v), []);

    // Clearing what is unset is a no-op too.
    const w = await createVenue(t.app);
    await syncOk(w, { products: [P1] });
    const cleared = await patch(w, 'p1', {
      allergens: [],
      mayContain: [],
      dietaryLabels: [],
      spiceLevel: null,
      calories: null,
      nutrition: null,
    });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.deepEqual(await auditFields(w), []);
  });

  it('answers a PATCH of any one-decimal nutrition value (0.3, 0.7, ...) with 200 and the product', async () => {
    const v = await seeded();
    const res = await patch(v, 'p1', { nutrition: ODD_DECIMALS });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.nutrition, ODD_DECIMALS);
    assert.deepEqual((await product(v, 'p1')).nutrition, ODD_DECIMALS);
  });

  it('makes a later sync of the same item update it back (the PATCH changed the row)', async () => {
    const v = await seeded();
    assert.equal((await patch(v, 'p1', { spiceLevel: 0 })).status, 200);
    const res = await syncOk(v, { products: [{ ...P1, ...FOOD }] });
    assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
    assert.equal((await product(v, 'p1')).spiceLevel, 2);
  });
});

describe('snapshots and the guest menu: food information', () => {
  async function published(): Promise<VenueFixture> {
    const v = await createVenue(t.app);
    await syncOk(v, {
      categories: [{ externalId: 'c1', name: 'Mains' }],
      ingredients: [
        { externalId: 'i1', name: 'Noodles', allergens: ['gluten', 'eggs'] },
        { externalId: 'i2', name: 'Peanuts', allergens: ['peanuts'] },
        { externalId: 'i3', name: 'Lime' },
      ],
      products: [
        {
          ...P1,
          ...FOOD,
          categoryExternalId: 'c1',
          ingredientExternalIds: ['i1'],
          modifierGroups: [
            {
              name: 'Extras',
              type: 'add_ingredients',
              options: [{ ingredientExternalId: 'i2', priceAdjustment: 100 }, { ingredientExternalId: 'i3' }],
            },
          ],
        },
        { externalId: 'p2', name: 'Plain rice', priceMinor: 300, categoryExternalId: 'c1' },
      ],
    });
    await publish(t.app, v);
    return v;
  }

  const GUEST_P1 = {
    effectiveAllergens: ['gluten', 'eggs', 'milk', 'sesame'],
    mayContain: FOOD_READ.mayContain,
    dietaryLabels: FOOD_READ.dietaryLabels,
    spiceLevel: 2,
    calories: 540,
    nutrition: FOOD_READ.nutrition,
  };
  const guestFood = (p: any) => ({
    effectiveAllergens: p.effectiveAllergens,
    mayContain: p.mayContain,
    dietaryLabels: p.dietaryLabels,
    spiceLevel: p.spiceLevel,
    calories: p.calories,
    nutrition: p.nutrition,
  });
  const byName = (body: any, name: string) => {
    const found = body.products.find((p: any) => p.name === name);
    assert.ok(found, name);
    return found;
  };

  it('gives guest products effectiveAllergens, mayContain, dietaryLabels, spiceLevel, calories and nutrition, and options their allergens', async () => {
    const v = await published();
    const menu = await guestMenu(v);
    const p1 = byName(menu, 'Pad thai');
    assert.deepEqual(guestFood(p1), GUEST_P1);
    assert.deepEqual(
      p1.modifierGroups[0].options.map((o: any) => [o.name, o.allergens]),
      [
        ['Peanuts', ['peanuts']],
        ['Lime', []],
      ],
    );
  });

  it('shows unset lists as [] and unset values as null on the guest menu', async () => {
    const v = await published();
    const p2 = byName(await guestMenu(v), 'Plain rice');
    assert.deepEqual(guestFood(p2), {
      effectiveAllergens: [],
      mayContain: [],
      dietaryLabels: [],
      spiceLevel: null,
      calories: null,
      nutrition: null,
    });
  });

  it('keeps what was published: changes to the draft leave the published read and the guest menu as they were', async () => {
    const v = await published();
    const publishedBefore = await publishedMenu(v);
    const guestBefore = await guestMenu(v);

    await syncOk(v, {
      ingredients: [
        { externalId: 'i1', name: 'Noodles', allergens: ['soybeans'] },
        { externalId: 'i2', name: 'Peanuts', allergens: ['peanuts', 'nuts'] },
      ],
      products: [
        { ...P1, allergens: ['fish'], mayContain: [], dietaryLabels: ['halal'], spiceLevel: null, calories: 100, nutrition: { salt: 2 } },
      ],
    });
    assert.equal((await patch(v, 'p2', { allergens: ['celery'], spiceLevel: 1 })).status, 200);

    const publishedAfter = await publishedMenu(v);
    assert.deepEqual(publishedAfter.products, publishedBefore.products);
    assert.deepEqual(publishedAfter.ingredients, publishedBefore.ingredients);
    assert.deepEqual(food(byExternalId(publishedAfter.products, 'p1')), FOOD_READ);
    assert.deepEqual(byExternalId(publishedAfter.products, 'p1').effectiveAllergens, GUEST_P1.effectiveAllergens);

    const guestAfter = await guestMenu(v);
    assert.deepEqual(guestAfter.products, guestBefore.products);
    assert.deepEqual(guestFood(byName(guestAfter, 'Pad thai')), GUEST_P1);

    // The draft has the new information; publishing again shows it.
    const d1 = byExternalId((await draft(v)).products, 'p1');
    assert.deepEqual(d1.effectiveAllergens, ['fish', 'soybeans']);
    await publish(t.app, v);
    const guestNew = await guestMenu(v);
    const p1 = byName(guestNew, 'Pad thai');
    assert.deepEqual(guestFood(p1), {
      effectiveAllergens: ['fish', 'soybeans'],
      mayContain: [],
      dietaryLabels: ['halal'],
      spiceLevel: null,
      calories: 100,
      nutrition: { salt: 2 },
    });
    assert.deepEqual(p1.modifierGroups[0].options[0].allergens, ['peanuts', 'nuts']);
    const p2 = byName(guestNew, 'Plain rice');
    assert.deepEqual([p2.effectiveAllergens, p2.spiceLevel], [['celery'], 1]);
  });
});

describe('a snapshot published before food information existed', () => {
  it('reads its lists as [] and its values as null on the published menu and the guest menu', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Noodles', allergens: ['gluten'] }],
      products: [
        {
          ...P1,
          ...FOOD,
          ingredientExternalIds: ['i1'],
          modifierGroups: [{ name: 'Extra', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1' }] }],
        },
      ],
    });
    const publicationId = await publish(t.app, v);
    // The stored document as an older release wrote it: no food information anywhere.
    const db = t.database.db;
    const { rows } = await db.query<{ document: string }>(
      'select document::text as document from menu_publications where venue_id = $1 and id = $2',
      [v.id, publicationId],
    );
    const doc = JSON.parse(rows[0].document);
    for (const i of doc.ingredients) delete i.allergens;
    for (const p of doc.products) {
      for (const key of ['allergens', 'effectiveAllergens', 'mayContain', 'dietaryLabels', 'spiceLevel', 'calories', 'nutrition'])
        delete p[key];
      for (const g of p.modifierGroups) for (const o of g.options) delete o.allergens;
    }
    await db.query('update menu_publications set document = $3::json where venue_id = $1 and id = $2', [
      v.id,
      publicationId,
      JSON.stringify(doc),
    ]);

    const menu = await publishedMenu(v);
    const p1 = byExternalId(menu.products, 'p1');
    assert.deepEqual({ ...food(p1), effectiveAllergens: p1.effectiveAllergens }, { ...UNSET, effectiveAllergens: [] });
    assert.deepEqual(p1.modifierGroups[0].options[0].allergens, []);
    assert.deepEqual(byExternalId(menu.ingredients, 'i1').allergens, []);
    const guest = (await guestMenu(v)).products[0];
    assert.deepEqual(
      [
        guest.effectiveAllergens,
        guest.mayContain,
        guest.dietaryLabels,
        guest.spiceLevel,
        guest.calories,
        guest.nutrition,
        guest.modifierGroups[0].options[0].allergens,
      ],
      [[], [], [], null, null, null, []],
    );
  });
});

describe('carta pull -> push round trip: food information', () => {
  async function richMenu(): Promise<VenueFixture> {
    const v = await createVenue(t.app);
    await syncOk(v, {
      categories: [{ externalId: 'c1', name: 'Mains' }],
      ingredients: [
        { externalId: 'i1', name: 'Noodles', allergens: ['gluten', 'eggs'] },
        { externalId: 'i2', name: 'Peanuts', allergens: ['peanuts'] },
        { externalId: 'i3', name: 'Lime' },
      ],
      products: [
        {
          ...P1,
          ...FOOD,
          categoryExternalId: 'c1',
          ingredientExternalIds: ['i1', 'i2'],
          modifierGroups: [{ name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'i3', priceAdjustment: 50 }] }],
        },
        { externalId: 'p2', name: 'Plain rice', priceMinor: 300, categoryExternalId: 'c1', ingredientExternalIds: ['i2'] },
        { externalId: 'p3', name: 'Tea', priceMinor: 200, dietaryLabels: ['vegan'], nutrition: { sugars: 0 }, spiceLevel: 0, calories: 0 },
      ],
    });
    return v;
  }

  it('exports the declared food fields (not effectiveAllergens) of products and the allergens of ingredients', async () => {
    const v = await richMenu();
    const { body } = menuToSyncInput(await draft(v));
    const p1 = byExternalId(body.products!, 'p1');
    assert.deepEqual(food(p1), FOOD_READ);
    const p2 = byExternalId(body.products!, 'p2');
    // Peanuts come from the composition: the export declares none.
    assert.deepEqual(food(p2), UNSET);
    const p3 = byExternalId(body.products!, 'p3');
    assert.deepEqual(food(p3), {
      allergens: [],
      mayContain: [],
      dietaryLabels: ['vegan'],
      spiceLevel: 0,
      calories: 0,
      nutrition: { sugars: 0 },
    });
    const ingredients = body.ingredients!.map((i) => [i.externalId, i.allergens]).sort(([a], [b]) => String(a).localeCompare(String(b)));
    assert.deepEqual(ingredients, [
      ['i1', ['gluten', 'eggs']],
      ['i2', ['peanuts']],
      ['i3', []],
    ]);
    assert.ok(!JSON.stringify(body).includes('effectiveAllergens'));
  });

  it('syncs the export back skipping every item, the food information unchanged', async () => {
    const v = await richMenu();
    const before = await draft(v);
    const { body } = menuToSyncInput(before);
    const dry = await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body });
    assert.equal(dry.status, 201, JSON.stringify(dry.body));
    const res = await syncOk(v, JSON.parse(JSON.stringify(body)));
    for (const [section, n] of [
      ['categories', 1],
      ['ingredients', 3],
      ['products', 3],
    ] as const) {
      assert.deepEqual(counts(res[section]), { created: 0, updated: 0, skipped: n }, section);
      assert.deepEqual(counts(dry.body[section]), counts(res[section]), `dry run: ${section}`);
      assert.deepEqual([res[section].errors, res[section].warnings], [[], []], section);
    }
    const after = await draft(v);
    for (const p of before.products) {
      const q = byExternalId(after.products, p.externalId);
      assert.deepEqual(
        { ...food(q), effectiveAllergens: q.effectiveAllergens },
        { ...food(p), effectiveAllergens: p.effectiveAllergens },
        p.externalId,
      );
      assert.equal(q.updatedAt, p.updatedAt, p.externalId);
    }
  });

  it('round-trips after a PATCH changed the food information (the sync hash is gone)', async () => {
    const v = await richMenu();
    assert.equal((await patch(v, 'p2', { mayContain: ['sesame', 'gluten'], calories: 321, nutrition: { fibre: 2.5 } })).status, 200);
    const { body } = menuToSyncInput(await draft(v));
    assert.deepEqual(food(byExternalId(body.products!, 'p2')), {
      ...UNSET,
      mayContain: ['gluten', 'sesame'],
      calories: 321,
      nutrition: { fibre: 2.5 },
    });
    const res = await syncOk(v, body);
    assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 3 });
    assert.deepEqual(counts(res.ingredients), { created: 0, updated: 0, skipped: 3 });
  });

  it('pushes an export into an empty venue and reads the same food information', async () => {
    const v = await richMenu();
    const source = await draft(v);
    const { body } = menuToSyncInput(source);
    const w = await createVenue(t.app);
    const res = await syncOk(w, body);
    assert.deepEqual(counts(res.products), { created: 3, updated: 0, skipped: 0 });
    const copy = await draft(w);
    for (const p of source.products) {
      const q = byExternalId(copy.products, p.externalId);
      assert.deepEqual(
        { ...food(q), effectiveAllergens: q.effectiveAllergens },
        { ...food(p), effectiveAllergens: p.effectiveAllergens },
        p.externalId,
      );
    }
    for (const i of source.ingredients) assert.deepEqual(byExternalId(copy.ingredients, i.externalId).allergens, i.allergens);
  });
});
