import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { BASE, counts, syncCalls } from '../helpers/sync.js';

// POST /v1/sync creates, updates and skips by externalId, and a cleaned-up
// product synced again is restored as an update.
// Every test makes its own venue, so none depends on another's data.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const { syncOk, product, usage } = syncCalls(() => t.app);

describe('POST /v1/sync: create, update, skip', () => {
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
      categories: [
        { externalId: 'c1', name: 'Pizzas' },
        { externalId: 'c2', name: 'Drinks' },
      ],
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

describe('POST /v1/sync: cleaned-up and hidden products', () => {
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
