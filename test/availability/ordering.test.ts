import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';
import { expectStatus, orderBody, placeOrder, setUpOrderMenu, type MenuIds, type OrderConfigPatch } from '../helpers/orders.js';

// Opening hours, pauses and scheduled orders: the settings that hold them, the guest
// menu's `ordering` object, and order placement through the guest API. Time is the injected clock
// (`now`), moved by each test: nothing here sleeps.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const iso = (t: number) => new Date(t).toISOString();
const at = (s: string) => Date.parse(s);

/** Wednesday 2026-06-10, 10:00 UTC. */
const START = at('2026-06-10T10:00:00Z');
let now = START;

type Day = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';
const DAYS: Day[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const shift = (day: Day, openTime: string, closeTime: string) => ({ day, isOpen: true, openTime, closeTime });
const everyDay = (openTime: string, closeTime: string) => DAYS.map((d) => shift(d, openTime, closeTime));

describe('ordering: opening hours, pauses and scheduled orders', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({}, undefined, { clock: () => now });
  });
  after(() => t.close());

  const patch = (v: VenueFixture, body: unknown) => call(t.app, 'PATCH', '/v1/settings', { key: v.key, body });

  async function patchOk(v: VenueFixture, body: unknown): Promise<any> {
    const res = await patch(v, body);
    expectStatus(res, 200);
    return res.body;
  }

  async function settingsOf(v: VenueFixture): Promise<any> {
    const res = await call(t.app, 'GET', '/v1/settings', { key: v.key });
    expectStatus(res, 200);
    return res.body;
  }

  /** 400 Validation failed with an errors[] entry matching each pattern. */
  function assertInvalid(res: Call, ...patterns: RegExp[]): string[] {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.message, 'Validation failed');
    for (const p of patterns)
      assert.ok(
        res.body.errors.some((e: string) => p.test(e)),
        `no error matches ${p}: ${JSON.stringify(res.body.errors)}`,
      );
    return res.body.errors;
  }

  /** A venue with the order menu published (scheduled orders on, 14 days ahead) and these settings. */
  async function venue(settings: Record<string, unknown> = {}, orderConfig?: OrderConfigPatch): Promise<{ v: VenueFixture; ids: MenuIds }> {
    const v = await createVenue(t.app);
    const ids = await setUpOrderMenu(t.app, v, orderConfig ? { orderConfig } : {});
    if (Object.keys(settings).length > 0) await patchOk(v, settings);
    return { v, ids };
  }

  async function ordering(v: VenueFixture): Promise<any> {
    const res = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    expectStatus(res, 200);
    return res.body.ordering;
  }

  async function storedOrders(v: VenueFixture): Promise<number> {
    const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from orders where venue_id = $1', [v.id]);
    return rows[0].n;
  }

  /** At `when`: open, closing at `closesAt` (null: none ahead within 14 days). */
  async function expectOpen(v: VenueFixture, when: number, closesAt: number | null, label = iso(when)): Promise<void> {
    now = when;
    const o = await ordering(v);
    assert.deepEqual(
      [o.open, o.reason, o.opensAt, o.closesAt],
      [true, null, null, closesAt === null ? null : iso(closesAt)],
      `${label}: ${JSON.stringify(o)}`,
    );
  }

  /** At `when`: closed for `reason`, opening at `opensAt` (null: unknown or beyond 14 days). */
  async function expectClosed(v: VenueFixture, when: number, opensAt: number | null, reason = 'closed', label = iso(when)): Promise<void> {
    now = when;
    const o = await ordering(v);
    assert.deepEqual(
      [o.open, o.reason, o.opensAt, o.closesAt],
      [false, reason, opensAt === null ? null : iso(opensAt), null],
      `${label}: ${JSON.stringify(o)}`,
    );
  }

  /** A guest order refused with 409 ORDERING_CLOSED and these details; nothing stored. */
  async function expectOrderingClosed(v: VenueFixture, body: unknown, reason: string, opensAt: number | null): Promise<void> {
    const before = await storedOrders(v);
    const res = await placeOrder(t.app, v.slug, body);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.code, 'ORDERING_CLOSED');
    assert.deepEqual(res.body.details, { reason, opensAt: opensAt === null ? null : iso(opensAt) });
    assert.match(res.body.message, new RegExp(reason));
    if (opensAt !== null) assert.ok(res.body.message.includes(iso(opensAt)), `the message says when it opens: ${res.body.message}`);
    assert.equal(await storedOrders(v), before, 'nothing is written');
  }

  describe('settings', () => {
    it('shows the defaults: openingHours null, no pause, 15 minutes, scheduled orders off for 2 days', async () => {
      now = START;
      const v = await createVenue(t.app, { plan: 'free' });
      const s = await settingsOf(v);
      assert.equal(s.openingHours, null);
      assert.deepEqual(
        [s.orderConfig.pausedUntil, s.orderConfig.prepTimeMinutes, s.orderConfig.scheduledOrders],
        [null, 15, { enabled: false, maxDaysAhead: 2 }],
      );
    });

    it('refuses bad opening hours with a 400 naming the entry: overlaps, more than 3 shifts, bad dates and times', async () => {
      now = START;
      const v = await createVenue(t.app);
      const before = await settingsOf(v);
      assertInvalid(
        await patch(v, { openingHours: { weekly: [shift('monday', '09:00', '15:00'), shift('monday', '14:00', '18:00')] } }),
        /^openingHours\.weekly\[1\] overlaps openingHours\.weekly\[0\]/,
      );
      // Sunday night into Monday morning is an overlap too (the week wraps).
      assertInvalid(
        await patch(v, { openingHours: { weekly: [shift('monday', '01:00', '05:00'), shift('sunday', '22:00', '02:00')] } }),
        /^openingHours\.weekly\[1\] overlaps openingHours\.weekly\[0\]/,
      );
      assertInvalid(
        await patch(v, {
          openingHours: {
            weekly: [
              shift('friday', '06:00', '08:00'),
              shift('friday', '09:00', '11:00'),
              shift('friday', '12:00', '14:00'),
              shift('friday', '15:00', '17:00'),
            ],
          },
        }),
        /^openingHours\.weekly\[3\] .*at most 3/,
      );
      assertInvalid(
        await patch(v, { openingHours: { weekly: [], exceptions: [{ date: '2026-02-30', isOpen: false }] } }),
        /^openingHours\.exceptions\[0\]\.date/,
      );
      assertInvalid(
        await patch(v, { openingHours: { weekly: [], exceptions: [{ date: '26-12-25', isOpen: false }] } }),
        /^openingHours\.exceptions\[0\]\.date/,
      );
      assertInvalid(
        await patch(v, { openingHours: { weekly: [shift('monday', '09:00', '24:00')] } }),
        /^openingHours\.weekly\[0\]\.closeTime/,
      );
      assertInvalid(
        await patch(v, { openingHours: { weekly: [{ day: 'monday', isOpen: true, openTime: '09:00' }] } }),
        /^openingHours\.weekly\[0\]\.closeTime/,
      );
      // Overlapping exceptions: a shift past midnight runs into the next date's.
      assertInvalid(
        await patch(v, {
          openingHours: {
            weekly: [],
            exceptions: [
              { date: '2026-12-24', isOpen: true, openTime: '20:00', closeTime: '03:00' },
              { date: '2026-12-25', isOpen: true, openTime: '01:00', closeTime: '05:00' },
            ],
          },
        }),
        /^openingHours\.exceptions\[1\] overlaps openingHours\.exceptions\[0\]/,
      );
      // A closed day listed with a shift of it.
      assertInvalid(
        await patch(v, { openingHours: { weekly: [{ day: 'monday', isOpen: false }, shift('monday', '09:00', '10:00')] } }),
        /^openingHours\.weekly\[0\]/,
      );
      assertInvalid(await patch(v, { openingHours: { weekly: [], extra: [] } }), /openingHours/);
      assert.deepEqual(await settingsOf(v), before, 'nothing changed');
      // Three shifts, touching ones and a closed day alone are fine.
      const ok = await patchOk(v, {
        openingHours: {
          weekly: [
            shift('friday', '06:00', '08:00'),
            shift('friday', '08:00', '11:00'),
            shift('friday', '12:00', '02:00'),
            { day: 'sunday', isOpen: false },
          ],
          exceptions: [{ date: '2026-12-25', isOpen: false }],
        },
      });
      assert.equal(ok.openingHours.weekly.length, 4);
    });

    it('names the entry of a bad day or isOpen inside openingHours, as it does for a bad time', async () => {
      now = START;
      const v = await createVenue(t.app);
      // openingHours is nullable: the error must still carry the entry's own path, not "openingHours must be one of: ..., null".
      assertInvalid(await patch(v, { openingHours: { weekly: [{ day: 'funday', isOpen: false }] } }), /^openingHours\.weekly\[0\]\.day /);
      assertInvalid(
        await patch(v, { openingHours: { weekly: [{ day: 'monday', isOpen: 'yes' }] } }),
        /^openingHours\.weekly\[0\]\.isOpen /,
      );
      assertInvalid(
        await patch(v, { openingHours: { weekly: [], exceptions: [{ date: 20261225, isOpen: false }] } }),
        /^openingHours\.exceptions\[0\]\.date /,
      );
    });

    it('merges nested objects field by field; openingHours null clears them', async () => {
      now = START;
      const v = await createVenue(t.app);
      await patchOk(v, { orderConfig: { scheduledOrders: { enabled: true, maxDaysAhead: 5 }, prepTimeMinutes: 30 } });
      const off = await patchOk(v, { orderConfig: { scheduledOrders: { enabled: false } } });
      assert.deepEqual(off.orderConfig.scheduledOrders, { enabled: false, maxDaysAhead: 5 }, 'maxDaysAhead is kept');
      assert.equal(off.orderConfig.prepTimeMinutes, 30);
      const days = await patchOk(v, { orderConfig: { scheduledOrders: { maxDaysAhead: 7 } } });
      assert.deepEqual(days.orderConfig.scheduledOrders, { enabled: false, maxDaysAhead: 7 });

      const weekly = [shift('monday', '09:00', '17:00')];
      const exceptions = [{ date: '2026-12-25', isOpen: false }];
      await patchOk(v, { openingHours: { weekly, exceptions: [] } });
      const merged = await patchOk(v, { openingHours: { exceptions } });
      assert.deepEqual(merged.openingHours, { weekly, exceptions }, 'weekly is kept when only exceptions are sent');
      assert.deepEqual((await settingsOf(v)).openingHours, { weekly, exceptions });
      const cleared = await patchOk(v, { openingHours: null });
      assert.equal(cleared.openingHours, null);
      assert.equal((await settingsOf(v)).openingHours, null);
    });

    it('allows the new orderConfig fields on the free plan; any other orderConfig field is still 403 DELIVERY_NOT_AVAILABLE', async () => {
      now = START;
      const v = await createVenue(t.app, { plan: 'free' });
      const body = await patchOk(v, {
        orderConfig: { pausedUntil: iso(now + HOUR), prepTimeMinutes: 25, scheduledOrders: { enabled: true } },
        openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] },
      });
      assert.deepEqual(
        [body.orderConfig.pausedUntil, body.orderConfig.prepTimeMinutes, body.orderConfig.scheduledOrders],
        [iso(now + HOUR), 25, { enabled: true, maxDaysAhead: 2 }],
      );
      for (const orderConfig of [
        { acceptingOrders: false },
        { minOrderMinor: 100 },
        { prepTimeMinutes: 20, deliveryEnabled: true },
        { pausedUntil: null, pickupEnabled: true },
      ]) {
        const res = await patch(v, { orderConfig });
        assert.equal(res.status, 403, JSON.stringify(orderConfig));
        assert.equal(res.body.code, 'DELIVERY_NOT_AVAILABLE');
      }
      assert.deepEqual((await settingsOf(v)).orderConfig.prepTimeMinutes, 25, 'a refused PATCH changes nothing');
    });

    it('refuses a pause more than 24 hours ahead and values out of range; normalises the pause to UTC', async () => {
      now = START;
      const v = await createVenue(t.app);
      assertInvalid(await patch(v, { orderConfig: { pausedUntil: iso(now + DAY + MINUTE) } }), /^orderConfig\.pausedUntil .*24 hours/);
      assertInvalid(await patch(v, { orderConfig: { pausedUntil: '2026-06-10T12:00:00' } }), /^orderConfig\.pausedUntil/);
      assertInvalid(await patch(v, { orderConfig: { prepTimeMinutes: 0 } }), /^orderConfig\.prepTimeMinutes/);
      assertInvalid(await patch(v, { orderConfig: { prepTimeMinutes: 241 } }), /^orderConfig\.prepTimeMinutes/);
      assertInvalid(
        await patch(v, { orderConfig: { scheduledOrders: { maxDaysAhead: 15 } } }),
        /^orderConfig\.scheduledOrders\.maxDaysAhead/,
      );
      assertInvalid(
        await patch(v, { orderConfig: { scheduledOrders: { maxDaysAhead: 0 } } }),
        /^orderConfig\.scheduledOrders\.maxDaysAhead/,
      );
      assertInvalid(await patch(v, { orderConfig: { scheduledOrders: { enabled: true, later: true } } }), /scheduledOrders/);
      assert.equal((await settingsOf(v)).orderConfig.pausedUntil, null);
      const ok = await patchOk(v, { orderConfig: { pausedUntil: '2026-06-11T13:00:00+03:00' } }); // exactly 24 h ahead
      assert.equal(ok.orderConfig.pausedUntil, '2026-06-11T10:00:00.000Z');
      assert.equal((await patchOk(v, { orderConfig: { pausedUntil: null } })).orderConfig.pausedUntil, null);
    });

    it('audits changes.fields naming openingHours and orderConfig.pausedUntil, only what changed', async () => {
      now = START;
      const v = await createVenue(t.app);
      await patchOk(v, {
        openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] },
        orderConfig: { pausedUntil: iso(now + HOUR) },
      });
      await patchOk(v, { orderConfig: { scheduledOrders: { enabled: true }, prepTimeMinutes: 15 } });
      await patchOk(v, { openingHours: { weekly: everyDay('09:00', '17:00') } }); // the same: no entry
      const res = await call(t.app, 'GET', '/v1/audit-log?action=settings.update', { key: v.key });
      expectStatus(res, 200);
      assert.deepEqual(
        res.body.items.map((e: any) => [...e.changes.fields].sort()),
        [['orderConfig.scheduledOrders'], ['openingHours', 'orderConfig.pausedUntil']],
      );
    });
  });

  describe('the guest menu ordering object', () => {
    it('is open with no closing ahead when openingHours is null', async () => {
      now = START;
      const { v } = await venue();
      assert.deepEqual(await ordering(v), {
        open: true,
        reason: null,
        opensAt: null,
        closesAt: null,
        prepTimeMinutes: 15,
        scheduledOrders: { enabled: true, maxDaysAhead: 14 },
      });
    });

    it('is open with closesAt inside the hours, closed with the next opening outside them', async () => {
      now = START;
      const { v } = await venue({
        openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] },
        orderConfig: { prepTimeMinutes: 20 },
      });
      now = START;
      assert.deepEqual(await ordering(v), {
        open: true,
        reason: null,
        opensAt: null,
        closesAt: '2026-06-10T17:00:00.000Z',
        prepTimeMinutes: 20,
        scheduledOrders: { enabled: true, maxDaysAhead: 14 },
      });
      await expectOpen(v, at('2026-06-10T16:59:59.999Z'), at('2026-06-10T17:00:00Z'));
      await expectClosed(v, at('2026-06-10T17:00:00Z'), at('2026-06-11T09:00:00Z'));
      await expectClosed(v, at('2026-06-11T08:59:59.999Z'), at('2026-06-11T09:00:00Z'));
      await expectOpen(v, at('2026-06-11T09:00:00Z'), at('2026-06-11T17:00:00Z'));
    });

    it('is paused until the pause ends; a pause ending in a closed window opens at the next opening after it', async () => {
      now = START;
      const { v } = await venue({ openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] } });
      now = START;
      await patchOk(v, { orderConfig: { pausedUntil: iso(START + 30 * MINUTE) } });
      await expectClosed(v, START, START + 30 * MINUTE, 'paused');
      await expectOpen(v, START + 30 * MINUTE, at('2026-06-10T17:00:00Z'), 'the pause is over');
      now = at('2026-06-10T16:50:00Z');
      await patchOk(v, { orderConfig: { pausedUntil: '2026-06-10T17:30:00Z' } });
      await expectClosed(v, now, at('2026-06-11T09:00:00Z'), 'paused');
      // Paused and outside the hours: paused comes first.
      await expectClosed(v, at('2026-06-10T17:10:00Z'), at('2026-06-11T09:00:00Z'), 'paused');
      await expectClosed(v, at('2026-06-10T17:30:00Z'), at('2026-06-11T09:00:00Z'), 'closed');
    });

    it('is not_accepting when acceptingOrders is false, before paused and closed', async () => {
      now = at('2026-06-10T18:00:00Z');
      const { v } = await venue({
        openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] },
        orderConfig: { acceptingOrders: false, pausedUntil: iso(now + HOUR) },
      });
      await expectClosed(v, now, null, 'not_accepting');
      await patchOk(v, { orderConfig: { acceptingOrders: true } });
      await expectClosed(v, now, at('2026-06-11T09:00:00Z'), 'paused');
      await patchOk(v, { orderConfig: { pausedUntil: null } });
      await expectClosed(v, now, at('2026-06-11T09:00:00Z'), 'closed');
      await patchOk(v, { openingHours: null, orderConfig: { acceptingOrders: false } });
      await expectClosed(v, now, null, 'not_accepting');
    });

    it('has opensAt null when the next opening is beyond 14 days, and closesAt null when open around the clock', async () => {
      now = START;
      const { v } = await venue({
        openingHours: { weekly: [], exceptions: [{ date: '2026-06-30', isOpen: true, openTime: '10:00', closeTime: '12:00' }] },
      });
      await expectClosed(v, START, null);
      // 13 days later the opening is within 14 days.
      await expectClosed(v, at('2026-06-23T10:00:00Z'), at('2026-06-30T10:00:00Z'));
      await expectOpen(v, at('2026-06-30T11:00:00Z'), at('2026-06-30T12:00:00Z'));
      // 00:00-00:00 every day: open, no closing ahead.
      await patchOk(v, { openingHours: { weekly: everyDay('00:00', '00:00'), exceptions: [] } });
      await expectOpen(v, START, null);
      // The same with Christmas closed: closes at its midnight when that is within 14 days.
      await patchOk(v, { openingHours: { exceptions: [{ date: '2026-06-20', isOpen: false }] } });
      await expectOpen(v, START, at('2026-06-20T00:00:00Z'));
      await expectClosed(v, at('2026-06-20T12:00:00Z'), at('2026-06-21T00:00:00Z'));
    });
  });

  describe('the guest menu ETag follows ordering', () => {
    it('changes when the venue closes, a pause ends or it opens; stays (304) in between', async () => {
      now = at('2026-06-10T16:00:00Z');
      const { v } = await venue({ openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] } });
      const url = `/guest/v1/venues/${v.slug}/menu`;
      const read = async (etag?: string) => call(t.app, 'GET', url, etag ? { headers: { 'if-none-match': etag } } : {});
      const open = await read();
      assert.equal(open.body.ordering.open, true);
      now = at('2026-06-10T16:59:59Z');
      assert.equal((await read(open.headers.etag as string)).status, 304);
      now = at('2026-06-10T17:00:00Z');
      const closed = await read(open.headers.etag as string);
      expectStatus(closed, 200);
      assert.deepEqual([closed.body.ordering.reason, closed.body.ordering.opensAt], ['closed', '2026-06-11T09:00:00.000Z']);
      now = at('2026-06-11T03:00:00Z');
      assert.equal((await read(closed.headers.etag as string)).status, 304, 'still closed, hours later');
      now = at('2026-06-11T09:00:00Z');
      const reopened = await read(closed.headers.etag as string);
      expectStatus(reopened, 200);
      assert.equal(reopened.body.ordering.open, true);
      await patchOk(v, { orderConfig: { pausedUntil: iso(now + 15 * MINUTE) } });
      const paused = await read(reopened.headers.etag as string);
      expectStatus(paused, 200);
      assert.equal(paused.body.ordering.reason, 'paused');
      now += 15 * MINUTE;
      const resumed = await read(paused.headers.etag as string);
      expectStatus(resumed, 200);
      assert.deepEqual([resumed.body.ordering.open, resumed.body.ordering.closesAt], [true, '2026-06-11T17:00:00.000Z']);
    });
  });

  describe('placing orders', () => {
    it('is 409 ORDERING_CLOSED while closed or paused (details reason and opensAt), checked before the items', async () => {
      now = at('2026-06-10T18:00:00Z');
      const { v, ids } = await venue({ openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] } });
      await expectOrderingClosed(v, orderBody(ids), 'closed', at('2026-06-11T09:00:00Z'));
      // Before the items: an unknown product, a sold-out one.
      await expectOrderingClosed(
        v,
        orderBody(ids, { items: [{ productId: ids.productIds.secret, quantity: 1 }] }),
        'closed',
        at('2026-06-11T09:00:00Z'),
      );
      expectStatus(
        await call(t.app, 'PUT', '/v1/availability', { key: v.key, body: { products: [{ ref: 'fries', available: false }] } }),
        200,
      );
      await expectOrderingClosed(v, orderBody(ids), 'closed', at('2026-06-11T09:00:00Z'));
      expectStatus(
        await call(t.app, 'PUT', '/v1/availability', { key: v.key, body: { products: [{ ref: 'fries', available: true }] } }),
        200,
      );

      now = at('2026-06-11T09:00:00Z');
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
      await patchOk(v, { orderConfig: { pausedUntil: iso(now + 20 * MINUTE) } });
      await expectOrderingClosed(v, orderBody(ids), 'paused', now + 20 * MINUTE);
      now += 20 * MINUTE;
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
      assert.equal(await storedOrders(v), 2);
    });

    it('acceptingOrders false stays a 400 (not 409), even while closed', async () => {
      now = at('2026-06-10T18:00:00Z');
      const { v, ids } = await venue({
        openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] },
        orderConfig: { acceptingOrders: false },
      });
      for (const body of [orderBody(ids), orderBody(ids, { scheduledFor: '2026-06-11T10:00:00Z' })]) {
        const res = await placeOrder(t.app, v.slug, body);
        assertInvalid(res, /accepting/);
      }
      now = at('2026-06-11T10:00:00Z');
      assertInvalid(await placeOrder(t.app, v.slug, orderBody(ids)), /accepting/);
      assert.equal(await storedOrders(v), 0);
    });

    it('checks scheduledFor: 400 naming it when disabled, sooner than prepTimeMinutes, past maxDaysAhead or outside the hours', async () => {
      now = START;
      const { v, ids } = await venue(
        { openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] } },
        { scheduledOrders: { enabled: true, maxDaysAhead: 3 }, prepTimeMinutes: 30 },
      );
      now = START;
      const scheduled = (when: number | string) => orderBody(ids, { scheduledFor: typeof when === 'number' ? iso(when) : when });
      assertInvalid(await placeOrder(t.app, v.slug, scheduled(START + 29 * MINUTE)), /^scheduledFor .*30 minutes/);
      assertInvalid(await placeOrder(t.app, v.slug, scheduled(START - HOUR)), /^scheduledFor/);
      assertInvalid(await placeOrder(t.app, v.slug, scheduled(START + 3 * DAY + MINUTE)), /^scheduledFor .*3 days/);
      assertInvalid(await placeOrder(t.app, v.slug, scheduled('2026-06-11T18:00:00Z')), /^scheduledFor .*opening hours/);
      assert.equal(await storedOrders(v), 0);
      expectStatus(await placeOrder(t.app, v.slug, scheduled(START + 30 * MINUTE)), 201);
      expectStatus(await placeOrder(t.app, v.slug, scheduled(at('2026-06-13T09:30:00Z'))), 201);
      await patchOk(v, { orderConfig: { scheduledOrders: { enabled: false } } });
      assertInvalid(await placeOrder(t.app, v.slug, scheduled(at('2026-06-11T10:00:00Z'))), /^scheduledFor /);
      assert.equal(await storedOrders(v), 2);
    });

    it('accepts a scheduled order into an open window while closed now; a bad scheduledFor while closed is 400, not 409', async () => {
      now = at('2026-06-10T20:00:00Z');
      const { v, ids } = await venue({ openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] } });
      const res = await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: '2026-06-11T09:00:00+00:00' }));
      expectStatus(res, 201);
      assert.equal(res.body.scheduledFor, '2026-06-11T09:00:00.000Z');
      assertInvalid(await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: '2026-06-11T08:59:00Z' })), /^scheduledFor/);
      // Paused: a scheduled order is accepted too.
      await patchOk(v, { orderConfig: { pausedUntil: iso(now + HOUR) } });
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: '2026-06-11T12:00:00Z' })), 201);
      await expectOrderingClosed(v, orderBody(ids), 'paused', at('2026-06-11T09:00:00Z'));
      assert.equal(await storedOrders(v), 2);
    });
  });

  describe('the wall clock in the venue timezone', () => {
    /** Open 09:00-17:00 local at `open`..`close`, and closed a moment before `open` with `open` next. */
    async function assertDay(v: VenueFixture, open: string, close: string, label: string): Promise<void> {
      await expectClosed(v, at(open) - MINUTE, at(open), 'closed', `${label}: a minute before 09:00`);
      await expectOpen(v, at(open), at(close), `${label}: 09:00`);
      await expectOpen(v, at(close) - 1, at(close), `${label}: just before 17:00`);
    }

    it('Europe/London: 09:00-17:00 opens at 09:00 local on both sides of the DST changes (2026-03-29, 2026-10-25)', async () => {
      now = at('2026-03-27T12:00:00Z');
      const { v, ids } = await venue({ timezone: 'Europe/London', openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] } });
      await assertDay(v, '2026-03-28T09:00:00Z', '2026-03-28T17:00:00Z', 'Sat 28 March, GMT');
      await expectClosed(v, at('2026-03-28T18:00:00Z'), at('2026-03-29T08:00:00Z'), 'closed', 'the evening before the change');
      await assertDay(v, '2026-03-29T08:00:00Z', '2026-03-29T16:00:00Z', 'Sun 29 March, BST');
      // An order at 09:00 BST goes through; a minute before, it is closed.
      now = at('2026-03-29T07:59:00Z');
      await expectOrderingClosed(v, orderBody(ids), 'closed', at('2026-03-29T08:00:00Z'));
      now = at('2026-03-29T08:00:00Z');
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);

      await assertDay(v, '2026-10-24T08:00:00Z', '2026-10-24T16:00:00Z', 'Sat 24 October, BST');
      await expectClosed(v, at('2026-10-24T18:00:00Z'), at('2026-10-25T09:00:00Z'), 'closed', 'the evening before the change');
      await assertDay(v, '2026-10-25T09:00:00Z', '2026-10-25T17:00:00Z', 'Sun 25 October, GMT');
      now = at('2026-10-25T08:30:00Z'); // 08:30 GMT, 09:30 by the summer clock
      await expectOrderingClosed(v, orderBody(ids), 'closed', at('2026-10-25T09:00:00Z'));
      // Scheduled for 09:00 GMT from the evening before: inside the hours.
      now = at('2026-10-24T20:00:00Z');
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: '2026-10-25T09:00:00Z' })), 201);
      assertInvalid(
        await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: '2026-10-25T08:30:00Z' })),
        /^scheduledFor .*opening hours/,
      );
    });

    it('Australia/Sydney: 09:00-17:00 opens at 09:00 local on both sides of the DST changes (2026-04-05, 2026-10-04)', async () => {
      now = at('2026-04-02T12:00:00Z');
      const { v, ids } = await venue({
        timezone: 'Australia/Sydney',
        openingHours: { weekly: everyDay('09:00', '17:00'), exceptions: [] },
      });
      // Sat 4 April, AEDT (+11): 09:00 is 22:00Z the day before.
      await assertDay(v, '2026-04-03T22:00:00Z', '2026-04-04T06:00:00Z', 'Sat 4 April, AEDT');
      // Sun 5 April, AEST (+10) from 03:00 AEDT.
      await expectClosed(v, at('2026-04-04T12:00:00Z'), at('2026-04-04T23:00:00Z'), 'closed', 'the night of the change');
      await assertDay(v, '2026-04-04T23:00:00Z', '2026-04-05T07:00:00Z', 'Sun 5 April, AEST');
      now = at('2026-04-04T23:00:00Z');
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
      // Sat 3 October, AEST (+10); Sun 4 October, AEDT (+11) from 02:00 AEST.
      await assertDay(v, '2026-10-02T23:00:00Z', '2026-10-03T07:00:00Z', 'Sat 3 October, AEST');
      await expectClosed(v, at('2026-10-03T12:00:00Z'), at('2026-10-03T22:00:00Z'), 'closed', 'the night of the change');
      await assertDay(v, '2026-10-03T22:00:00Z', '2026-10-04T06:00:00Z', 'Sun 4 October, AEDT');
      now = at('2026-10-03T21:59:00Z');
      await expectOrderingClosed(v, orderBody(ids), 'closed', at('2026-10-03T22:00:00Z'));
      now = at('2026-10-03T22:00:00Z');
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
    });

    it('hours past midnight belong to the day they start on (Fri 18:00-02:00 is open at Sat 01:30)', async () => {
      now = START;
      // Europe/London in June: BST, UTC+1.
      const { v, ids } = await venue({
        timezone: 'Europe/London',
        openingHours: { weekly: [shift('friday', '18:00', '02:00')], exceptions: [] },
      });
      await expectClosed(v, at('2026-06-12T16:59:00Z'), at('2026-06-12T17:00:00Z'), 'closed', 'Fri 17:59');
      await expectOpen(v, at('2026-06-12T17:00:00Z'), at('2026-06-13T01:00:00Z'), 'Fri 18:00');
      await expectOpen(v, at('2026-06-13T00:30:00Z'), at('2026-06-13T01:00:00Z'), 'Sat 01:30');
      now = at('2026-06-13T00:30:00Z');
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
      await expectClosed(v, at('2026-06-13T01:00:00Z'), at('2026-06-19T17:00:00Z'), 'closed', 'Sat 02:00');
    });

    it('an exception date closes it (2026-12-25), while Dec 24 22:00-02:00 is still open at 01:00 on the 25th', async () => {
      now = at('2026-12-20T12:00:00Z');
      // Europe/London in December: GMT, UTC+0.
      const { v, ids } = await venue({
        timezone: 'Europe/London',
        openingHours: {
          weekly: [shift('thursday', '22:00', '02:00'), shift('friday', '22:00', '02:00')],
          exceptions: [{ date: '2026-12-25', isOpen: false }],
        },
      });
      await expectOpen(v, at('2026-12-24T22:00:00Z'), at('2026-12-25T02:00:00Z'), 'Thu 24th 22:00');
      await expectOpen(v, at('2026-12-25T01:00:00Z'), at('2026-12-25T02:00:00Z'), 'Fri 25th 01:00');
      now = at('2026-12-25T01:00:00Z');
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
      // Friday the 25th's own 22:00 shift is gone: the next opening is Thursday the 31st.
      await expectClosed(v, at('2026-12-25T02:00:00Z'), at('2026-12-31T22:00:00Z'), 'closed', 'Fri 25th 02:00');
      await expectClosed(v, at('2026-12-25T22:30:00Z'), at('2026-12-31T22:00:00Z'), 'closed', 'Fri 25th 22:30');
      now = at('2026-12-25T22:30:00Z');
      await expectOrderingClosed(v, orderBody(ids), 'closed', at('2026-12-31T22:00:00Z'));
      await expectOpen(v, at('2027-01-01T01:00:00Z'), at('2027-01-01T02:00:00Z'), 'Fri 1 January 01:00');
      await expectOpen(v, at('2027-01-01T22:00:00Z'), at('2027-01-02T02:00:00Z'), 'Fri 1 January 22:00');
    });

    it('split shifts: open in each, closed between them with the second one next', async () => {
      now = START;
      // Monday 2026-06-15, Europe/London (BST): 12:00-15:00 and 18:00-23:00 local.
      const { v, ids } = await venue({
        timezone: 'Europe/London',
        openingHours: { weekly: [shift('monday', '12:00', '15:00'), shift('monday', '18:00', '23:00')], exceptions: [] },
      });
      await expectClosed(v, at('2026-06-15T10:00:00Z'), at('2026-06-15T11:00:00Z'), 'closed', 'Mon 11:00');
      await expectOpen(v, at('2026-06-15T12:00:00Z'), at('2026-06-15T14:00:00Z'), 'Mon 13:00');
      await expectClosed(v, at('2026-06-15T14:30:00Z'), at('2026-06-15T17:00:00Z'), 'closed', 'Mon 15:30');
      now = at('2026-06-15T14:30:00Z');
      await expectOrderingClosed(v, orderBody(ids), 'closed', at('2026-06-15T17:00:00Z'));
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: '2026-06-15T18:30:00+01:00' })), 201);
      assertInvalid(
        await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: '2026-06-15T16:00:00+01:00' })),
        /^scheduledFor .*opening hours/,
      );
      await expectOpen(v, at('2026-06-15T17:00:00Z'), at('2026-06-15T22:00:00Z'), 'Mon 18:00');
      await expectClosed(v, at('2026-06-15T22:00:00Z'), at('2026-06-22T11:00:00Z'), 'closed', 'Mon 23:00');
    });
  });
});
