import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';
import { expectStatus, orderBody, placeOrder, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

// Every date a request carries reaches SQL as the instant it names, never as its text (docs/security.md,
// "Dates"): RFC 3339 allows offsets to ±23:59, PostgreSQL only to ±15:59, and a guest order for
// `2026-12-08T12:00:00+23:59` was a 500 on PostgreSQL. Run on both engines. The clock is injected.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const iso = (t: number) => new Date(t).toISOString();
/** Wednesday 2026-06-10, 10:00 UTC. */
const START = Date.parse('2026-06-10T10:00:00Z');
let now = START;

/** `ms` as the wall-clock text of a zone `offset` minutes from UTC, with `zone` as written. */
function spelled(ms: number, offset: number, zone: string, separator = 'T'): string {
  const local = iso(ms + offset * MINUTE);
  return `${local.slice(0, 10)}${separator}${local.slice(11, local.endsWith('.000Z') ? 19 : 23)}${zone}`;
}

/** One instant in the zones RFC 3339 allows: the edges (±23:59), odd ones, both cases of T and Z. */
const SPELLINGS: Array<[number, string, string?]> = [
  [23 * 60 + 59, '+23:59'],
  [-(23 * 60 + 59), '-23:59'],
  [14 * 60, '+14:00'],
  [-12 * 60, '-12:00'],
  [5 * 60 + 45, '+05:45'],
  [16 * 60, '+16:00'],
  [0, '+00:00'],
  [0, '-00:00'],
  [0, 'Z'],
  [0, 'z', 't'],
];
/** Zones beyond RFC 3339 (and forms it does not have): a 400 naming the field. */
const BAD_ZONES = ['+24:00', '-24:00', '+23:60', '+99:99', '+05'];

function assertNamed(res: Call, field: RegExp, label: string): void {
  assert.equal(res.status, 400, `${label}: ${res.status} ${JSON.stringify(res.body)}`);
  const named = [...(res.body.errors ?? []), res.body.message].some((e: string) => field.test(e));
  assert.ok(named, `${label}: the error names the field: ${JSON.stringify(res.body)}`);
}

describe('date-times in requests: parsed to an instant before SQL, any RFC 3339 offset', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  before(async () => {
    t = await startApp({}, undefined, { clock: () => now, webhookDispatch: { paused: true } });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
  });
  after(() => t?.close());

  const storedOrders = async () =>
    (await t.database.db.query<{ n: number }>('select count(*)::int as n from orders where venue_id = $1', [v.id])).rows[0].n;

  it('stores a guest order scheduled at +23:59, -23:59 or any other offset as its instant', async () => {
    now = START;
    const when = START + 2 * DAY;
    for (const [offset, zone, separator] of SPELLINGS) {
      const text = spelled(when, offset, zone, separator);
      const res = await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: text }));
      expectStatus(res, 201);
      assert.equal(res.body.scheduledFor, iso(when), text);
      const read = await call(t.app, 'GET', `/v1/orders/${res.body.id}`, { key: v.key });
      assert.equal(read.body.scheduledFor, iso(when), `${text} read back`);
    }
  });

  it('refuses an offset beyond ±23:59 as a 400 naming scheduledFor; nothing is stored', async () => {
    now = START;
    const before = await storedOrders();
    for (const zone of BAD_ZONES) {
      const text = `${spelled(START + 2 * DAY, 0, '')}${zone}`;
      assertNamed(await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: text })), /^scheduledFor /, text);
    }
    assert.equal(await storedOrders(), before);
  });

  it('takes a sold-out until and a pause at any offset as their instants, and refuses the rest naming the field', async () => {
    now = START;
    const until = START + 3 * 60 * MINUTE;
    for (const [offset, zone, separator] of SPELLINGS) {
      const text = spelled(until, offset, zone, separator);
      const res = await call(t.app, 'PUT', '/v1/availability', {
        key: v.key,
        body: { products: [{ ref: 'fries', available: false, until: text }] },
      });
      expectStatus(res, 200);
      const list = await call(t.app, 'GET', '/v1/availability', { key: v.key });
      assert.deepEqual(
        list.body.products.map((p: any) => [p.ref, p.until]),
        [['fries', iso(until)]],
        text,
      );
      const paused = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { orderConfig: { pausedUntil: text } } });
      expectStatus(paused, 200);
      assert.equal(paused.body.orderConfig.pausedUntil, iso(until), text);
    }
    expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { orderConfig: { pausedUntil: null } } }), 200);
    expectStatus(
      await call(t.app, 'PUT', '/v1/availability', { key: v.key, body: { products: [{ ref: 'fries', available: true }] } }),
      200,
    );
    for (const zone of BAD_ZONES) {
      const text = `${spelled(until, 0, '')}${zone}`;
      assertNamed(
        await call(t.app, 'PUT', '/v1/availability', { key: v.key, body: { products: [{ ref: 'fries', available: false, until: text }] } }),
        /^products\[0\]\.until /,
        text,
      );
      assertNamed(
        await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { orderConfig: { pausedUntil: text } } }),
        /^orderConfig\.pausedUntil /,
        text,
      );
    }
  });

  it('filters the order list by createdFrom, createdTo and updatedSince at any offset; the rest is a 400 naming the parameter', async () => {
    now = START;
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(placed, 201);
    const at = Date.parse(placed.body.createdAt);
    for (const [offset, zone, separator] of SPELLINGS) {
      const text = encodeURIComponent(spelled(at, offset, zone, separator));
      for (const query of [`createdFrom=${text}`, `createdTo=${text}`, `updatedSince=${text}`, `since=${text}`]) {
        const res = await call(t.app, 'GET', `/v1/orders?${query}`, { key: v.key });
        assert.equal(res.status, 200, `${decodeURIComponent(query)}: ${JSON.stringify(res.body)}`);
        assert.ok(
          res.body.items.some((o: any) => o.id === placed.body.id),
          `${decodeURIComponent(query)} includes the order placed at that instant`,
        );
      }
    }
    for (const zone of BAD_ZONES) {
      for (const name of ['createdFrom', 'createdTo', 'updatedSince', 'since']) {
        const text = `${spelled(at, 0, '')}${zone}`;
        assertNamed(
          await call(t.app, 'GET', `/v1/orders?${name}=${encodeURIComponent(text)}`, { key: v.key }),
          new RegExp(`^${name} `),
          `${name}=${text}`,
        );
      }
    }
  });

  it('takes banner and promotion schedules at real-world offsets as instants; an offset beyond ±14:59 is a 400 naming the field', async () => {
    now = START;
    const at = START + DAY;
    for (const [offset, zone] of [
      [14 * 60, '+14:00'],
      [-12 * 60, '-12:00'],
      [5 * 60 + 45, '+05:45'],
      [0, '-00:00'],
      [0, 'Z'],
    ] as const) {
      const text = spelled(at, offset, zone);
      const banner = await call(t.app, 'POST', '/v1/banners', { key: v.key, body: { title: 'Dated', startsAt: text, endsAt: null } });
      expectStatus(banner, 201);
      assert.equal(banner.body.startsAt, iso(at), text);
      const promotion = await call(t.app, 'POST', '/v1/promotions', { key: v.key, body: { name: 'Dated', endsAt: text } });
      expectStatus(promotion, 201);
      assert.equal(promotion.body.endsAt, iso(at), text);
    }
    for (const zone of [...BAD_ZONES, '+23:59', '+15:00']) {
      const text = `${spelled(at, 0, '')}${zone}`;
      assertNamed(await call(t.app, 'POST', '/v1/banners', { key: v.key, body: { title: 'Dated', startsAt: text } }), /^startsAt /, text);
      assertNamed(await call(t.app, 'POST', '/v1/promotions', { key: v.key, body: { name: 'Dated', endsAt: text } }), /^endsAt /, text);
    }
  });
});
