import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { menuFixture, mutate, type SyncBody } from '../../bench/workload.js';
import type { MediaImageView } from '../../src/modules/media/media.schemas.js';
import type { MenuDocumentValue, ProductViewValue } from '../../src/modules/menu/menu.schemas.js';
import { documentSlices } from '../../src/modules/menu/document-slices.js';
import { diffMenus as diffDocuments, diffSerialized } from '../../src/modules/menu/menu-diff.js';
import type { MenuDiffSectionsValue } from '../../src/modules/menu/publications.schemas.js';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';

type CategoryView = MenuDocumentValue['categories'][number];
type IngredientView = MenuDocumentValue['ingredients'][number];
type GroupView = ProductViewValue['modifierGroups'][number];
type OptionView = GroupView['options'][number];

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-02-01T00:00:00.000Z';
const NONE = { added: [], removed: [], changed: [] };
const EMPTY: MenuDiffSectionsValue = { categories: NONE, ingredients: NONE, products: NONE };
const SOLD_OUT = { available: false, until: null, reason: 'sold_out' as const };

// ---- hand-made documents in the read shape ------------------------------------------------

function doc(parts: Partial<Pick<MenuDocumentValue, 'categories' | 'ingredients' | 'products'>>): MenuDocumentValue {
  return {
    version: 'draft',
    publicationId: null,
    publishedAt: null,
    generatedAt: T0,
    currency: 'EUR',
    categories: [],
    ingredients: [],
    products: [],
    ...parts,
  };
}

function category(externalId: string | null, over: Partial<CategoryView> = {}): CategoryView {
  return {
    id: `cat-id-${externalId}`,
    externalId,
    name: `Category ${externalId}`,
    sortOrder: 0,
    schedule: [{ day: 'monday', isOpen: true, openTime: '09:00', closeTime: '17:00' }],
    cardStyle: null,
    isActive: true,
    translations: { es: { name: 'Categoría' } },
    updatedAt: T0,
    ...over,
  };
}

function ingredient(externalId: string | null, over: Partial<IngredientView> = {}): IngredientView {
  return {
    id: `ing-id-${externalId}`,
    externalId,
    name: `Ingredient ${externalId}`,
    sortOrder: 0,
    translations: {},
    allergens: [],
    updatedAt: T0,
    ...over,
  };
}

function option(ingredientExternalId: string, over: Partial<OptionView> = {}): OptionView {
  return {
    id: `opt-id-${ingredientExternalId}`,
    ingredientExternalId,
    ingredientName: `Ingredient ${ingredientExternalId}`,
    action: 'add',
    priceAdjustment: 0,
    sortOrder: 0,
    allergens: [],
    isDefault: false,
    ...over,
  };
}

function group(name: string, options: OptionView[], over: Partial<GroupView> = {}): GroupView {
  return {
    id: `grp-id-${name}`,
    name,
    type: 'add_ingredients',
    isRequired: false,
    minSelections: 0,
    maxSelections: null,
    maxQuantityPerOption: null,
    sortOrder: 0,
    translations: { es: { name: `${name} (es)` } },
    options,
    ...over,
  };
}

function image(base: string, keys: string[]): MediaImageView {
  const variants = keys.map((key, i) => ({ url: `${base}/venue-1/${key}.webp`, width: 1024 >> i, height: 1024 >> i, bytes: 50_000 >> i }));
  return { imageUrl: variants[0].url, width: 1024, height: 1024, bytes: 50_000, variants };
}

function product(externalId: string | null, over: Partial<ProductViewValue> = {}): ProductViewValue {
  return {
    id: `prod-id-${externalId}`,
    externalId,
    name: `Product ${externalId}`,
    description: null,
    priceMinor: 500,
    salePriceMinor: null,
    isSaleActive: false,
    amount: null,
    unit: null,
    badgeLabel: null,
    badgeColor: null,
    categoryId: 'cat-id-c1',
    categoryExternalId: 'c1',
    ingredients: [
      { externalId: 'milk', name: 'Milk' },
      { externalId: 'sugar', name: 'Sugar' },
    ],
    modifierGroups: [
      group('Extras', [option('milk', { sortOrder: 0 }), option('sugar', { sortOrder: 1, priceAdjustment: 20 })], { sortOrder: 0 }),
      group('Size', [option('cup', { sortOrder: 0, isDefault: true }), option('mug', { sortOrder: 1 })], {
        type: 'single_choice',
        isRequired: true,
        minSelections: 1,
        maxSelections: 1,
        sortOrder: 1,
      }),
    ],
    sortOrder: 0,
    menuVisible: true,
    imageUrl: null,
    image: null,
    translations: { es: { name: 'Producto', description: 'Descripción' }, uk: { name: 'Продукт' } },
    allergens: ['milk'],
    effectiveAllergens: ['milk'],
    mayContain: [],
    dietaryLabels: [],
    spiceLevel: null,
    calories: null,
    nutrition: { fat: 1.5, protein: 3 },
    updatedAt: T0,
    ...over,
  };
}

/** A deep copy with every object's keys in reverse order (jsonb does not keep key order). */
function reversedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reversedKeys) as T;
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversedKeys(x)]),
  ) as T;
}

/** The diff of two documents, which the diff of their serialised bytes (what the service runs) must equal. */
function diffMenus(from: MenuDocumentValue, to: MenuDocumentValue): MenuDiffSectionsValue {
  const diff = diffDocuments(from, to);
  assert.deepEqual(diffSerialized(Buffer.from(JSON.stringify(from)), Buffer.from(JSON.stringify(to))), diff);
  return diff;
}

const changedProducts = (from: ProductViewValue[], to: ProductViewValue[]) =>
  diffMenus(doc({ products: from }), doc({ products: to })).products;

describe('diffMenus', () => {
  const full = () =>
    doc({
      categories: [category('c1'), category('c2', { sortOrder: 1 })],
      ingredients: [ingredient('milk'), ingredient('sugar', { allergens: ['sulphites'] })],
      products: [product('latte'), product('tea', { sortOrder: 1 })],
    });

  it('finds no change between a menu and itself, or a copy of it with its keys in another order', () => {
    assert.deepEqual(diffMenus(full(), full()), EMPTY);
    assert.deepEqual(diffMenus(full(), reversedKeys(full())), EMPTY);
    const d = full();
    assert.deepEqual(diffMenus(d, d), EMPTY);
  });

  it('matches items by externalId, else by id; added and changed in the order of to, removed in that of from', () => {
    const from = doc({
      products: [product('a'), product(null, { id: 'no-ext-1' }), product('b'), product('gone-1'), product('c'), product('gone-2')],
    });
    const to = doc({
      products: [
        product('new-2'),
        product('c', { priceMinor: 1 }),
        product(null, { id: 'no-ext-1', name: 'Renamed' }),
        product('a', { id: 'another-id' }),
        product('new-1'),
        product('b', { priceMinor: 2 }),
      ],
    });
    assert.deepEqual(diffMenus(from, to).products, {
      added: ['new-2', 'new-1'],
      removed: ['gone-1', 'gone-2'],
      changed: [
        { ref: 'c', fields: ['priceMinor'] },
        { ref: 'no-ext-1', fields: ['name'] },
        { ref: 'b', fields: ['priceMinor'] },
      ],
    });
  });

  it('lists every changed field by its read-shape name, in alphabetical order', () => {
    const changes: Record<string, Partial<ProductViewValue>> = {
      name: { name: 'Other' },
      description: { description: 'Now described' },
      priceMinor: { priceMinor: 501 },
      salePriceMinor: { salePriceMinor: 400 },
      isSaleActive: { isSaleActive: true },
      amount: { amount: 300 },
      unit: { unit: 'ML' },
      badgeLabel: { badgeLabel: 'New' },
      badgeColor: { badgeColor: 'red' },
      categoryExternalId: { categoryExternalId: 'c2', categoryId: 'cat-id-c2' },
      ingredients: { ingredients: [{ externalId: 'milk', name: 'Milk' }] },
      modifierGroups: { modifierGroups: [] },
      sortOrder: { sortOrder: 9 },
      menuVisible: { menuVisible: false },
      imageUrl: { imageUrl: 'https://cdn.example/venue-1/aa.webp' },
      image: { image: image('https://cdn.example', ['aa']) },
      translations: { translations: { es: { name: 'Otro' } } },
      allergens: { allergens: [] },
      mayContain: { mayContain: ['nuts'] },
      dietaryLabels: { dietaryLabels: ['vegan'] },
      spiceLevel: { spiceLevel: 2 },
      calories: { calories: 120 },
      nutrition: { nutrition: null },
    };
    for (const [field, change] of Object.entries(changes)) {
      assert.deepEqual(changedProducts([product('p')], [product('p', change)]).changed, [{ ref: 'p', fields: [field] }], field);
    }
    const all = Object.assign({}, ...Object.values(changes)) as Partial<ProductViewValue>;
    assert.deepEqual(changedProducts([product('p')], [product('p', all)]).changed, [{ ref: 'p', fields: Object.keys(changes).sort() }]);
  });

  it('compares the fields of categories and ingredients', () => {
    const categoryChanges: Record<string, Partial<CategoryView>> = {
      name: { name: 'Other' },
      sortOrder: { sortOrder: 3 },
      schedule: { schedule: [] },
      cardStyle: { cardStyle: 'wide' },
      isActive: { isActive: false },
      translations: { translations: {} },
    };
    for (const [field, change] of Object.entries(categoryChanges)) {
      const d = diffMenus(doc({ categories: [category('c')] }), doc({ categories: [category('c', change)] }));
      assert.deepEqual(d, { ...EMPTY, categories: { ...NONE, changed: [{ ref: 'c', fields: [field] }] } }, field);
    }
    const ingredientChanges: Record<string, Partial<IngredientView>> = {
      name: { name: 'Other' },
      sortOrder: { sortOrder: 3 },
      translations: { translations: { es: { name: 'Leche' } } },
      allergens: { allergens: ['milk'] },
    };
    for (const [field, change] of Object.entries(ingredientChanges)) {
      const d = diffMenus(doc({ ingredients: [ingredient('i')] }), doc({ ingredients: [ingredient('i', change)] }));
      assert.deepEqual(d, { ...EMPTY, ingredients: { ...NONE, changed: [{ ref: 'i', fields: [field] }] } }, field);
    }
  });

  it('never compares ids, updatedAt, categoryId, copied names, derived allergens or availability', () => {
    const from = full();
    const to = full();
    to.categories[0] = { ...to.categories[0], id: 'new-cat-id', updatedAt: T1 };
    to.ingredients[0] = { ...to.ingredients[0], id: 'new-ing-id', updatedAt: T1, availability: SOLD_OUT };
    const p = to.products[0];
    to.products[0] = {
      ...p,
      id: 'new-prod-id',
      updatedAt: T1,
      categoryId: 'new-cat-id',
      ingredients: p.ingredients.map((i) => ({ ...i, name: `${i.name} renamed` })),
      effectiveAllergens: ['milk', 'sulphites'],
      availability: SOLD_OUT,
      modifierGroups: p.modifierGroups.map((g) => ({
        ...g,
        id: `${g.id}-new`,
        options: g.options.map((o) => ({
          ...o,
          id: `${o.id}-new`,
          ingredientName: 'renamed',
          allergens: ['sulphites'],
          availability: SOLD_OUT,
        })),
      })),
    };
    assert.deepEqual(diffMenus(from, to), EMPTY);
  });

  it('compares a composition as its list of ingredient externalIds, in order', () => {
    const composed = (...refs: string[]) => product('p', { ingredients: refs.map((externalId) => ({ externalId, name: externalId })) });
    assert.deepEqual(changedProducts([composed('milk', 'sugar')], [composed('milk', 'sugar')]).changed, []);
    assert.deepEqual(changedProducts([composed('milk', 'sugar')], [composed('sugar', 'milk')]).changed, [
      { ref: 'p', fields: ['ingredients'] },
    ]);
    assert.deepEqual(changedProducts([composed('milk', 'sugar')], [composed('milk', 'ice')]).changed, [
      { ref: 'p', fields: ['ingredients'] },
    ]);
  });

  it('lists modifierGroups when any kept field of a group or of an option changes', () => {
    const withGroup = (g: Partial<GroupView>, o: Partial<OptionView> = {}) =>
      product('p', { modifierGroups: [group('Extras', [option('milk', o), option('sugar', { sortOrder: 1 })], g)] });
    const groupChanges: Partial<GroupView>[] = [
      { name: 'More' },
      { type: 'remove_ingredients' },
      { isRequired: true },
      { minSelections: 1 },
      { maxSelections: 2 },
      { maxQuantityPerOption: 3 },
      { sortOrder: 4 },
      { translations: { es: { name: 'Extras' } } },
      { options: [option('milk')] },
    ];
    const optionChanges: Partial<OptionView>[] = [
      { ingredientExternalId: 'ice' },
      { action: 'remove' },
      { priceAdjustment: 10 },
      { sortOrder: 2 },
      { isDefault: true },
    ];
    for (const change of groupChanges) {
      assert.deepEqual(
        changedProducts([withGroup({})], [withGroup(change)]).changed,
        [{ ref: 'p', fields: ['modifierGroups'] }],
        JSON.stringify(change),
      );
    }
    for (const change of optionChanges) {
      assert.deepEqual(
        changedProducts([withGroup({})], [withGroup({}, change)]).changed,
        [{ ref: 'p', fields: ['modifierGroups'] }],
        JSON.stringify(change),
      );
    }
    // Reordered groups are a change: the guest page shows them in this order.
    const [extras, size] = product('p').modifierGroups;
    const swapped = [
      { ...size, sortOrder: 0 },
      { ...extras, sortOrder: 1 },
    ];
    assert.deepEqual(changedProducts([product('p')], [product('p', { modifierGroups: swapped })]).changed, [
      { ref: 'p', fields: ['modifierGroups'] },
    ]);
  });

  it('compares groups and options that only their ids order whatever that order', () => {
    // Options of equal sortOrder and groups of equal sortOrder and name read in id order,
    // and groups written again get new ids.
    const tied = (ids: [string, string], optionIds: [string, string]) => {
      const options = [option('milk', { id: optionIds[0], priceAdjustment: 10 }), option('sugar', { id: optionIds[1] })];
      return product('p', {
        modifierGroups: [
          group('Extras', options, { id: ids[0], maxSelections: 1 }),
          group('Extras', [option('ice', { id: `${ids[1]}-o` })], { id: ids[1], maxSelections: 2 }),
        ],
      });
    };
    const before = tied(['g1', 'g2'], ['o1', 'o2']);
    const after = tied(['g2', 'g1'], ['o2', 'o1']);
    after.modifierGroups.reverse();
    after.modifierGroups[1].options.reverse();
    assert.deepEqual(changedProducts([before], [after]).changed, []);
    // Still a change when the tied items differ.
    after.modifierGroups[1].options[0] = { ...after.modifierGroups[1].options[0], priceAdjustment: 11 };
    assert.deepEqual(changedProducts([before], [after]).changed, [{ ref: 'p', fields: ['modifierGroups'] }]);
  });

  it('compares images by the files that identify them, not by the base of their URLs', () => {
    const at = (base: string, keys: string[]) => {
      const img = image(base, keys);
      return product('p', { image: img, imageUrl: img.imageUrl });
    };
    const keys = ['a'.repeat(64), 'b'.repeat(64)];
    assert.deepEqual(changedProducts([at('http://localhost:3000/media', keys)], [at('https://cdn.example', keys)]).changed, []);
    assert.deepEqual(changedProducts([at('https://cdn.example', keys)], [at('https://cdn.example', ['c'.repeat(64), keys[1]])]).changed, [
      { ref: 'p', fields: ['image', 'imageUrl'] },
    ]);
    assert.deepEqual(changedProducts([at('https://cdn.example', keys)], [product('p')]).changed, [
      { ref: 'p', fields: ['image', 'imageUrl'] },
    ]);
    // Snapshots published before images existed have no `image`: no image.
    const { image: _none, ...imageless } = product('p');
    assert.deepEqual(changedProducts([imageless as ProductViewValue], [product('p')]).changed, []);
    assert.deepEqual(changedProducts([imageless as ProductViewValue], [at('https://cdn.example', keys)]).changed, [
      { ref: 'p', fields: ['image', 'imageUrl'] },
    ]);
  });

  it('reads a snapshot published before food information and modifier rules with their defaults', () => {
    const current = doc({
      ingredients: [ingredient('milk')],
      products: [
        product('p', {
          allergens: [],
          effectiveAllergens: [],
          mayContain: [],
          dietaryLabels: [],
          spiceLevel: null,
          calories: null,
          nutrition: null,
          modifierGroups: [
            group('Size', [option('cup'), option('mug', { sortOrder: 1 })], {
              type: 'single_choice',
              isRequired: true,
              minSelections: 1,
              maxSelections: 1,
            }),
            group('Extras', [option('milk')], { sortOrder: 1, minSelections: 0, maxSelections: null, maxQuantityPerOption: null }),
          ],
        }),
      ],
    });
    const old = structuredClone(current) as any;
    for (const i of old.ingredients) delete i.allergens;
    for (const p of old.products) {
      for (const field of ['allergens', 'effectiveAllergens', 'mayContain', 'dietaryLabels', 'spiceLevel', 'calories', 'nutrition'])
        delete p[field];
      for (const g of p.modifierGroups) {
        for (const field of ['minSelections', 'maxSelections', 'maxQuantityPerOption']) delete g[field];
        for (const o of g.options) {
          delete o.allergens;
          delete o.isDefault;
        }
      }
    }
    assert.deepEqual(diffMenus(old, current), EMPTY);
    assert.deepEqual(diffMenus(current, old), EMPTY);
    const changed = structuredClone(current);
    changed.products[0].dietaryLabels = ['vegan'];
    assert.deepEqual(diffMenus(old, changed).products.changed, [{ ref: 'p', fields: ['dietaryLabels'] }]);
  });

  it('shows a hidden product as changed with menuVisible, not as removed', () => {
    assert.deepEqual(changedProducts([product('p')], [product('p', { menuVisible: false, updatedAt: T1 })]), {
      added: [],
      removed: [],
      changed: [{ ref: 'p', fields: ['menuVisible'] }],
    });
  });
});

// ---- through the app: documents as GET /v1/menu reads them -----------------------------------

const MENU: SyncBody = {
  categories: [
    { externalId: 'hot', name: 'Hot' },
    { externalId: 'cold', name: 'Cold' },
  ],
  ingredients: [
    { externalId: 'milk', name: 'Milk', allergens: ['milk'] },
    { externalId: 'oat', name: 'Oat milk' },
    { externalId: 'sugar', name: 'Sugar' },
  ],
  products: [
    {
      externalId: 'latte',
      name: 'Latte',
      priceMinor: 350,
      sortOrder: 1,
      categoryExternalId: 'hot',
      ingredientExternalIds: ['milk', 'sugar'],
      translations: { es: { name: 'Café con leche' } },
    },
    { externalId: 'tea', name: 'Tea', priceMinor: 250, sortOrder: 2, categoryExternalId: 'hot', translations: { es: { name: 'Té' } } },
    {
      externalId: 'flat-white',
      name: 'Flat white',
      priceMinor: 380,
      sortOrder: 3,
      categoryExternalId: 'hot',
      ingredientExternalIds: ['milk'],
      modifierGroups: [
        {
          name: 'Milk',
          type: 'single_choice',
          options: [
            { ingredientExternalId: 'milk', isDefault: true },
            { ingredientExternalId: 'oat', priceAdjustment: 50 },
          ],
          translations: { es: { name: 'Leche' } },
        },
        { name: 'Extras', type: 'add_ingredients', maxSelections: 2, options: [{ ingredientExternalId: 'sugar' }] },
      ],
    },
    { externalId: 'water', name: 'Water', priceMinor: 100, sortOrder: 4, categoryExternalId: 'cold' },
    { externalId: 'soup', name: 'Soup', priceMinor: 600, sortOrder: 5, categoryExternalId: 'hot' },
  ],
};

describe('diffMenus on menus read through the app', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  async function readMenu(v: VenueFixture, version: 'draft' | 'published' = 'draft'): Promise<MenuDocumentValue> {
    const res = await call(t.app, 'GET', `/v1/menu?version=${version}`, { key: v.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  async function post(v: VenueFixture, url: string, body?: unknown, status = 201) {
    const res = await call(t.app, 'POST', url, { key: v.key, body });
    assert.equal(res.status, status, JSON.stringify(res.body));
    return res.body;
  }

  async function venueWithSpanish(plan: 'standard' | 'pro' = 'standard', languages = ['en', 'es']): Promise<VenueFixture> {
    const v = await createVenue(t.app, { plan });
    const settings = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: languages } });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    return v;
  }

  it('a price, a translation, a modifier group, a renamed ingredient, a cleanup, a delete and a new product give exactly those', async () => {
    const v = await venueWithSpanish();
    await syncOk(t.app, v, MENU);
    const from = await readMenu(v);

    const next = structuredClone(MENU);
    const [latte, tea, flatWhite] = next.products!;
    latte.priceMinor = 390;
    tea.translations = { es: { name: 'Té negro' } };
    flatWhite.modifierGroups![0].options[1].priceAdjustment = 60;
    next.ingredients![0].name = 'Whole milk';
    next.products = [
      latte,
      tea,
      flatWhite,
      { externalId: 'cookie', name: 'Cookie', priceMinor: 200, sortOrder: 0, categoryExternalId: 'hot' },
    ];
    await syncOk(t.app, v, next);
    await post(v, '/v1/cleanup', { items: [{ type: 'product', ref: 'water' }] });
    assert.equal((await call(t.app, 'DELETE', '/v1/products/soup', { key: v.key })).status, 200);
    const to = await readMenu(v);

    assert.deepEqual(diffMenus(from, to), {
      categories: NONE,
      ingredients: { added: [], removed: [], changed: [{ ref: 'milk', fields: ['name'] }] },
      products: {
        added: ['cookie'],
        removed: ['soup'],
        changed: [
          { ref: 'latte', fields: ['priceMinor'] },
          { ref: 'tea', fields: ['translations'] },
          { ref: 'flat-white', fields: ['modifierGroups'] },
          { ref: 'water', fields: ['menuVisible'] },
        ],
      },
    });
    assert.deepEqual(diffMenus(to, to), EMPTY);
  });

  it('finds no change between a published snapshot and the draft it was made from', async () => {
    const v = await venueWithSpanish();
    await syncOk(t.app, v, MENU);
    await post(v, '/v1/cleanup', { items: [{ type: 'product', ref: 'water' }] });
    await post(v, '/v1/publish');
    const published = await readMenu(v, 'published');
    const draft = await readMenu(v, 'draft');
    assert.deepEqual(diffMenus(published, draft), EMPTY);
    assert.deepEqual(diffMenus(draft, published), EMPTY);
  });

  // The 300 ms goal is the bench's (npm run bench -- --publications); a test only reports its time.
  it('diffs two menus of 2,000 products exactly, and reports the time it took', async (ctx) => {
    const languages = ['uk', 'es'];
    const v = await venueWithSpanish('pro', ['en', ...languages]);
    // Four disjoint fixtures within the paid plan's 2,000 products, 200 categories and 300 ingredients.
    const batches: SyncBody[] = ['a', 'b', 'c', 'd'].map((prefix) =>
      menuFixture({ seed: 7, products: 500, categories: 50, ingredients: 75, locales: languages, idPrefix: `${prefix}-` }),
    );
    for (const batch of batches) await syncOk(t.app, v, batch);
    const from = await readMenu(v);
    assert.equal(from.products.length, 2000);

    const mutation = mutate(batches[1], 0.2, 11);
    await syncOk(t.app, v, mutation.body);
    const to = await readMenu(v);

    // The best of three runs after a warm-up: the cost of the diff, not of the other work on the machine.
    const timed = (a: MenuDocumentValue, b: MenuDocumentValue) => {
      diffDocuments(a, b);
      let ms = Infinity;
      let diff = EMPTY;
      for (let run = 0; run < 3; run += 1) {
        const started = performance.now();
        diff = diffDocuments(a, b);
        ms = Math.min(ms, performance.now() - started);
      }
      // The service's diff, on the documents' bytes, agrees.
      assert.deepEqual(diffSerialized(Buffer.from(JSON.stringify(a)), Buffer.from(JSON.stringify(b))), diff);
      return { diff, ms };
    };
    const changed = timed(from, to);
    assert.deepEqual(changed.diff.products.changed.map((c) => c.ref).sort(), [...mutation.changedIds].sort());
    assert.ok(
      changed.diff.products.changed.every(
        (c) => c.fields.includes('priceMinor') && c.fields.every((f) => f === 'name' || f === 'priceMinor'),
      ),
    );
    assert.deepEqual({ ...changed.diff, products: NONE }, EMPTY);
    // Equal documents, none of their objects shared: every field compared to the end.
    const equal = timed(from, structuredClone(from));
    assert.deepEqual(equal.diff, EMPTY);
    // A snapshot from before modifier rules: withReadDefaults copies every product and group.
    const old = structuredClone(from) as any;
    for (const p of old.products) for (const g of p.modifierGroups) delete g.minSelections;
    const defaulted = timed(old, to);
    assert.equal(defaulted.diff.products.changed.length, mutation.changed);

    ctx.diagnostic(
      `2,000 products: changed ${changed.ms.toFixed(1)} ms, equal ${equal.ms.toFixed(1)} ms, old snapshot ${defaulted.ms.toFixed(1)} ms`,
    );
  });
});

describe('documentSlices', () => {
  it('finds each section item by its own externalId (else id) and keeps its bytes, whatever its strings hold', () => {
    const tricky = 'a "quoted" {brace} [bracket] \\ back\\slash "externalId":"x" é 😀';
    const d = doc({
      categories: [category('c1', { name: tricky }), category(null)],
      ingredients: [ingredient('i"1', { translations: { es: { name: '}]' } } })],
      products: [product('p1', { description: tricky }), product('p2', { externalId: null, id: 'prod-id-2' })],
    });
    const text = JSON.stringify(d);
    for (const bytes of [Buffer.from(text), Buffer.from(JSON.stringify(d, null, 2))]) {
      const slices = documentSlices(bytes);
      assert.deepEqual(
        slices.categories.map((s) => s.ref),
        ['c1', 'cat-id-null'],
      );
      assert.deepEqual(
        slices.ingredients.map((s) => s.ref),
        ['i"1'],
      );
      // Nested externalIds (ingredients, options) are not the product's.
      assert.deepEqual(
        slices.products.map((s) => s.ref),
        ['p1', 'prod-id-2'],
      );
      assert.deepEqual(
        slices.products.map((s) => JSON.parse(s.bytes.toString())),
        d.products,
      );
      assert.deepEqual(
        slices.categories.map((s) => JSON.parse(s.bytes.toString())),
        d.categories,
      );
    }
  });
});
