import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { createOrder, expectStatus, placeOrder, publish, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { counts, syncCalls } from '../helpers/sync.js';

// Modifier rules: minSelections, maxSelections and maxQuantityPerOption on groups,
// isDefault on options, through sync (fixed values replaced with a warning, impossible rules a
// per-item error, bad values a 400), the menu reads, snapshots, the guest menu and guest orders.
// Every test makes its own venue. The rules' own unit tests: test/shared/modifier-rules.test.ts.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const { sync, syncOk, product, draft } = syncCalls(() => t.app);

const INGREDIENTS = ['ketchup', 'mayo', 'mustard', 'bbq', 'cheese', 'bacon', 'onion', 'pickles', 'white', 'brioche'].map((id) => ({
  externalId: id,
  name: id[0].toUpperCase() + id.slice(1),
}));

const SAUCES = {
  name: 'Sauces',
  type: 'add_ingredients',
  minSelections: 2,
  maxSelections: 3,
  options: [
    { ingredientExternalId: 'ketchup' },
    { ingredientExternalId: 'mayo', isDefault: true },
    { ingredientExternalId: 'mustard' },
    { ingredientExternalId: 'bbq', priceAdjustment: 50 },
  ],
};
const TOPPINGS = {
  name: 'Toppings',
  type: 'add_ingredients',
  maxSelections: 4,
  maxQuantityPerOption: 2,
  options: [
    { ingredientExternalId: 'cheese', priceAdjustment: 100 },
    { ingredientExternalId: 'bacon', priceAdjustment: 200 },
  ],
};
const BUN = {
  name: 'Bun',
  type: 'single_choice',
  options: [{ ingredientExternalId: 'white' }, { ingredientExternalId: 'brioche', priceAdjustment: 150, isDefault: true }],
};
const REMOVE = {
  name: 'Remove',
  type: 'remove_ingredients',
  maxSelections: 1,
  options: [{ ingredientExternalId: 'onion' }, { ingredientExternalId: 'pickles' }],
};

const BURGER = { externalId: 'burger', name: 'Burger', priceMinor: 1000, modifierGroups: [BUN, SAUCES, TOPPINGS, REMOVE] };
const MENU = { ingredients: INGREDIENTS, products: [BURGER] };

const rules = (g: any) => ({ type: g.type, min: g.minSelections, max: g.maxSelections, perOption: g.maxQuantityPerOption });
const READ_RULES = [
  { type: 'single_choice', min: 1, max: 1, perOption: null },
  { type: 'add_ingredients', min: 2, max: 3, perOption: null },
  { type: 'add_ingredients', min: 0, max: 4, perOption: 2 },
  { type: 'remove_ingredients', min: 0, max: 1, perOption: null },
];

async function seeded(menu: unknown = MENU): Promise<VenueFixture> {
  const v = await createVenue(t.app);
  const res = await syncOk(v, menu);
  assert.deepEqual(res.products.errors, []);
  return v;
}

describe('modifier rules through sync and the reads', () => {
  it('reads back the rules and the default options exactly, in the draft, the product and the published menu', async () => {
    const v = await seeded();
    const p = await product(v, 'burger');
    assert.deepEqual(p.modifierGroups.map(rules), READ_RULES);
    assert.deepEqual(
      p.modifierGroups.map((g: any) => g.options.map((o: any) => o.isDefault)),
      [
        [false, true],
        [false, true, false, false],
        [false, false],
        [false, false],
      ],
    );
    assert.deepEqual((await draft(v)).products[0].modifierGroups.map(rules), READ_RULES);
    await publish(t.app, v);
    const published = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.deepEqual(published.body.products[0].modifierGroups.map(rules), READ_RULES);
  });

  it('gives each type its defaults when no rule is sent', async () => {
    const v = await seeded({
      ingredients: INGREDIENTS,
      products: [
        {
          externalId: 'plain',
          name: 'Plain',
          priceMinor: 100,
          modifierGroups: [
            { name: 'Req', type: 'single_choice', options: [{ ingredientExternalId: 'white' }] },
            { name: 'Opt', type: 'single_choice', isRequired: false, options: [{ ingredientExternalId: 'white' }] },
            { name: 'Add', type: 'add_ingredients', options: [{ ingredientExternalId: 'cheese' }] },
            { name: 'Old', type: 'multiple_choice', options: [{ ingredientExternalId: 'cheese' }] },
            { name: 'Rem', type: 'remove_ingredients', options: [{ ingredientExternalId: 'onion' }] },
          ],
        },
      ],
    });
    const p = await product(v, 'plain');
    assert.deepEqual(p.modifierGroups.map(rules), [
      { type: 'single_choice', min: 1, max: 1, perOption: null },
      { type: 'single_choice', min: 0, max: 1, perOption: null },
      { type: 'add_ingredients', min: 0, max: null, perOption: null },
      { type: 'add_ingredients', min: 0, max: null, perOption: null },
      { type: 'remove_ingredients', min: 0, max: null, perOption: null },
    ]);
    assert.ok(p.modifierGroups.every((g: any) => g.options.every((o: any) => o.isDefault === false)));
  });

  it('replaces fixed values of single_choice and remove_ingredients with a warning, also when the item is skipped', async () => {
    const v = await createVenue(t.app);
    const body = {
      ingredients: INGREDIENTS,
      products: [
        {
          externalId: 'fixed',
          name: 'Fixed',
          priceMinor: 100,
          modifierGroups: [
            {
              name: 'Size',
              type: 'single_choice',
              isRequired: true,
              minSelections: 0,
              maxSelections: 3,
              options: [{ ingredientExternalId: 'white' }],
            },
            {
              name: 'Rem',
              type: 'remove_ingredients',
              minSelections: 2,
              maxSelections: 2,
              options: [{ ingredientExternalId: 'onion' }, { ingredientExternalId: 'pickles' }],
            },
          ],
        },
      ],
    };
    for (const expected of [
      { created: 1, updated: 0, skipped: 0 },
      { created: 0, updated: 0, skipped: 1 },
    ]) {
      const res = await syncOk(v, body);
      assert.deepEqual(counts(res.products), expected);
      assert.deepEqual(res.products.errors, []);
      const warnings = res.products.warnings.join('\n');
      assert.match(warnings, /Product fixed: modifier group 'Size': minSelections is always 1/);
      assert.match(warnings, /Product fixed: modifier group 'Size': maxSelections is always 1/);
      assert.match(warnings, /Product fixed: modifier group 'Rem': minSelections is always 0/);
      assert.equal(res.products.warnings.length, 3, warnings);
    }
    const p = await product(v, 'fixed');
    assert.deepEqual(p.modifierGroups.map(rules), [
      { type: 'single_choice', min: 1, max: 1, perOption: null },
      { type: 'remove_ingredients', min: 0, max: 2, perOption: null },
    ]);
  });

  it('sends no warning for fixed values sent as they are', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      ingredients: INGREDIENTS,
      products: [
        {
          externalId: 'same',
          name: 'Same',
          priceMinor: 100,
          modifierGroups: [
            {
              name: 'Size',
              type: 'single_choice',
              isRequired: false,
              minSelections: 0,
              maxSelections: 1,
              options: [{ ingredientExternalId: 'white' }],
            },
            { name: 'Rem', type: 'remove_ingredients', minSelections: 0, options: [{ ingredientExternalId: 'onion' }] },
          ],
        },
      ],
    });
    assert.deepEqual(res.products.warnings, []);
  });

  it('makes rules no order could meet a per-item error, and saves the other items', async () => {
    const v = await createVenue(t.app);
    const group = (extra: object) => ({
      name: 'G',
      type: 'add_ingredients',
      options: [{ ingredientExternalId: 'cheese' }, { ingredientExternalId: 'bacon' }],
      ...extra,
    });
    const res = await sync(v, {
      ingredients: INGREDIENTS,
      products: [
        { externalId: 'min-over-max', name: 'A', priceMinor: 100, modifierGroups: [group({ minSelections: 3, maxSelections: 2 })] },
        { externalId: 'over-options', name: 'B', priceMinor: 100, modifierGroups: [group({ minSelections: 3, maxQuantityPerOption: 1 })] },
        {
          externalId: 'skipped-option',
          name: 'C',
          priceMinor: 100,
          modifierGroups: [
            {
              name: 'G',
              type: 'add_ingredients',
              minSelections: 2,
              maxQuantityPerOption: 1,
              options: [{ ingredientExternalId: 'cheese' }, { ingredientExternalId: 'nowhere' }],
            },
          ],
        },
        {
          externalId: 'two-defaults',
          name: 'D',
          priceMinor: 100,
          modifierGroups: [
            {
              name: 'Size',
              type: 'single_choice',
              options: [
                { ingredientExternalId: 'white', isDefault: true },
                { ingredientExternalId: 'brioche', isDefault: true },
              ],
            },
          ],
        },
        { externalId: 'reachable', name: 'E', priceMinor: 100, modifierGroups: [group({ minSelections: 4, maxQuantityPerOption: 2 })] },
        { externalId: 'unlimited', name: 'F', priceMinor: 100, modifierGroups: [group({ minSelections: 50 })] },
      ],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    const errors = res.body.products.errors.join('\n');
    assert.equal(res.body.products.errors.length, 4, errors);
    assert.match(errors, /Product min-over-max: modifier group 'G': minSelections 3 is greater than maxSelections 2/);
    assert.match(errors, /Product over-options: modifier group 'G': minSelections 3 is more than/);
    assert.match(errors, /Product skipped-option: modifier group 'G': minSelections 2 is more than its 1 option/);
    assert.match(errors, /Product two-defaults: modifier group 'Size': at most one option/);
    assert.equal(res.body.products.created, 2);
    const list = (await draft(v)).products.map((p: any) => p.externalId).sort();
    assert.deepEqual(list, ['reachable', 'unlimited']);
  });

  it('still warns of a replaced value on an item that fails', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      ingredients: INGREDIENTS,
      products: [
        {
          externalId: 'both',
          name: 'Both',
          priceMinor: 100,
          modifierGroups: [
            {
              name: 'Size',
              type: 'single_choice',
              maxSelections: 3,
              options: [
                { ingredientExternalId: 'white', isDefault: true },
                { ingredientExternalId: 'brioche', isDefault: true },
              ],
            },
          ],
        },
      ],
    });
    assert.equal(res.products.errors.length, 1);
    assert.match(res.products.warnings.join('\n'), /Product both: modifier group 'Size': maxSelections is always 1/);
  });

  it('keeps a required single_choice whose options were all skipped, with the warning', async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, {
      products: [
        {
          externalId: 'p',
          name: 'P',
          priceMinor: 100,
          modifierGroups: [{ name: 'Size', type: 'single_choice', options: [{ ingredientExternalId: 'nowhere' }] }],
        },
      ],
    });
    assert.deepEqual([res.products.created, res.products.errors], [1, []]);
    assert.match(res.products.warnings.join('\n'), /nowhere/);
  });

  it('answers 400 for rule values out of range, with nothing written', async () => {
    const v = await createVenue(t.app);
    const bad = [
      { minSelections: 51 },
      { minSelections: -1 },
      { maxSelections: 0 },
      { maxSelections: 51 },
      { maxQuantityPerOption: 0 },
      { maxQuantityPerOption: 100 },
      { minSelections: 1.5 },
      { maxSelections: '2' },
    ];
    for (const extra of bad) {
      const res = await sync(v, { ingredients: INGREDIENTS, products: [{ ...BURGER, modifierGroups: [{ ...SAUCES, ...extra }] }] });
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.body.message, 'Validation failed');
    }
    const option = await sync(v, {
      ingredients: INGREDIENTS,
      products: [{ ...BURGER, modifierGroups: [{ ...BUN, options: [{ ingredientExternalId: 'white', isDefault: 'yes' }] }] }],
    });
    assert.equal(option.status, 400);
    assert.deepEqual((await draft(v)).products, []);
  });

  it('replaces the groups wholesale: the same rules keep the ids, changed rules make new groups, omitted rules fall back', async () => {
    const v = await seeded();
    const before = await product(v, 'burger');
    assert.deepEqual(counts((await syncOk(v, MENU)).products), { created: 0, updated: 0, skipped: 1 });
    const changed = await syncOk(v, {
      products: [{ ...BURGER, modifierGroups: [BUN, { ...SAUCES, maxSelections: 4 }, TOPPINGS, REMOVE] }],
    });
    assert.deepEqual(counts(changed.products), { created: 0, updated: 1, skipped: 0 });
    const after = await product(v, 'burger');
    assert.equal(after.modifierGroups[1].maxSelections, 4);
    assert.notEqual(after.modifierGroups[1].id, before.modifierGroups[1].id);

    const { minSelections: _min, maxSelections: _max, ...noRules } = SAUCES;
    await syncOk(v, { products: [{ ...BURGER, modifierGroups: [noRules] }] });
    const bare = await product(v, 'burger');
    assert.deepEqual(bare.modifierGroups.map(rules), [{ type: 'add_ingredients', min: 0, max: null, perOption: null }]);
  });

  it('shows the rules on the guest menu, and snapshots keep the rules that were published', async () => {
    const v = await seeded();
    await publish(t.app, v);
    await syncOk(v, { products: [{ ...BURGER, modifierGroups: [BUN, { ...SAUCES, minSelections: 1 }, TOPPINGS, REMOVE] }] });
    const guest = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    expectStatus(guest, 200);
    const groups = guest.body.products[0].modifierGroups;
    assert.deepEqual(groups.map(rules), READ_RULES);
    assert.deepEqual(
      groups[0].options.map((o: any) => o.isDefault),
      [false, true],
    );
  });
});

describe('guest orders against the rules', () => {
  async function venue(): Promise<{ v: VenueFixture; ids: MenuIds; burger: string; opt: Record<string, string> }> {
    const v = await createVenue(t.app);
    const ids = await setUpOrderMenu(t.app, v, { menu: MENU });
    const o = ids.options.burger;
    return { v, ids, burger: ids.productIds.burger, opt: { ...o.Bun, ...o.Sauces, ...o.Toppings, ...o.Remove } };
  }
  const order = (line: object) => ({
    type: 'pickup',
    paymentMethod: 'cash',
    customerName: 'Ada',
    customerPhone: '+380501234567',
    items: [line],
  });

  async function rejected(slug: string, line: object): Promise<string[]> {
    const res = await placeOrder(t.app, slug, order(line));
    expectStatus(res, 400);
    assert.equal(res.body.message, 'Validation failed');
    return res.body.errors;
  }

  it('accepts an order that meets every rule and prices the quantities', async () => {
    const { v, burger, opt } = await venue();
    const created = await createOrder(
      t.app,
      v.slug,
      order({
        productId: burger,
        quantity: 2,
        modifiers: [
          { optionId: opt.brioche },
          { optionId: opt.ketchup },
          { optionId: opt.bbq },
          { optionId: opt.cheese, quantity: 2 },
          { optionId: opt.bacon, quantity: 2 },
          { optionId: opt.onion },
        ],
      }),
    );
    // 1000 + brioche 150 + bbq 50 + cheese 2 x 100 + bacon 2 x 200
    assert.equal(created.items[0].unitPrice, 1800);
    assert.equal(created.items[0].totalPrice, 3600);
    assert.deepEqual(created.items[0].modifiers.find((m: any) => m.ingredientName === 'Cheese').quantity, 2);
  });

  it('names the product, the group and the rule of each breach', async () => {
    const { v, burger, opt } = await venue();
    assert.deepEqual(
      await rejected(v.slug, { productId: burger, quantity: 1, modifiers: [{ optionId: opt.white }, { optionId: opt.ketchup }] }),
      ['items[0].modifiers: Burger / Sauces: choose at least 2 (got 1)'],
    );
    assert.deepEqual(
      await rejected(v.slug, {
        productId: burger,
        quantity: 1,
        modifiers: [
          { optionId: opt.white },
          { optionId: opt.ketchup },
          { optionId: opt.mayo },
          { optionId: opt.mustard },
          { optionId: opt.bbq },
        ],
      }),
      ['items[0].modifiers: Burger / Sauces: choose at most 3 (got 4)'],
    );
    // Quantities count: two sauces as one option taken twice meet the minimum.
    const twice = await placeOrder(
      t.app,
      v.slug,
      order({ productId: burger, quantity: 1, modifiers: [{ optionId: opt.white }, { optionId: opt.ketchup, quantity: 2 }] }),
    );
    expectStatus(twice, 201);
    const toppings = await rejected(v.slug, {
      productId: burger,
      quantity: 1,
      modifiers: [
        { optionId: opt.white },
        { optionId: opt.ketchup },
        { optionId: opt.mayo },
        { optionId: opt.cheese, quantity: 3 },
        { optionId: opt.bacon, quantity: 2 },
      ],
    });
    assert.deepEqual(toppings, [
      'items[0].modifiers: Burger / Toppings: choose at most 4 (got 5)',
      "items[0].modifiers: Burger / Toppings: 'Cheese' at most 2 time(s) (got 3)",
    ]);
    // The same option listed twice is summed.
    const split = await rejected(v.slug, {
      productId: burger,
      quantity: 1,
      modifiers: [
        { optionId: opt.white },
        { optionId: opt.ketchup },
        { optionId: opt.mayo },
        { optionId: opt.bacon, quantity: 2 },
        { optionId: opt.bacon },
      ],
    });
    assert.deepEqual(split, ["items[0].modifiers: Burger / Toppings: 'Bacon' at most 2 time(s) (got 3)"]);
  });

  it('counts a single_choice option taken twice, a missing required choice and too many removals as breaches', async () => {
    const { v, burger, opt } = await venue();
    const sauces = [{ optionId: opt.ketchup }, { optionId: opt.mayo }];
    assert.deepEqual(
      await rejected(v.slug, { productId: burger, quantity: 1, modifiers: [{ optionId: opt.white, quantity: 2 }, ...sauces] }),
      ['items[0].modifiers: Burger / Bun: choose at most 1 (got 2)'],
    );
    assert.deepEqual(await rejected(v.slug, { productId: burger, quantity: 1, modifiers: sauces }), [
      'items[0].modifiers: Burger / Bun: choose at least 1 (got 0)',
    ]);
    assert.deepEqual(
      await rejected(v.slug, {
        productId: burger,
        quantity: 1,
        modifiers: [{ optionId: opt.white }, ...sauces, { optionId: opt.onion }, { optionId: opt.pickles }],
      }),
      ['items[0].modifiers: Burger / Remove: choose at most 1 (got 2)'],
    );
  });

  it('checks orders against the published rules, not the draft', async () => {
    const { v, burger, opt } = await venue();
    await syncOk(v, { products: [{ ...BURGER, modifierGroups: [BUN, { ...SAUCES, minSelections: 0 }, TOPPINGS, REMOVE] }] });
    const line = { productId: burger, quantity: 1, modifiers: [{ optionId: opt.white }] };
    assert.deepEqual(await rejected(v.slug, line), ['items[0].modifiers: Burger / Sauces: choose at least 2 (got 0)']);
    await publish(t.app, v);
    const fresh = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    const groups = fresh.body.products[0].modifierGroups;
    const white = groups[0].options[0].id;
    expectStatus(await placeOrder(t.app, v.slug, order({ productId: burger, quantity: 1, modifiers: [{ optionId: white }] })), 201);
  });
});

describe('availability against the rules', () => {
  it('makes a dish unavailable while its available options cannot give minSelections, until enough come back', async () => {
    const v = await seeded({
      ingredients: INGREDIENTS,
      products: [{ ...BURGER, modifierGroups: [{ ...SAUCES, maxQuantityPerOption: 1, options: SAUCES.options.slice(0, 3) }] }],
    });
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const mark = (ingredients: object[]) => call(t.app, 'PUT', '/v1/availability', { key: v.key, body: { ingredients } });
    expectStatus(await mark([{ ref: 'ketchup', available: false, until: later }]), 200);
    assert.equal((await product(v, 'burger')).availability.available, true, 'two sauces left meet the minimum of 2');
    expectStatus(await mark([{ ref: 'mayo', available: false, until: soon }]), 200);
    const p = await product(v, 'burger');
    assert.deepEqual(p.availability, { available: false, until: new Date(soon).toISOString(), reason: 'required_choice_unavailable' });
  });
});
