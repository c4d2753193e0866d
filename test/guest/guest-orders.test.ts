import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import {
  burgerLine,
  createOrder,
  expectStatus,
  orderBody,
  patchOrderConfig,
  placeOrder,
  publish,
  readMenuIds,
  setUpOrderMenu,
  type MenuIds,
} from '../helpers/orders.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// The keys of an Order, tableId and the Orders API's allowedTransitions included.
const ORDER_KEYS = [
  'allowedTransitions',
  'changeFromAmount',
  'comment',
  'completedAt',
  'confirmedAt',
  'createdAt',
  'currency',
  'customerEmail',
  'customerName',
  'customerPhone',
  'deliveryAddress',
  'deliveryFee',
  'deliveryNotes',
  'discountAmount',
  'id',
  'items',
  'orderNumber',
  'paymentMethod',
  'scheduledFor',
  'status',
  'subtotalAmount',
  'tableId',
  'tableName',
  'totalAmount',
  'type',
  'updatedAt',
];

// POST /guest/v1/venues/:slug/orders.
describe('guest order placement', () => {
  let t: TestApp;
  before(async () => {
    // Scheduled orders are judged against this clock: the orders below are for 2030-01-01.
    t = await startApp({}, undefined, { clock: () => Date.parse('2029-12-31T12:00:00Z') });
  });
  after(() => t.close());

  async function venueWithMenu(options: Parameters<typeof setUpOrderMenu>[2] = {}): Promise<{ v: VenueFixture; ids: MenuIds }> {
    const v = await createVenue(t.app);
    const ids = await setUpOrderMenu(t.app, v, options);
    return { v, ids };
  }

  async function listOrders(v: VenueFixture) {
    const res = await call(t.app, 'GET', '/v1/orders?limit=100', { key: v.key });
    expectStatus(res, 200);
    return res.body;
  }

  // Counted in the database: the Orders API is closed to free-plan venues.
  async function storedOrders(v: VenueFixture): Promise<number> {
    const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from orders where venue_id = $1', [v.id]);
    return rows[0].n;
  }

  /** 400 Validation failed with an errors[] entry matching each pattern; nothing is created. */
  async function expectRejected(v: VenueFixture, body: unknown, ...patterns: RegExp[]) {
    const res = await placeOrder(t.app, v.slug, body);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.message, 'Validation failed');
    assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, JSON.stringify(res.body));
    for (const pattern of patterns) {
      assert.ok(
        res.body.errors.some((e: string) => pattern.test(e)),
        `no error matches ${pattern}: ${JSON.stringify(res.body.errors)}`,
      );
    }
    assert.equal(await storedOrders(v), 0, 'a rejected order is not stored');
    return res.body.errors as string[];
  }

  describe('the created order', () => {
    it('answers 201 with the whole Order: status new, createdAt equal to updatedAt, UTC timestamps', async () => {
      const { v, ids } = await venueWithMenu();
      const res = await placeOrder(
        t.app,
        v.slug,
        orderBody(ids, {
          customerEmail: 'ada@example.com',
          comment: 'No salt',
          changeFromAmount: 1000,
          scheduledFor: '2030-01-01T20:00:00+02:00',
        }),
      );
      expectStatus(res, 201);
      const o = res.body;
      assert.deepEqual(Object.keys(o).sort(), ORDER_KEYS);
      assert.equal(typeof o.id, 'string');
      assert.equal(typeof o.orderNumber, 'string');
      assert.equal(o.status, 'new');
      assert.deepEqual(o.allowedTransitions, ['confirmed', 'cancelled']);
      assert.equal(o.type, 'pickup');
      assert.equal(o.paymentMethod, 'cash');
      assert.equal(o.customerName, 'Ada');
      assert.equal(o.customerPhone, '+380501234567');
      assert.equal(o.customerEmail, 'ada@example.com');
      assert.equal(o.comment, 'No salt');
      assert.equal(o.changeFromAmount, 1000);
      assert.equal(o.deliveryAddress, null);
      assert.equal(o.deliveryNotes, null);
      assert.equal(o.tableId, null);
      assert.equal(o.scheduledFor, '2030-01-01T18:00:00.000Z');
      assert.equal(o.currency, 'EUR');
      assert.match(o.createdAt, ISO_UTC);
      assert.equal(o.updatedAt, o.createdAt);
      assert.equal(o.confirmedAt, null);
      assert.equal(o.completedAt, null);
      assert.deepEqual(o.items, [
        { productExternalId: 'fries', productName: 'Fries', quantity: 1, unitPrice: 400, totalPrice: 400, modifiers: [] },
      ]);
      assert.deepEqual([o.subtotalAmount, o.deliveryFee, o.discountAmount, o.totalAmount], [400, 0, 0, 400]);

      // The Orders API returns the same order.
      const read = await call(t.app, 'GET', `/v1/orders/${o.id}`, { key: v.key });
      expectStatus(read, 200);
      assert.deepEqual(read.body, o);
    });

    it('numbers orders per venue', async () => {
      const { v, ids } = await venueWithMenu();
      const a = await createOrder(t.app, v.slug, orderBody(ids));
      const b = await createOrder(t.app, v.slug, orderBody(ids));
      assert.notEqual(a.id, b.id);
      assert.notEqual(a.orderNumber, b.orderNumber);
      assert.ok(b.createdAt > a.createdAt, 'a later order has a later createdAt');
    });

    it('prices every line on the server: effective price plus modifier adjustments times their quantity', async () => {
      const { v, ids } = await venueWithMenu();
      const burger = ids.options.burger;
      const o = await createOrder(
        t.app,
        v.slug,
        orderBody(ids, {
          items: [
            burgerLine(
              ids,
              2,
              [{ optionId: burger.Extras.cheese, quantity: 2 }, { optionId: burger.Extras.bacon }, { optionId: burger.Remove.onion }],
              'bun-brioche',
            ),
            { productId: ids.productIds.fries, quantity: 3 },
            { productId: ids.productIds.soda, quantity: 1, modifiers: [{ optionId: ids.options.soda.Size.large }] },
          ],
        }),
      );
      // burger: 1000 + 150 (brioche) + 2 x 100 (cheese) + 200 (bacon) + 0 (no onion) = 1550, x2 = 3100
      // fries: sale price 400 x3 = 1200; soda: 300 (sale inactive) + 100 (large) = 400
      assert.deepEqual(
        o.items.map((i: any) => [i.productName, i.quantity, i.unitPrice, i.totalPrice]),
        [
          ['Burger', 2, 1550, 3100],
          ['Fries', 3, 400, 1200],
          ['Soda', 1, 400, 400],
        ],
      );
      assert.deepEqual(o.items[0].modifiers, [
        { groupName: 'Bun', ingredientExternalId: 'bun-brioche', ingredientName: 'Brioche bun', priceAdjustment: 150, quantity: 1 },
        { groupName: 'Extras', ingredientExternalId: 'cheese', ingredientName: 'Cheese', priceAdjustment: 100, quantity: 2 },
        { groupName: 'Extras', ingredientExternalId: 'bacon', ingredientName: 'Bacon', priceAdjustment: 200, quantity: 1 },
        { groupName: 'Remove', ingredientExternalId: 'onion', ingredientName: 'Onion', priceAdjustment: 0, quantity: 1 },
      ]);
      assert.deepEqual([o.subtotalAmount, o.deliveryFee, o.discountAmount, o.totalAmount], [4700, 0, 0, 4700]);
    });

    it('applies a negative price adjustment', async () => {
      const v = await createVenue(t.app);
      const menu = {
        ingredients: [{ externalId: 'half', name: 'Half portion' }],
        products: [
          {
            externalId: 'soup',
            name: 'Soup',
            priceMinor: 800,
            modifierGroups: [{ name: 'Size', type: 'single_choice', options: [{ ingredientExternalId: 'half', priceAdjustment: -300 }] }],
          },
        ],
      };
      const ids = await setUpOrderMenu(t.app, v, { menu, orderConfig: null });
      const o = await createOrder(
        t.app,
        v.slug,
        orderBody(ids, {
          items: [{ productId: ids.productIds.soup, quantity: 2, modifiers: [{ optionId: ids.options.soup.Size.half }] }],
        }),
      );
      assert.deepEqual([o.items[0].unitPrice, o.items[0].totalPrice, o.totalAmount], [500, 1000, 1000]);
    });

    it('charges the delivery fee on delivery orders below freeDeliveryFromMinor only', async () => {
      const { v, ids } = await venueWithMenu(); // fee 250, free from 5000
      const delivery = { type: 'delivery', deliveryAddress: '1 Main St', deliveryNotes: 'Ring twice' };

      const below = await createOrder(
        t.app,
        v.slug,
        orderBody(ids, {
          ...delivery,
          items: [burgerLine(ids, 4), { productId: ids.productIds.fries, quantity: 2 }],
        }),
      );
      assert.deepEqual([below.subtotalAmount, below.deliveryFee, below.discountAmount, below.totalAmount], [4800, 250, 0, 5050]);
      assert.equal(below.deliveryAddress, '1 Main St');
      assert.equal(below.deliveryNotes, 'Ring twice');

      const at = await createOrder(t.app, v.slug, orderBody(ids, { ...delivery, items: [burgerLine(ids, 5)] }));
      assert.deepEqual([at.subtotalAmount, at.deliveryFee, at.totalAmount], [5000, 0, 5000]);

      // Pickup and dine-in never pay it.
      for (const type of ['pickup', 'dine_in']) {
        const o = await createOrder(t.app, v.slug, orderBody(ids, { type, items: [burgerLine(ids, 1)] }));
        assert.deepEqual([o.type, o.deliveryFee, o.totalAmount], [type, 0, 1000]);
      }

      // No threshold: always charged.
      await patchOrderConfig(t.app, v, { freeDeliveryFromMinor: null });
      const big = await createOrder(t.app, v.slug, orderBody(ids, { ...delivery, items: [burgerLine(ids, 10)] }));
      assert.deepEqual([big.subtotalAmount, big.deliveryFee, big.totalAmount], [10000, 250, 10250]);
    });

    it('uses only the server price: a client-sent price is an unknown property', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(
        v,
        orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 1, unitPrice: 1 }] }),
        /items\[0\]\.unitPrice is not allowed/,
      );
      await expectRejected(v, orderBody(ids, { totalAmount: 1 }), /totalAmount is not allowed/);
    });

    it('copies names into the order: a renamed and republished menu leaves old orders as they were', async () => {
      const { v, ids } = await venueWithMenu();
      const line = burgerLine(ids, 1, [{ optionId: ids.options.burger.Extras.cheese }]);
      const old = await createOrder(t.app, v.slug, orderBody(ids, { items: [line] }));

      const sync = await call(t.app, 'POST', '/v1/sync', {
        key: v.key,
        body: {
          ingredients: [{ externalId: 'cheese', name: 'Cheddar' }],
          products: [
            {
              externalId: 'burger',
              name: 'Burger Deluxe',
              priceMinor: 1300,
              modifierGroups: [
                { name: 'Bread', type: 'single_choice', options: [{ ingredientExternalId: 'bun-white' }] },
                { name: 'Toppings', type: 'add_ingredients', options: [{ ingredientExternalId: 'cheese', priceAdjustment: 120 }] },
              ],
            },
          ],
        },
      });
      expectStatus(sync, 201);
      await publish(t.app, v);

      const reread = await call(t.app, 'GET', `/v1/orders/${old.id}`, { key: v.key });
      expectStatus(reread, 200);
      assert.deepEqual(reread.body.items, old.items);
      assert.equal(reread.body.items[0].productName, 'Burger');
      assert.deepEqual(
        reread.body.items[0].modifiers.map((m: any) => [m.groupName, m.ingredientName, m.priceAdjustment]),
        [
          ['Bun', 'White bun', 0],
          ['Extras', 'Cheese', 100],
        ],
      );

      // The old option ids are gone with the replaced groups; a new order uses the new menu.
      const fresh = await readMenuIds(t.app, v, v.slug);
      const current = await createOrder(
        t.app,
        v.slug,
        orderBody(fresh, {
          items: [
            {
              productId: fresh.productIds.burger,
              quantity: 1,
              modifiers: [{ optionId: fresh.options.burger.Bread['bun-white'] }, { optionId: fresh.options.burger.Toppings.cheese }],
            },
          ],
        }),
      );
      assert.equal(current.items[0].productName, 'Burger Deluxe');
      assert.equal(current.items[0].unitPrice, 1420);
      assert.deepEqual(
        current.items[0].modifiers.map((m: any) => [m.groupName, m.ingredientName]),
        [
          ['Bread', 'White bun'],
          ['Toppings', 'Cheddar'],
        ],
      );
    });

    it("freezes the venue's currency into the order", async () => {
      const v = await createVenue(t.app, { currency: 'UAH' });
      const ids = await setUpOrderMenu(t.app, v, { orderConfig: null });
      const o = await createOrder(t.app, v.slug, orderBody(ids));
      assert.equal(o.currency, 'UAH');
      // No API changes a venue's currency; change it underneath to show the order keeps its own.
      await t.database.db.query(`update venues set currency = 'USD' where id = $1`, [v.id]);
      const reread = await call(t.app, 'GET', `/v1/orders/${o.id}`, { key: v.key });
      assert.equal(reread.body.currency, 'UAH');
    });
  });

  describe('validation (400 Validation failed with errors[])', () => {
    it('rejects an unknown product', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(v, orderBody(ids, { items: [{ productId: randomUUID(), quantity: 1 }] }), /^items\[0\]/);
      await expectRejected(v, orderBody(ids, { items: [{ productId: 'not-a-uuid', quantity: 1 }] }), /^items\[0\]/);
    });

    it('rejects hidden products: menuVisible false, in an inactive category, cleaned up, or only in the draft', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(v, orderBody(ids, { items: [{ productId: ids.productIds.secret, quantity: 1 }] }), /^items\[0\]/);
      await expectRejected(v, orderBody(ids, { items: [{ productId: ids.productIds.frozen, quantity: 1 }] }), /^items\[0\]/);

      // Cleaned up and republished.
      expectStatus(await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'product', ref: 'fries' }] } }), 201);
      await publish(t.app, v);
      await expectRejected(v, orderBody(ids), /^items\[0\]/);

      // Synced but not yet published.
      const sync = await call(t.app, 'POST', '/v1/sync', {
        key: v.key,
        body: { products: [{ externalId: 'shake', name: 'Shake', priceMinor: 600 }] },
      });
      expectStatus(sync, 201);
      const draft = await call(t.app, 'GET', '/v1/menu?version=draft', { key: v.key });
      const shake = draft.body.products.find((p: any) => p.externalId === 'shake');
      await expectRejected(v, orderBody(ids, { items: [{ productId: shake.id, quantity: 1 }] }), /^items\[0\]/);
    });

    it('rejects an option that belongs to another product, or to nothing', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(
        v,
        orderBody(ids, {
          items: [{ productId: ids.productIds.soda, quantity: 1, modifiers: [{ optionId: ids.options.burger.Extras.cheese }] }],
        }),
        /^items\[0\]\.modifiers\[0\]/,
      );
      await expectRejected(v, orderBody(ids, { items: [burgerLine(ids, 1, [{ optionId: randomUUID() }])] }), /^items\[0\]\.modifiers\[1\]/);
    });

    it('rejects a required single_choice group without a choice', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(v, orderBody(ids, { items: [{ productId: ids.productIds.burger, quantity: 1 }] }), /^items\[0\].*Bun/);
      await expectRejected(
        v,
        orderBody(ids, {
          items: [{ productId: ids.productIds.burger, quantity: 1, modifiers: [{ optionId: ids.options.burger.Extras.cheese }] }],
        }),
        /^items\[0\].*Bun/,
      );
    });

    it('accepts an optional single_choice group left empty', async () => {
      const { v, ids } = await venueWithMenu();
      const o = await createOrder(t.app, v.slug, orderBody(ids, { items: [{ productId: ids.productIds.soda, quantity: 1 }] }));
      assert.equal(o.items[0].unitPrice, 300);
    });

    it('rejects a single_choice option taken more than once', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(
        v,
        orderBody(ids, {
          items: [{ productId: ids.productIds.soda, quantity: 1, modifiers: [{ optionId: ids.options.soda.Size.large, quantity: 2 }] }],
        }),
        /^items\[0\].*Size/,
      );
    });

    it('rejects two choices in one single_choice group', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(
        v,
        orderBody(ids, { items: [burgerLine(ids, 1, [{ optionId: ids.options.burger.Bun['bun-brioche'] }])] }),
        /^items\[0\].*Bun/,
      );
      await expectRejected(
        v,
        orderBody(ids, {
          items: [
            {
              productId: ids.productIds.soda,
              quantity: 1,
              modifiers: [{ optionId: ids.options.soda.Size.small }, { optionId: ids.options.soda.Size.large }],
            },
          ],
        }),
        /^items\[0\].*Size/,
      );
    });

    it('rejects a quantity outside 1..99 on items and on modifiers', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(
        v,
        orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 0 }] }),
        /^items\[0\]\.quantity must be >= 1/,
      );
      await expectRejected(
        v,
        orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 100 }] }),
        /^items\[0\]\.quantity must be <= 99/,
      );
      await expectRejected(
        v,
        orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 1.5 }] }),
        /^items\[0\]\.quantity must be an integer/,
      );
      await expectRejected(
        v,
        orderBody(ids, { items: [burgerLine(ids, 1, [{ optionId: ids.options.burger.Extras.cheese, quantity: 0 }])] }),
        /^items\[0\]\.modifiers\[1\]\.quantity/,
      );
      // 99 is the top of the range.
      const o = await createOrder(t.app, v.slug, orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 99 }] }));
      assert.equal(o.items[0].totalPrice, 99 * 400);
    });

    it('rejects an order without items or with a missing type or payment method', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(v, orderBody(ids, { items: [] }), /^items must have at least 1 item/);
      const { type: _type, ...noType } = orderBody(ids);
      await expectRejected(v, noType, /^type is required/);
      await expectRejected(v, orderBody(ids, { paymentMethod: 'crypto' }), /^paymentMethod must be one of/);
    });

    it('rejects a delivery order without deliveryAddress', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(v, orderBody(ids, { type: 'delivery' }), /deliveryAddress/);
      await expectRejected(v, orderBody(ids, { type: 'delivery', deliveryAddress: '   ' }), /deliveryAddress/);
    });

    it('rejects an order type disabled in settings', async () => {
      const { v, ids } = await venueWithMenu({ orderConfig: null }); // defaults: delivery off
      await expectRejected(v, orderBody(ids, { type: 'delivery', deliveryAddress: '1 Main St' }), /delivery/);

      await patchOrderConfig(t.app, v, { dineInEnabled: false, pickupEnabled: false, deliveryEnabled: true });
      await expectRejected(v, orderBody(ids, { type: 'dine_in' }), /dine_in/);
      await expectRejected(v, orderBody(ids, { type: 'pickup' }), /pickup/);
      const o = await createOrder(t.app, v.slug, orderBody(ids, { type: 'delivery', deliveryAddress: '1 Main St' }));
      assert.equal(o.type, 'delivery');
    });

    it('rejects delivery once the plan lacks hasDelivery, even with delivery enabled in settings', async () => {
      const { v, ids } = await venueWithMenu(); // standard plan, delivery enabled
      const downgrade = await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'free' });
      expectStatus(downgrade, 200);
      await expectRejected(v, orderBody(ids, { type: 'delivery', deliveryAddress: '1 Main St' }), /delivery/);

      // The guest menu shows delivery as unavailable; pickup still works on the free plan.
      const menu = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
      assert.equal(menu.body.orderConfig.deliveryEnabled, false);
      const o = await createOrder(t.app, v.slug, orderBody(ids));
      assert.equal(o.type, 'pickup');
    });

    it('rejects changeFromAmount with a non-cash payment', async () => {
      const { v, ids } = await venueWithMenu();
      for (const paymentMethod of ['terminal', 'online']) {
        await expectRejected(v, orderBody(ids, { paymentMethod, changeFromAmount: 1000 }), /changeFromAmount/);
      }
      const o = await createOrder(t.app, v.slug, orderBody(ids, { paymentMethod: 'terminal' }));
      assert.deepEqual([o.paymentMethod, o.changeFromAmount], ['terminal', null]);
    });

    it('rejects every order while acceptingOrders is false', async () => {
      const { v, ids } = await venueWithMenu({ orderConfig: { acceptingOrders: false } });
      await expectRejected(v, orderBody(ids), /accepting orders/i);
      await patchOrderConfig(t.app, v, { acceptingOrders: true });
      await createOrder(t.app, v.slug, orderBody(ids));
    });

    it('rejects a subtotal below minOrderMinor; the minimum itself is accepted', async () => {
      const { v, ids } = await venueWithMenu({ orderConfig: { minOrderMinor: 1000 } });
      await expectRejected(v, orderBody(ids), /subtotal/i); // 400 < 1000
      const o = await createOrder(t.app, v.slug, orderBody(ids, { items: [burgerLine(ids, 1)] }));
      assert.equal(o.subtotalAmount, 1000);
    });

    it('lists every violated rule at once', async () => {
      const { v, ids } = await venueWithMenu();
      const errors = await expectRejected(
        v,
        orderBody(ids, {
          type: 'delivery',
          paymentMethod: 'online',
          changeFromAmount: 500,
          items: [
            { productId: ids.productIds.secret, quantity: 1 },
            { productId: ids.productIds.burger, quantity: 1 },
          ],
        }),
        /deliveryAddress/,
        /changeFromAmount/,
        /^items\[0\]/,
        /^items\[1\].*Bun/,
      );
      assert.ok(errors.length >= 4);
    });

    it('rejects unknown body properties, at the top level and in lines', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(v, orderBody(ids, { coupon: 'FREE' }), /^coupon is not allowed/);
      await expectRejected(
        v,
        orderBody(ids, {
          items: [
            { productId: ids.productIds.burger, quantity: 1, modifiers: [{ optionId: ids.options.burger.Bun['bun-white'], price: 0 }] },
          ],
        }),
        /^items\[0\]\.modifiers\[0\]\.price is not allowed/,
      );
    });

    it('rejects a scheduledFor without a timezone and a malformed email', async () => {
      const { v, ids } = await venueWithMenu();
      await expectRejected(v, orderBody(ids, { scheduledFor: '2030-01-01T20:00:00' }), /^scheduledFor/);
      await expectRejected(v, orderBody(ids, { customerEmail: 'not-an-email' }), /^customerEmail/);
    });

    it('answers 404 for an unknown venue and for a venue with nothing published', async () => {
      const unknown = await placeOrder(t.app, 'no-such-venue-anywhere', {
        type: 'pickup',
        paymentMethod: 'cash',
        items: [{ productId: randomUUID(), quantity: 1 }],
      });
      assert.equal(unknown.status, 404);
      const v = await createVenue(t.app);
      const unpublished = await placeOrder(t.app, v.slug, {
        type: 'pickup',
        paymentMethod: 'cash',
        items: [{ productId: randomUUID(), quantity: 1 }],
      });
      assert.equal(unpublished.status, 404);
      assert.equal(unpublished.body.code, 'MENU_NOT_PUBLISHED');
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first order with 200 for the same key and body, without a second order', async () => {
      const { v, ids } = await venueWithMenu();
      const body = orderBody(ids, { items: [burgerLine(ids, 2)] });
      const first = await placeOrder(t.app, v.slug, body, 'key-1');
      expectStatus(first, 201);
      const again = await placeOrder(t.app, v.slug, body, 'key-1');
      expectStatus(again, 200);
      assert.equal(again.body.id, first.body.id);
      assert.deepEqual(again.body, first.body);

      const list = await listOrders(v);
      assert.equal(list.total, 1);
      assert.deepEqual(
        list.items.map((o: any) => o.id),
        [first.body.id],
      );
    });

    it("deletes a venue's keys past their 24 hours and keeps the live ones and other venues' keys", async () => {
      const { v, ids } = await venueWithMenu();
      const other = await venueWithMenu();
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids), 'key-old'), 201);
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids), 'key-live'), 201);
      expectStatus(await placeOrder(t.app, other.v.slug, orderBody(other.ids), 'key-old'), 201);
      const db = t.database.db;
      await db.query(`update order_idempotency_keys set created_at = now() - interval '25 hours' where key = 'key-old'`);
      await t.services.orderPlacement.purgeExpiredKeys(v.id);
      const { rows } = await db.query<{ venue_id: string; key: string }>(
        'select venue_id, key from order_idempotency_keys where venue_id = any($1::uuid[]) order by key, venue_id',
        [[v.id, other.v.id]],
      );
      assert.deepEqual(rows.map((r) => `${r.venue_id === v.id ? 'v' : 'other'}:${r.key}`).sort(), ['other:key-old', 'v:key-live']);
    });

    it('treats a body with the same content in another property order as the same body', async () => {
      const { v, ids } = await venueWithMenu();
      const body = orderBody(ids);
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const first = await placeOrder(t.app, v.slug, body, 'key-order');
      expectStatus(first, 201);
      const again = await placeOrder(t.app, v.slug, reordered, 'key-order');
      expectStatus(again, 200);
      assert.equal(again.body.id, first.body.id);
    });

    it('replays the current state of the first order, even after it moved on', async () => {
      const { v, ids } = await venueWithMenu();
      const body = orderBody(ids);
      const first = await placeOrder(t.app, v.slug, body, 'key-moved');
      expectStatus(first, 201);
      expectStatus(await call(t.app, 'PATCH', `/v1/orders/${first.body.id}/status`, { key: v.key, body: { status: 'confirmed' } }), 200);
      const again = await placeOrder(t.app, v.slug, body, 'key-moved');
      expectStatus(again, 200);
      assert.equal(again.body.id, first.body.id);
      assert.equal(again.body.status, 'confirmed');
    });

    it('replays the first order even when the menu or settings would now refuse the same request', async () => {
      const { v, ids } = await venueWithMenu();
      const body = orderBody(ids);
      const first = await placeOrder(t.app, v.slug, body, 'key-retry');
      expectStatus(first, 201);
      // The venue stops taking orders and fries leave the menu; a retry of a request that
      // already succeeded must still learn its order rather than see a 400.
      await patchOrderConfig(t.app, v, { acceptingOrders: false });
      expectStatus(await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'product', ref: 'fries' }] } }), 201);
      await publish(t.app, v);
      const again = await placeOrder(t.app, v.slug, body, 'key-retry');
      expectStatus(again, 200);
      assert.equal(again.body.id, first.body.id);
    });

    it('answers 409 IDEMPOTENCY_KEY_REUSED for the same key with another body', async () => {
      const { v, ids } = await venueWithMenu();
      const first = await placeOrder(t.app, v.slug, orderBody(ids), 'key-2');
      expectStatus(first, 201);
      const other = await placeOrder(t.app, v.slug, orderBody(ids, { comment: 'extra ketchup' }), 'key-2');
      assert.equal(other.status, 409);
      assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal((await listOrders(v)).total, 1);
    });

    it('keeps keys per venue: the same key at another venue makes a new order', async () => {
      const a = await venueWithMenu();
      const b = await venueWithMenu();
      const first = await placeOrder(t.app, a.v.slug, orderBody(a.ids), 'shared-key');
      const second = await placeOrder(t.app, b.v.slug, orderBody(b.ids), 'shared-key');
      expectStatus(first, 201);
      expectStatus(second, 201);
      assert.notEqual(first.body.id, second.body.id);
      assert.equal((await listOrders(a.v)).total, 1);
      assert.equal((await listOrders(b.v)).total, 1);
    });

    it('makes a new order for each request without a key or with another key', async () => {
      const { v, ids } = await venueWithMenu();
      const body = orderBody(ids);
      const results = [
        await placeOrder(t.app, v.slug, body),
        await placeOrder(t.app, v.slug, body),
        await placeOrder(t.app, v.slug, body, 'k-a'),
        await placeOrder(t.app, v.slug, body, 'k-b'),
      ];
      for (const r of results) expectStatus(r, 201);
      assert.equal(new Set(results.map((r) => r.body.id)).size, 4);
      assert.equal((await listOrders(v)).total, 4);
    });

    it('forgets a key after 24 hours', async () => {
      const { v, ids } = await venueWithMenu();
      const first = await placeOrder(t.app, v.slug, orderBody(ids), 'key-old');
      expectStatus(first, 201);
      // Age the record instead of waiting a day.
      await t.database.db.query(
        `update order_idempotency_keys set created_at = now() - interval '25 hours' where venue_id = $1 and key = 'key-old'`,
        [v.id],
      );
      const other = await placeOrder(t.app, v.slug, orderBody(ids, { comment: 'another body' }), 'key-old');
      expectStatus(other, 201);
      assert.notEqual(other.body.id, first.body.id);
      const replay = await placeOrder(t.app, v.slug, orderBody(ids, { comment: 'another body' }), 'key-old');
      expectStatus(replay, 200);
      assert.equal(replay.body.id, other.body.id);
    });

    it('does not store a key for a rejected request', async () => {
      const { v, ids } = await venueWithMenu();
      const bad = await placeOrder(
        t.app,
        v.slug,
        orderBody(ids, { items: [{ productId: ids.productIds.secret, quantity: 1 }] }),
        'key-bad',
      );
      assert.equal(bad.status, 400);
      const good = await placeOrder(t.app, v.slug, orderBody(ids), 'key-bad');
      expectStatus(good, 201);
    });

    it('rejects a key longer than 255 characters', async () => {
      const { v, ids } = await venueWithMenu();
      const res = await placeOrder(t.app, v.slug, orderBody(ids), 'k'.repeat(256));
      assert.equal(res.status, 400);
      assert.ok(
        res.body.errors.some((e: string) => /idempotency-key/i.test(e)),
        JSON.stringify(res.body),
      );
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids), 'k'.repeat(255)), 201);
    });
  });
});
