import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { burgerLine, createOrder, expectStatus, orderBody, patchStatus, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The same instant written with another offset: 2026-01-01T10:00:00.123Z -> 2026-01-01T12:00:00.123+02:00. */
function withOffset(isoZ: string, offsetMinutes: number): string {
  const local = new Date(Date.parse(isoZ) + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

// GET /v1/orders and GET /v1/orders/:id.
describe('Orders API', () => {
  let t: TestApp;
  before(async () => {
    // Scheduled orders are judged against this clock: an order below is for 2030-05-05.
    t = await startApp({}, undefined, { clock: () => Date.parse('2030-05-04T12:00:00Z') });
  });
  after(() => t.close());

  async function venueWithMenu(plan: 'standard' | 'pro' = 'standard'): Promise<{ v: VenueFixture; ids: MenuIds }> {
    const v = await createVenue(t.app, { plan });
    const ids = await setUpOrderMenu(t.app, v);
    return { v, ids };
  }

  /** `n` pickup orders, oldest first. */
  async function orders(v: VenueFixture, ids: MenuIds, n: number, overrides: Record<string, unknown> = {}): Promise<any[]> {
    const out = [];
    for (let i = 0; i < n; i += 1) out.push(await createOrder(t.app, v.slug, orderBody(ids, overrides)));
    return out;
  }

  const list = (v: VenueFixture, query = '') => call(t.app, 'GET', `/v1/orders${query}`, { key: v.key });
  const idsOf = (res: { body: any }) => res.body.items.map((o: any) => o.id);

  function expectBadQuery(res: { status: number; body: any }, parameter: string) {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.ok(
      [res.body.message, ...(res.body.errors ?? [])].some((m: string) => m.startsWith(parameter)),
      `nothing names ${parameter}: ${JSON.stringify(res.body)}`,
    );
  }

  describe('list envelope and pagination', () => {
    it('returns { items, total, page, limit, totalPages } with page 1 and limit 20 by default', async () => {
      const { v, ids } = await venueWithMenu();
      const placed = await orders(v, ids, 3);
      const res = await list(v);
      expectStatus(res, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['items', 'limit', 'page', 'total', 'totalPages']);
      assert.deepEqual([res.body.total, res.body.page, res.body.limit, res.body.totalPages], [3, 1, 20, 1]);
      // Newest first; each item is the whole Order.
      assert.deepEqual(idsOf(res), placed.map((o) => o.id).reverse());
      assert.deepEqual(res.body.items[2], placed[0]);
    });

    it('answers an empty list for a venue without orders', async () => {
      const { v } = await venueWithMenu();
      const res = await list(v);
      expectStatus(res, 200);
      assert.deepEqual(res.body, { items: [], total: 0, page: 1, limit: 20, totalPages: 0 });
    });

    it('pages with page and limit, every order exactly once', async () => {
      const { v, ids } = await venueWithMenu();
      const placed = await orders(v, ids, 5);
      const seen: string[] = [];
      for (const page of [1, 2, 3]) {
        const res = await list(v, `?limit=2&page=${page}`);
        expectStatus(res, 200);
        assert.deepEqual([res.body.total, res.body.page, res.body.limit, res.body.totalPages], [5, page, 2, 3]);
        assert.equal(res.body.items.length, page === 3 ? 1 : 2);
        seen.push(...idsOf(res));
      }
      assert.deepEqual(seen, placed.map((o) => o.id).reverse());
      const beyond = await list(v, '?limit=2&page=4');
      expectStatus(beyond, 200);
      assert.deepEqual([beyond.body.items.length, beyond.body.total, beyond.body.totalPages], [0, 5, 3]);
    });

    it('accepts limit 1 and 100, and rejects 0, 101 and non-integers naming limit', async () => {
      const { v } = await venueWithMenu();
      expectStatus(await list(v, '?limit=1'), 200);
      expectStatus(await list(v, '?limit=100'), 200);
      for (const bad of ['0', '101', 'abc', '2.5', '-1']) expectBadQuery(await list(v, `?limit=${bad}`), 'limit');
    });

    it('rejects page 0 and non-integers naming page', async () => {
      const { v } = await venueWithMenu();
      for (const bad of ['0', '-1', 'x']) expectBadQuery(await list(v, `?page=${bad}`), 'page');
    });
  });

  describe('filters', () => {
    it('filters by a comma-separated status list and rejects an unknown status naming status', async () => {
      const { v, ids } = await venueWithMenu();
      const [a, b, c] = await orders(v, ids, 3);
      expectStatus(await patchStatus(t.app, v.key, a.id, 'confirmed'), 200);
      expectStatus(await patchStatus(t.app, v.key, b.id, 'cancelled'), 200);

      assert.deepEqual(idsOf(await list(v, '?status=new')), [c.id]);
      assert.deepEqual(idsOf(await list(v, '?status=confirmed')), [a.id]);
      assert.deepEqual(idsOf(await list(v, '?status=new,cancelled')), [c.id, b.id]);
      assert.deepEqual(idsOf(await list(v, '?status=completed')), []);
      const combined = await list(v, '?status=new,confirmed,cancelled');
      assert.equal(combined.body.total, 3);

      expectBadQuery(await list(v, '?status=new,shipped'), 'status');
      expectBadQuery(await list(v, '?status=NEW'), 'status');
    });

    it('filters by type and rejects an unknown type naming type', async () => {
      const { v, ids } = await venueWithMenu();
      const pickup = await createOrder(t.app, v.slug, orderBody(ids));
      const delivery = await createOrder(t.app, v.slug, orderBody(ids, { type: 'delivery', deliveryAddress: '1 Main St' }));
      const dineIn = await createOrder(t.app, v.slug, orderBody(ids, { type: 'dine_in' }));
      assert.deepEqual(idsOf(await list(v, '?type=pickup')), [pickup.id]);
      assert.deepEqual(idsOf(await list(v, '?type=delivery')), [delivery.id]);
      assert.deepEqual(idsOf(await list(v, '?type=dine_in')), [dineIn.id]);
      assert.deepEqual(idsOf(await list(v, '?type=delivery&status=new')), [delivery.id]);
      expectBadQuery(await list(v, '?type=takeaway'), 'type');
    });

    it('treats createdFrom and createdTo as inclusive bounds on createdAt', async () => {
      const { v, ids } = await venueWithMenu();
      const [a, b, c] = await orders(v, ids, 3);
      const q = (s: string) => list(v, s).then(idsOf);
      assert.deepEqual(await q(`?createdFrom=${b.createdAt}`), [c.id, b.id]);
      assert.deepEqual(await q(`?createdTo=${b.createdAt}`), [b.id, a.id]);
      assert.deepEqual(await q(`?createdFrom=${b.createdAt}&createdTo=${b.createdAt}`), [b.id]);
      assert.deepEqual(await q(`?createdFrom=${c.createdAt}&createdTo=${a.createdAt}`), []);
    });

    it('polls with updatedSince: an inclusive lower bound on updatedAt, oldest change first', async () => {
      const { v, ids } = await venueWithMenu();
      const [a, b, c] = await orders(v, ids, 3);
      const confirmed = await patchStatus(t.app, v.key, a.id, 'confirmed');
      expectStatus(confirmed, 200);
      assert.ok(confirmed.body.updatedAt > c.updatedAt);

      const res = await list(v, `?updatedSince=${b.updatedAt}`);
      expectStatus(res, 200);
      assert.deepEqual(idsOf(res), [b.id, c.id, a.id]);
      assert.equal(res.body.total, 3);
      assert.deepEqual(
        res.body.items.map((o: any) => o.updatedAt),
        [b.updatedAt, c.updatedAt, confirmed.body.updatedAt],
      );

      // The cursor is inclusive: the last item comes back, and nothing older.
      assert.deepEqual(idsOf(await list(v, `?updatedSince=${confirmed.body.updatedAt}`)), [a.id]);
      // `since` is an alias.
      assert.deepEqual(idsOf(await list(v, `?since=${b.updatedAt}`)), [b.id, c.id, a.id]);
      // A cursor past the newest change: nothing.
      const later = new Date(Date.parse(confirmed.body.updatedAt) + 1).toISOString();
      assert.deepEqual(await list(v, `?updatedSince=${later}`).then((r) => r.body), {
        items: [],
        total: 0,
        page: 1,
        limit: 20,
        totalPages: 0,
      });
    });

    it('pages an updatedSince poll in ascending order with limit', async () => {
      const { v, ids } = await venueWithMenu();
      const placed = await orders(v, ids, 5);
      const first = await list(v, `?updatedSince=${placed[0].updatedAt}&limit=2`);
      assert.deepEqual(idsOf(first), [placed[0].id, placed[1].id]);
      assert.equal(first.body.total, 5);
      const second = await list(v, `?updatedSince=${placed[0].updatedAt}&limit=2&page=2`);
      assert.deepEqual(idsOf(second), [placed[2].id, placed[3].id]);
    });

    it('orders by id within one timestamp: ascending when polling, descending otherwise', async () => {
      const { v, ids } = await venueWithMenu();
      const [template] = await orders(v, ids, 1);
      // Orders written at the same instant cannot come from the API (the venue clock ticks per
      // write); copy one three times with one timestamp to pin the tie-break.
      const ts = '2030-06-01T12:00:00.000Z';
      const copies = [randomUUID(), randomUUID(), randomUUID()];
      for (const id of copies) {
        await t.database.db.query(
          `insert into orders (venue_id, id, order_number, status, type, payment_method, currency, subtotal_amount,
             delivery_fee, discount_amount, total_amount, created_at, updated_at)
           select venue_id, $3, order_number || '-copy', status, type, payment_method, currency, subtotal_amount,
             delivery_fee, discount_amount, total_amount, $4, $4
           from orders where venue_id = $1 and id = $2`,
          [v.id, template.id, id, ts],
        );
      }
      const sorted = [...copies].sort();
      assert.deepEqual(idsOf(await list(v, `?updatedSince=${ts}`)), sorted);
      assert.deepEqual(idsOf(await list(v, `?createdFrom=${ts}`)), [...sorted].reverse());
      const unfiltered = idsOf(await list(v));
      assert.deepEqual(unfiltered, [...[...sorted].reverse(), template.id]);
    });

    it('rejects a naive timestamp with a message naming the parameter', async () => {
      const { v } = await venueWithMenu();
      for (const parameter of ['updatedSince', 'since', 'createdFrom', 'createdTo']) {
        for (const value of [
          '2026-01-01T10:00:00',
          '2026-01-01T10:00:00.123',
          '2026-01-01',
          'yesterday',
          '2026-13-45T99:00:00Z',
          '2026-02-30T10:00:00Z',
          '2026-01-01T24:00:00Z',
        ]) {
          const res = await list(v, `?${parameter}=${encodeURIComponent(value)}`);
          assert.equal(res.status, 400, `${parameter}=${value}`);
          assert.equal(
            res.body.message,
            `${parameter} must be an ISO 8601 timestamp with a timezone (Z or +hh:mm)`,
            `${parameter}=${value}`,
          );
        }
      }
    });

    it('accepts +hh:mm and -hh:mm offsets as the same instant', async () => {
      const { v, ids } = await venueWithMenu();
      const [, b, c] = await orders(v, ids, 3);
      const expected = [b.id, c.id];
      for (const offset of [120, -300, 0]) {
        const cursor = withOffset(b.updatedAt, offset);
        assert.deepEqual(idsOf(await list(v, `?updatedSince=${encodeURIComponent(cursor)}`)), expected, cursor);
      }
      const from = encodeURIComponent(withOffset(b.createdAt, 120));
      const to = encodeURIComponent(withOffset(b.createdAt, -90));
      assert.deepEqual(idsOf(await list(v, `?createdFrom=${from}&createdTo=${to}`)), [b.id]);
      // A leap day is a real date.
      expectStatus(await list(v, '?createdTo=2028-02-29T23:59:59.999Z'), 200);
      // An unencoded + arrives as a space; that is not a timezone.
      assert.equal((await list(v, `?updatedSince=${withOffset(b.updatedAt, 120)}`)).status, 400);
    });
  });

  describe('GET /v1/orders/:id', () => {
    it('returns the whole order with items and modifiers, timestamps in UTC with milliseconds', async () => {
      const { v, ids } = await venueWithMenu();
      const placed = await createOrder(
        t.app,
        v.slug,
        orderBody(ids, {
          type: 'delivery',
          deliveryAddress: '1 Main St',
          scheduledFor: '2030-05-05T10:30:00-04:00',
          items: [
            burgerLine(ids, 2, [{ optionId: ids.options.burger.Extras.bacon, quantity: 3 }]),
            { productId: ids.productIds.fries, quantity: 1 },
          ],
        }),
      );
      await patchStatus(t.app, v.key, placed.id, 'confirmed');
      await patchStatus(t.app, v.key, placed.id, 'preparing');
      const done = await patchStatus(t.app, v.key, placed.id, 'completed');
      expectStatus(done, 200);

      const res = await call(t.app, 'GET', `/v1/orders/${placed.id}`, { key: v.key });
      expectStatus(res, 200);
      assert.deepEqual(res.body, done.body);
      assert.deepEqual(res.body.items, placed.items);
      assert.equal(res.body.items[0].modifiers.length, 2);
      assert.deepEqual(res.body.items[0].modifiers[1], {
        groupName: 'Extras',
        ingredientExternalId: 'bacon',
        ingredientName: 'Bacon',
        priceAdjustment: 200,
        quantity: 3,
      });
      for (const field of ['createdAt', 'updatedAt', 'confirmedAt', 'completedAt', 'scheduledFor']) {
        assert.match(res.body[field], ISO_UTC, field);
      }
      assert.equal(res.body.scheduledFor, '2030-05-05T14:30:00.000Z');
      // The list carries the same representation.
      const listed = await list(v);
      assert.deepEqual(listed.body.items[0], res.body);
    });

    it("answers 404 'Order not found' without a code for unknown ids, uuid or not", async () => {
      const { v } = await venueWithMenu();
      for (const id of [randomUUID(), 'not-a-uuid', '12345']) {
        for (const res of [
          await call(t.app, 'GET', `/v1/orders/${id}`, { key: v.key }),
          await patchStatus(t.app, v.key, id, 'confirmed'),
        ]) {
          assert.equal(res.status, 404, id);
          assert.equal(res.body.message, 'Order not found');
          assert.equal(res.body.code, undefined);
        }
      }
    });
  });

  describe('access', () => {
    it('answers 403 PAID_PLAN_REQUIRED on all three endpoints on the free plan, before any 404', async () => {
      const v = await createVenue(t.app, { plan: 'free' });
      const unknown = randomUUID();
      for (const res of [
        await list(v),
        await list(v, '?limit=0&updatedSince=naive'),
        await call(t.app, 'GET', `/v1/orders/${unknown}`, { key: v.key }),
        await call(t.app, 'GET', '/v1/orders/not-a-uuid', { key: v.key }),
        await patchStatus(t.app, v.key, unknown, 'confirmed'),
        await patchStatus(t.app, v.key, unknown, 'bogus'),
      ]) {
        assert.equal(res.status, 403, JSON.stringify(res.body));
        assert.equal(res.body.code, 'PAID_PLAN_REQUIRED');
      }
    });

    it('closes the Orders API when a venue with orders moves to the free plan, and reopens it on upgrade', async () => {
      const { v, ids } = await venueWithMenu();
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      expectStatus(await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'free' }), 200);
      for (const res of [
        await list(v),
        await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: v.key }),
        await patchStatus(t.app, v.key, order.id, 'confirmed'),
      ]) {
        assert.equal(res.status, 403);
        assert.equal(res.body.code, 'PAID_PLAN_REQUIRED');
      }
      expectStatus(await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'pro' }), 200);
      const after = await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: v.key });
      expectStatus(after, 200);
      assert.equal(after.body.status, 'new');
    });

    it("keeps venues apart: venue B can neither read nor update venue A's order", async () => {
      const a = await venueWithMenu();
      const b = await venueWithMenu();
      const order = await createOrder(t.app, a.v.slug, orderBody(a.ids));
      await createOrder(t.app, b.v.slug, orderBody(b.ids));

      const read = await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: b.v.key });
      assert.equal(read.status, 404);
      assert.equal(read.body.message, 'Order not found');
      const update = await patchStatus(t.app, b.v.key, order.id, 'confirmed');
      assert.equal(update.status, 404);

      const bList = await list(b.v);
      assert.equal(bList.body.total, 1);
      assert.ok(!idsOf(bList).includes(order.id));
      const bPoll = await list(b.v, `?updatedSince=${order.updatedAt}`);
      assert.ok(!idsOf(bPoll).includes(order.id));

      const mine = await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: a.v.key });
      assert.equal(mine.body.status, 'new');
      assert.equal(mine.body.updatedAt, order.updatedAt);
    });

    it('keeps live and sandbox orders apart', async () => {
      const { v, ids } = await venueWithMenu();
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      const testKey = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' });
      expectStatus(testKey, 201);
      const res = await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: testKey.body.key });
      assert.equal(res.status, 404);
      assert.equal((await call(t.app, 'GET', '/v1/orders', { key: testKey.body.key })).body.total, 0);
    });

    it('lets a read-only key read orders but not change their status (403 READ_ONLY_KEY)', async () => {
      const { v, ids } = await venueWithMenu();
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      const readOnly = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true });
      expectStatus(readOnly, 201);
      const key = readOnly.body.key as string;

      const listed = await call(t.app, 'GET', '/v1/orders', { key });
      expectStatus(listed, 200);
      assert.deepEqual(idsOf(listed), [order.id]);
      expectStatus(await call(t.app, 'GET', `/v1/orders/${order.id}`, { key }), 200);

      const update = await patchStatus(t.app, key, order.id, 'confirmed');
      assert.equal(update.status, 403);
      assert.equal(update.body.code, 'READ_ONLY_KEY');
      const after = await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: v.key });
      assert.equal(after.body.status, 'new');
      assert.equal(after.body.updatedAt, order.updatedAt);
    });

    it('requires an API key', async () => {
      const { v, ids } = await venueWithMenu();
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      for (const res of [
        await call(t.app, 'GET', '/v1/orders'),
        await call(t.app, 'GET', `/v1/orders/${order.id}`),
        await call(t.app, 'PATCH', `/v1/orders/${order.id}/status`, { body: { status: 'confirmed' } }),
      ]) {
        assert.equal(res.status, 401);
        assert.equal(res.body.message, 'Missing API key');
      }
    });
  });
});
