import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { BASE, counts, syncCalls } from '../helpers/sync.js';

// POST /v1/sync, field by field: what omitted, null and [] mean on an update and the defaults of a
// new item, and the modifier group rules.
// Every test makes its own venue, so none depends on another's data.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const { syncOk, product, draft } = syncCalls(() => t.app);

describe('POST /v1/sync: omitted, null and []', () => {
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
      {
        name: 'Size',
        type: 'single_choice',
        options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', priceAdjustment: 300 }],
      },
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

  describe('description, amount and unit: null clears, omitted keeps', () => {
    const CLEAR = { externalId: 'p1', name: 'Margherita', priceMinor: 21500, description: null, amount: null, unit: null };
    const dryRun = (v: VenueFixture, body: unknown) => call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body });
    const cleared = (p: any) => [p.description, p.amount, p.unit];

    it('reports the clear in a dry run, writing nothing, then clears each field in the real sync', async () => {
      const v = await createVenue(t.app);
      const before = await stored(v);
      const dry = await dryRun(v, { products: [CLEAR] });
      assert.equal(dry.status, 201, JSON.stringify(dry.body));
      assert.deepEqual(counts(dry.body.products), { created: 0, updated: 1, skipped: 0 });
      assert.deepEqual(dry.body.products.changes, [{ externalId: 'p1', action: 'updated', fields: ['amount', 'description', 'unit'] }]);
      assert.deepEqual(await product(v, 'p1'), before);

      const res = await syncOk(v, { products: [CLEAR] });
      assert.deepEqual(counts(res.products), counts(dry.body.products));
      assert.deepEqual([res.products.errors, res.products.warnings], [[], []]);
      const after = await product(v, 'p1');
      assert.deepEqual(cleared(after), [null, null, null]);
      // Nothing else moves.
      const { description: _a, amount: _b, unit: _c, updatedAt: _d, ...rest } = after;
      const { description: _e, amount: _f, unit: _g, updatedAt: _h, ...was } = before;
      assert.deepEqual(rest, was);
    });

    it('clears one field sent as null and keeps the two omitted', async () => {
      for (const field of ['description', 'amount', 'unit'] as const) {
        const v = await createVenue(t.app);
        const before = await stored(v);
        const res = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500, [field]: null }] });
        assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 }, field);
        const after = await product(v, 'p1');
        assert.deepEqual(cleared(after), cleared({ ...before, [field]: null }), field);
      }
    });

    it('skips the same null sync repeated, in a dry run too', async () => {
      const v = await createVenue(t.app);
      await stored(v);
      await syncOk(v, { products: [CLEAR] });
      const again = await syncOk(v, { products: [CLEAR] });
      assert.deepEqual(counts(again.products), { created: 0, updated: 0, skipped: 1 });
      const dry = await dryRun(v, { products: [CLEAR] });
      assert.deepEqual(counts(dry.body.products), { created: 0, updated: 0, skipped: 1 });
      assert.deepEqual(dry.body.products.changes, []);
      assert.deepEqual(cleared(await product(v, 'p1')), [null, null, null]);
    });

    it('skips null sent for fields already empty, whatever wrote the row, and keeps them empty when omitted', async () => {
      const v = await createVenue(t.app);
      // Created without the three fields: the stored row's sync hash is another item's, so the
      // skip comes from comparing the fields (null against NULL).
      await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500 }] });
      const res = await syncOk(v, { products: [CLEAR] });
      assert.deepEqual(counts(res.products), { created: 0, updated: 0, skipped: 1 });
      const dry = await dryRun(v, { products: [CLEAR] });
      assert.deepEqual(counts(dry.body.products), { created: 0, updated: 0, skipped: 1 });
      const omitted = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500 }] });
      assert.deepEqual(counts(omitted.products), { created: 0, updated: 0, skipped: 1 });
      assert.deepEqual(cleared(await product(v, 'p1')), [null, null, null]);
    });

    it('sets the fields again after a clear, and a sync omitting them then keeps the values', async () => {
      const v = await createVenue(t.app);
      await stored(v);
      await syncOk(v, { products: [CLEAR] });
      const set = await syncOk(v, {
        products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500, description: 'Back', amount: 300, unit: 'ML' }],
      });
      assert.deepEqual(counts(set.products), { created: 0, updated: 1, skipped: 0 });
      const kept = await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500 }] });
      assert.deepEqual(counts(kept.products), { created: 0, updated: 0, skipped: 1 });
      assert.deepEqual(cleared(await product(v, 'p1')), ['Back', 300, 'ML']);
    });

    it('creates a product with the three fields sent as null as if they were omitted', async () => {
      const v = await createVenue(t.app);
      const res = await syncOk(v, { products: [CLEAR] });
      assert.deepEqual(counts(res.products), { created: 1, updated: 0, skipped: 0 });
      assert.deepEqual(cleared(await product(v, 'p1')), [null, null, null]);
    });

    it('clears them after a PATCH set them (the row then has no sync hash)', async () => {
      const v = await createVenue(t.app);
      await syncOk(v, { products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500 }] });
      const patched = await call(t.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { description: 'Set', amount: 1, unit: 'PCS' } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const res = await syncOk(v, { products: [CLEAR] });
      assert.deepEqual(counts(res.products), { created: 0, updated: 1, skipped: 0 });
      assert.deepEqual(cleared(await product(v, 'p1')), [null, null, null]);
    });
  });

  it('clears the composition and the modifier groups sent as []', async () => {
    const v = await createVenue(t.app);
    await stored(v);
    await syncOk(v, {
      products: [{ externalId: 'p1', name: 'Margherita', priceMinor: 21500, ingredientExternalIds: [], modifierGroups: [] }],
    });
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
    assert.deepEqual(
      p.modifierGroups[0].options.map((o: any) => [o.ingredientExternalId, o.priceAdjustment]),
      [['i3', 100]],
    );
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

describe('POST /v1/sync: modifier groups', () => {
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
            {
              name: 'B',
              type: 'add_ingredients',
              options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', action: 'remove' }],
            },
            {
              name: 'C',
              type: 'remove_ingredients',
              options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', action: 'add' }],
            },
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
            {
              name: 'Zeta',
              type: 'add_ingredients',
              options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2' }, { ingredientExternalId: 'i3' }],
            },
            {
              name: 'Alpha',
              type: 'add_ingredients',
              options: [{ ingredientExternalId: 'i1', sortOrder: 9 }, { ingredientExternalId: 'i2' }],
            },
            { name: 'Late', type: 'add_ingredients', sortOrder: 10, options: [] },
          ],
        },
      ],
    });
    const groups = (await product(v, 'p1')).modifierGroups;
    // Read order is sortOrder, then name: the defaults keep the sent order.
    assert.deepEqual(
      groups.map((g: any) => [g.name, g.sortOrder]),
      [
        ['Zeta', 0],
        ['Alpha', 1],
        ['Late', 10],
      ],
    );
    assert.deepEqual(
      groups[0].options.map((o: any) => [o.ingredientExternalId, o.sortOrder]),
      [
        ['i1', 0],
        ['i2', 1],
        ['i3', 2],
      ],
    );
    assert.deepEqual(
      groups[1].options.map((o: any) => [o.ingredientExternalId, o.sortOrder]),
      [
        ['i2', 1],
        ['i1', 9],
      ],
    );
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
            {
              name: 'Size',
              type: 'single_choice',
              options: [{ ingredientExternalId: 'i1' }, { ingredientExternalId: 'i2', priceAdjustment: -250 }],
            },
          ],
        },
      ],
    });
    const [g] = (await product(v, 'p1')).modifierGroups;
    assert.deepEqual(
      g.options.map((o: any) => o.priceAdjustment),
      [0, -250],
    );
  });
});
