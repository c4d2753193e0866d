import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, assertError, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { burgerLine, orderBody, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

// Promotions and what they do to what guests see and pay: live, by their
// schedule in the venue timezone, the lowest price winning, the saving as the order's discount.

let t: TestApp;
let now = Date.parse('2026-11-23T12:00:00Z');
before(async () => {
  t = await startApp({}, undefined, { clock: () => now });
});
after(() => t.close());

async function setUp(): Promise<{ v: VenueFixture; ids: MenuIds }> {
  const v = await createVenue(t.app);
  return { v, ids: await setUpOrderMenu(t.app, v) };
}

async function promotion(v: VenueFixture, body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', '/v1/promotions', { key: v.key, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function item(v: VenueFixture, promotionId: string, body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', `/v1/promotions/${promotionId}/items`, { key: v.key, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const guestMenu = async (v: VenueFixture) => (await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`)).body;

describe('promotions CRUD and items', () => {
  it('creates, reads with items, patches with If-Match, lists, deletes; items by product ref', async () => {
    const { v, ids } = await setUp();
    const p = await promotion(v, { name: 'Happy hour', description: 'Cheaper fries', externalId: 'hh' });
    assert.deepEqual([p.isActive, p.sortOrder, p.startsAt, p.endsAt, p.items], [true, 0, null, null, []]);
    const fries = await item(v, p.id, { productRef: 'fries', promoPriceMinor: 300 });
    assert.deepEqual(
      {
        productId: fries.productId,
        productExternalId: fries.productExternalId,
        productName: fries.productName,
        promoPriceMinor: fries.promoPriceMinor,
        sortOrder: fries.sortOrder,
      },
      { productId: ids.productIds.fries, productExternalId: 'fries', productName: 'Fries', promoPriceMinor: 300, sortOrder: 0 },
    );
    await item(v, p.id, { productRef: ids.productIds.soda, sortOrder: 5 });
    const read = await call(t.app, 'GET', `/v1/promotions/${p.id}`, { key: v.key });
    assert.deepEqual(
      read.body.items.map((i: any) => i.productExternalId),
      ['fries', 'soda'],
    );
    assert.equal((await call(t.app, 'GET', `/v1/promotions/${p.id}/items`, { key: v.key })).body.total, 2);
    const one = await call(t.app, 'GET', `/v1/promotions/${p.id}/items/${fries.id}`, { key: v.key });
    assert.equal(one.status, 200);

    const patched = await call(t.app, 'PATCH', `/v1/promotions/${p.id}`, {
      key: v.key,
      body: { name: 'Happier hour', description: null },
      headers: { 'if-match': read.headers.etag as string },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual([patched.body.name, patched.body.description], ['Happier hour', null]);
    assertError(
      await call(t.app, 'PATCH', `/v1/promotions/${p.id}`, {
        key: v.key,
        body: { name: 'x' },
        headers: { 'if-match': read.headers.etag as string },
      }),
      412,
      'STALE_RESOURCE',
    );

    const itemPatch = await call(t.app, 'PATCH', `/v1/promotions/${p.id}/items/${fries.id}`, {
      key: v.key,
      body: { promoPriceMinor: 250 },
      headers: { 'if-match': one.headers.etag as string },
    });
    assert.equal(itemPatch.status, 200, JSON.stringify(itemPatch.body));
    assert.equal(itemPatch.body.promoPriceMinor, 250);
    assertError(
      await call(t.app, 'PATCH', `/v1/promotions/${p.id}/items/${fries.id}`, {
        key: v.key,
        body: { sortOrder: 1 },
        headers: { 'if-match': one.headers.etag as string },
      }),
      412,
      'STALE_RESOURCE',
    );

    const removed = await call(t.app, 'DELETE', `/v1/promotions/${p.id}/items/${fries.id}`, { key: v.key });
    assert.deepEqual(removed.body, { id: fries.id, deleted: true });
    assertError(await call(t.app, 'DELETE', `/v1/promotions/${p.id}/items/${fries.id}`, { key: v.key }), 404, 'PROMOTION_ITEM_NOT_FOUND');

    const list = await call(t.app, 'GET', '/v1/promotions', { key: v.key });
    assert.equal(list.body.total, 1);
    const del = await call(t.app, 'DELETE', `/v1/promotions/${p.id}`, { key: v.key });
    assert.deepEqual(del.body, { id: p.id, deleted: true });
    assertError(await call(t.app, 'GET', `/v1/promotions/${p.id}`, { key: v.key }), 404, 'PROMOTION_NOT_FOUND');
    assertError(await call(t.app, 'GET', `/v1/promotions/${p.id}/items`, { key: v.key }), 404, 'PROMOTION_NOT_FOUND');

    const actions = (await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: v.key })).body.items
      .map((e: any) => e.action)
      .filter((a: string) => a.startsWith('promotion'));
    assert.deepEqual(actions, [
      'promotion.delete',
      'promotion.item_remove',
      'promotion.item_update',
      'promotion.update',
      'promotion.item_add',
      'promotion.item_add',
      'promotion.create',
    ]);
  });

  it('refuses a product twice (409 DUPLICATE_PROMOTION_ITEM, even at once), an unknown product (404), a taken externalId (409)', async () => {
    const { v } = await setUp();
    const p = await promotion(v, { name: 'Deal', externalId: 'deal' });
    assertError(
      await call(t.app, 'POST', '/v1/promotions', { key: v.key, body: { name: 'Other', externalId: 'deal' } }),
      409,
      'EXTERNAL_ID_ALREADY_EXISTS',
    );
    assertError(
      await call(t.app, 'POST', `/v1/promotions/${p.id}/items`, { key: v.key, body: { productRef: 'nope' } }),
      404,
      'PRODUCT_NOT_FOUND',
    );
    const both = await Promise.all(
      [1, 2, 3].map(() =>
        call(t.app, 'POST', `/v1/promotions/${p.id}/items`, { key: v.key, body: { productRef: 'fries', promoPriceMinor: 1 } }),
      ),
    );
    assert.deepEqual(both.map((r) => r.status).sort(), [201, 409, 409]);
    assert.ok(both.filter((r) => r.status === 409).every((r) => r.body.code === 'DUPLICATE_PROMOTION_ITEM'));
    assertError(
      await call(t.app, 'POST', '/v1/promotions/00000000-0000-7000-8000-000000000000/items', { key: v.key, body: { productRef: 'fries' } }),
      404,
      'PROMOTION_NOT_FOUND',
    );
    for (const body of [{}, { productRef: 'fries', promoPriceMinor: -1 }, { productRef: 'fries', extra: 1 }]) {
      assertError(await call(t.app, 'POST', `/v1/promotions/${p.id}/items`, { key: v.key, body }), 400);
    }
  });

  it('drops a deleted product from every promotion', async () => {
    const { v } = await setUp();
    const p = await promotion(v, { name: 'Deal' });
    await item(v, p.id, { productRef: 'soda', promoPriceMinor: 100 });
    assert.equal((await call(t.app, 'DELETE', '/v1/products/soda', { key: v.key })).status, 200);
    assert.deepEqual((await call(t.app, 'GET', `/v1/promotions/${p.id}`, { key: v.key })).body.items, []);
  });

  it('refuses writes with a read-only key, and keeps the sandbox apart', async () => {
    const { v } = await setUp();
    const p = await promotion(v, { name: 'Deal' });
    const readOnly = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true })).body.key;
    for (const [method, url, body] of [
      ['POST', '/v1/promotions', { name: 'x' }],
      ['PATCH', `/v1/promotions/${p.id}`, { name: 'x' }],
      ['DELETE', `/v1/promotions/${p.id}`, undefined],
      ['POST', `/v1/promotions/${p.id}/items`, { productRef: 'fries' }],
    ] as const) {
      assertError(await call(t.app, method, url, { key: readOnly, body }), 403, 'READ_ONLY_KEY');
    }
    const test = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' })).body.key;
    assertError(await call(t.app, 'GET', `/v1/promotions/${p.id}`, { key: test }), 404, 'PROMOTION_NOT_FOUND');
  });
});

describe('what guests see and pay', () => {
  it('prices an order at the promotional price, the saving as discountAmount, end to end through the Orders API', async () => {
    const { v, ids } = await setUp();
    const p = await promotion(v, { name: 'Burger week' });
    await item(v, p.id, { productRef: 'burger', promoPriceMinor: 800 });
    // Live at once: no publish after the promotion.
    const menu = await guestMenu(v);
    const burger = menu.products.find((x: any) => x.name === 'Burger');
    assert.deepEqual([burger.effectivePriceMinor, burger.promoPriceMinor, burger.promotionId], [1000, 800, p.id]);
    assert.deepEqual(menu.promotions, [{ id: p.id, name: 'Burger week', description: null, productIds: [burger.id] }]);
    assert.equal(menu.products.find((x: any) => x.name === 'Fries').promoPriceMinor, null);

    // 2 burgers with brioche (+150) and 1 fries (400): regular 2 x 1150 + 400 = 2700, saving 2 x 200.
    const placed = await call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, {
      body: orderBody(ids, { items: [burgerLine(ids, 2, [], 'bun-brioche'), { productId: ids.productIds.fries, quantity: 1 }] }),
    });
    assert.equal(placed.status, 201, JSON.stringify(placed.body));
    const order = (await call(t.app, 'GET', `/v1/orders/${placed.body.id}`, { key: v.key })).body;
    assert.deepEqual([order.subtotalAmount, order.discountAmount, order.deliveryFee, order.totalAmount], [2700, 400, 0, 2300]);
    assert.equal(order.totalAmount, order.subtotalAmount + order.deliveryFee - order.discountAmount);
    assert.deepEqual(
      order.items.map((i: any) => [i.productName, i.unitPrice, i.totalPrice]),
      [
        ['Burger', 1150, 2300],
        ['Fries', 400, 400],
      ],
    );
  });

  it('takes the lowest live price when two promotions hold a product, and never raises a price', async () => {
    const { v, ids } = await setUp();
    const a = await promotion(v, { name: 'A' });
    const b = await promotion(v, { name: 'B' });
    await item(v, a.id, { productRef: 'burger', promoPriceMinor: 900 });
    await item(v, b.id, { productRef: 'burger', promoPriceMinor: 700 });
    await item(v, a.id, { productRef: 'fries', promoPriceMinor: 450 }); // above its 400 sale price: no effect
    await item(v, b.id, { productRef: 'soda' }); // no price: shown in B, price unchanged
    const menu = await guestMenu(v);
    const byName = (name: string) => menu.products.find((x: any) => x.name === name);
    assert.deepEqual([byName('Burger').promoPriceMinor, byName('Burger').promotionId], [700, b.id]);
    assert.equal(byName('Fries').promoPriceMinor, null);
    assert.equal(byName('Soda').promoPriceMinor, null);
    assert.deepEqual(menu.promotions.find((x: any) => x.id === b.id).productIds, [byName('Burger').id, byName('Soda').id]);
    const placed = await call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, {
      body: orderBody(ids, { items: [burgerLine(ids, 1), { productId: ids.productIds.fries, quantity: 1 }] }),
    });
    assert.deepEqual([placed.body.subtotalAmount, placed.body.discountAmount, placed.body.totalAmount], [1400, 300, 1100]);
  });

  it('ignores inactive promotions and those outside their window, which open and close by the clock', async () => {
    const { v, ids } = await setUp();
    const off = await promotion(v, { name: 'Off', isActive: false });
    await item(v, off.id, { productRef: 'burger', promoPriceMinor: 100 });
    const evening = await promotion(v, { name: 'Evening', startsAt: '2026-11-23T18:00', endsAt: '2026-11-23T20:00' });
    await item(v, evening.id, { productRef: 'burger', promoPriceMinor: 600 });
    const order = async () =>
      (await call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, { body: orderBody(ids, { items: [burgerLine(ids, 1)] }) })).body;

    now = Date.parse('2026-11-23T17:59:59Z');
    assert.equal((await guestMenu(v)).products.find((x: any) => x.name === 'Burger').promoPriceMinor, null);
    assert.equal((await order()).discountAmount, 0);
    now = Date.parse('2026-11-23T18:00:00Z');
    assert.equal((await guestMenu(v)).products.find((x: any) => x.name === 'Burger').promoPriceMinor, 600);
    assert.equal((await order()).discountAmount, 400);
    now = Date.parse('2026-11-23T20:00:00Z');
    assert.equal((await order()).discountAmount, 0);
    assert.deepEqual((await guestMenu(v)).promotions, []);
    now = Date.parse('2026-11-23T12:00:00Z');
  });

  it('follows the venue timezone across a DST change', async () => {
    const { v, ids } = await setUp();
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: 'Europe/London' } })).status, 200);
    // Breakfast 06:00-11:00 local on the night the clocks go forward (BST from 01:00 UTC).
    const p = await promotion(v, { name: 'Breakfast', startsAt: '2026-03-29T06:00', endsAt: '2026-03-29T11:00' });
    await item(v, p.id, { productRef: 'fries', promoPriceMinor: 100 });
    const fries = async () => (await guestMenu(v)).products.find((x: any) => x.name === 'Fries').promoPriceMinor;
    now = Date.parse('2026-03-29T04:59:59Z');
    assert.equal(await fries(), null);
    now = Date.parse('2026-03-29T05:00:00Z'); // 06:00 BST
    assert.equal(await fries(), 100);
    const placed = await call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, { body: orderBody(ids) });
    assert.equal(placed.body.discountAmount, 300);
    now = Date.parse('2026-03-29T10:00:00Z'); // 11:00 BST
    assert.equal(await fries(), null);
    now = Date.parse('2026-11-23T12:00:00Z');
  });
});
