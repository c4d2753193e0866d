import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EpochMemo } from '../../src/db/epoch-memo.js';
import type { Database } from '../../src/db/port.js';
import { decodeScope, encodeScope, WriteEpochs } from '../../src/db/write-epochs.js';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { expectStatus, orderBody, placeOrder, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { assertWithinScope, writesOrdersOnly, WriteTracker } from '../../src/db/write-scope.js';

const A = '00000000-0000-7000-8000-00000000000a';
const B = '00000000-0000-7000-8000-00000000000b';

describe('write epochs', () => {
  it('a venue write moves that venue only, an order write its orders only, an unscoped write everything', () => {
    const e = new WriteEpochs();
    const snap = () => [
      e.of({ venueId: A }),
      e.of({ venueId: A, orders: true }),
      e.of({ venueId: B }),
      e.of({ venueId: B, orders: true }),
      e.of(),
    ];
    const moved = (before: number[], after: number[]) => before.map((b, i) => after[i] !== b);

    let s0 = snap();
    e.moved({ venueId: A });
    let s1 = snap();
    assert.deepEqual(moved(s0, s1), [true, true, false, false, true]);

    s0 = s1;
    e.moved({ venueId: A, ordersOnly: true });
    s1 = snap();
    assert.deepEqual(moved(s0, s1), [false, true, false, false, true]);

    s0 = s1;
    e.moved();
    s1 = snap();
    assert.deepEqual(moved(s0, s1), [true, true, true, true, true]);
  });

  it('travels in a NOTIFY payload', () => {
    for (const scope of [undefined, { venueId: A }, { venueId: A, ordersOnly: true }]) {
      const back = decodeScope(encodeScope(scope));
      assert.deepEqual(
        back && { venueId: back.venueId, ordersOnly: back.ordersOnly || undefined },
        scope && { venueId: scope.venueId, ordersOnly: scope.ordersOnly },
      );
    }
    assert.equal(decodeScope(''), undefined);
    assert.equal(decodeScope('garbage'), undefined, 'an unknown payload moves everything');
  });

  it('memos keep a value while its scope has not moved, and never one a write overtook while loading', async () => {
    const epochs = new WriteEpochs();
    const db = { coherent: () => true, writeEpoch: (s?: { venueId: string }) => epochs.of(s) } as unknown as Database;
    const memo = new EpochMemo<string>(db);
    let loads = 0;
    const load = async () => `v${++loads}`;
    assert.equal(await memo.get('a', { venueId: A }, load), 'v1');
    assert.equal(memo.peek('a'), 'v1', 'a hit comes without a promise');
    epochs.moved({ venueId: B });
    epochs.moved({ venueId: A, ordersOnly: true });
    assert.equal(memo.peek('a'), 'v1', "another venue, and this venue's orders, leave it");
    assert.equal(await memo.get('a', { venueId: A }, load), 'v1');
    epochs.moved({ venueId: A });
    assert.equal(memo.peek('a'), undefined, 'a write to its venue ends it');
    assert.equal(await memo.get('a', { venueId: A }, load), 'v2');

    // A scope found from the value: a miss (no venue) is read again after any write.
    const found = new EpochMemo<{ venueId: string } | null>(db);
    const lookups = { n: 0 };
    const byKey = (value: { venueId: string } | null) => (value ? { venueId: value.venueId } : undefined);
    await found.get('known', byKey, async () => (lookups.n++, { venueId: A }));
    await found.get('unknown', byKey, async () => (lookups.n++, null));
    epochs.moved({ venueId: B });
    await found.get('known', byKey, async () => (lookups.n++, { venueId: A }));
    await found.get('unknown', byKey, async () => (lookups.n++, null));
    assert.equal(lookups.n, 3, 'the known key stayed; the miss was read again');

    // A write during the load: the value is returned but not kept.
    const racing = new EpochMemo<string>(db);
    let n = 0;
    await racing.get('r', { venueId: A }, async () => {
      epochs.moved({ venueId: A });
      return `r${++n}`;
    });
    assert.equal(await racing.get('r', { venueId: A }, async () => `r${++n}`), 'r2');
  });
});

describe("write epochs through the API: one venue's writes leave the others' memos", () => {
  let t: TestApp;
  let statements: string[] = [];
  let recording = false;
  let a: { v: VenueFixture; ids: MenuIds };
  let b: { v: VenueFixture; ids: MenuIds };

  before(async () => {
    t = await startApp({}, (text) => {
      if (recording) statements.push(text);
    });
    for (const name of ['a', 'b'] as const) {
      const v = await createVenue(t.app, { plan: 'pro' });
      const ids = await setUpOrderMenu(t.app, v);
      if (name === 'a') a = { v, ids };
      else b = { v, ids };
    }
  });
  after(() => t.close());

  async function recorded<T>(fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
    statements = [];
    recording = true;
    try {
      return { result: await fn(), sql: statements };
    } finally {
      recording = false;
    }
  }

  const venueReads = (sql: string[]) => sql.filter((s) => /from venues v\s+left join venue_settings/.test(s));
  const merchReads = (sql: string[]) => sql.filter((s) => /from (banners|promotions)\b/.test(s));

  it('an order in one venue, or a sync of another, does not make the next order re-read its venue', async () => {
    expectStatus(await placeOrder(t.app, b.v.slug, orderBody(b.ids)), 201);
    expectStatus(await placeOrder(t.app, a.v.slug, orderBody(a.ids)), 201);
    expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: a.v.key, body: { name: 'A, renamed' } }), 200);
    const { result, sql } = await recorded(() => placeOrder(t.app, b.v.slug, orderBody(b.ids)));
    expectStatus(result, 201);
    assert.deepEqual(venueReads(sql), [], 'the venue look-up stays memoised');
    assert.deepEqual(merchReads(sql), [], 'and its merchandising');
    assert.equal(sql.length, 1, `one statement places the order: ${sql.join(' | ')}`);
  });

  it("a write of another venue with an Idempotency-Key leaves this venue's memos (its key is an order-side write of its own venue)", async () => {
    expectStatus(await placeOrder(t.app, b.v.slug, orderBody(b.ids)), 201);
    const keyed = await call(t.app, 'PATCH', '/v1/settings', {
      key: a.v.key,
      body: { name: 'A, keyed' },
      headers: { 'idempotency-key': `k-${Date.now()}` },
    });
    expectStatus(keyed, 200);
    const { result, sql } = await recorded(() => placeOrder(t.app, b.v.slug, orderBody(b.ids)));
    expectStatus(result, 201);
    assert.deepEqual(venueReads(sql), [], 'the venue look-up stays memoised');
    assert.equal(sql.length, 1, `one statement places the order: ${sql.join(' | ')}`);
  });

  it("a venue's own change, or an operator's, is seen at once", async () => {
    expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: b.v.key, body: { name: 'B, renamed' } }), 200);
    const menu = await recorded(() => call(t.app, 'GET', `/guest/v1/venues/${b.v.slug}/menu`));
    expectStatus(menu.result, 200);
    assert.equal(menu.result.body.venue.name, 'B, renamed');
    assert.equal(venueReads(menu.sql).length, 1);

    // The operator's plan change is unscoped: every memo reads again.
    expectStatus(await admin(t.app, 'PATCH', `/venues/${b.v.id}`, { subscriptionStatus: 'canceled' }), 200);
    const refused = await placeOrder(t.app, b.v.slug, orderBody(b.ids));
    expectStatus(refused, 403);
    expectStatus(await admin(t.app, 'PATCH', `/venues/${b.v.id}`, { subscriptionStatus: 'active' }), 200);
    expectStatus(await placeOrder(t.app, b.v.slug, orderBody(b.ids)), 201);
  });

  it('an order is in the next orders page, however that page was memoised', async () => {
    const first = await call(t.app, 'GET', '/v1/orders', { key: b.v.key });
    expectStatus(first, 200);
    const again = await recorded(() => call(t.app, 'GET', '/v1/orders', { key: b.v.key }));
    assert.deepEqual(again.result.body, first.body);
    assert.equal(again.sql.filter((s) => /from orders\b/.test(s)).length, 0, 'an unchanged page is memoised');

    expectStatus(await placeOrder(t.app, a.v.slug, orderBody(a.ids)), 201);
    const afterOther = await recorded(() => call(t.app, 'GET', '/v1/orders', { key: b.v.key }));
    assert.equal(afterOther.sql.filter((s) => /from orders\b/.test(s)).length, 0, "another venue's order leaves it");

    const placed = await placeOrder(t.app, b.v.slug, orderBody(b.ids));
    expectStatus(placed, 201);
    const next = await call(t.app, 'GET', '/v1/orders', { key: b.v.key });
    assert.ok(
      next.body.items.some((o: { id: string }) => o.id === placed.body.id),
      'the new order is listed',
    );
  });
});

describe('write scopes found from the statements', () => {
  it("counts a statement as the venue's orders only when every table it writes is an order-side one", () => {
    const ordersOnly = [
      'insert into orders (venue_id, id) values ($1, $2)',
      `with placed as (insert into orders (venue_id) values ($1) returning id), lines as (insert into order_items (order_id) select id from placed)
       select id from placed, webhook_outbox($1, $2, 'order.created', '{}')`,
      'update orders set status = $3 where venue_id = $1 and id = $2',
      'insert into order_clocks (venue_id, last) values ($1, now()) on conflict (venue_id) do update set last = excluded.last',
      'UPDATE webhook_deliveries SET status = $2 WHERE venue_id = $1',
      'delete from idempotency_keys where venue_id = $1 and created_at < $2',
      'insert into audit_log (venue_id, action) values ($1, $2)',
    ];
    const venueWide = [
      'update products set name = $3 where venue_id = $1 and id = $2',
      'with o as (update orders set status = $2 where venue_id = $1) update venue_settings set revision = revision + 1 where venue_id = $1',
      'insert into orders (venue_id) values ($1); delete from banners where venue_id = $1',
      'update webhook_endpoints set failing_since = now() where venue_id = $1',
      'select pg_advisory_xact_lock(1)',
    ];
    for (const text of ordersOnly) assert.equal(writesOrdersOnly(text), true, text);
    for (const text of venueWide) assert.equal(writesOrdersOnly(text), false, text);
    // A row lock is not a write of its table.
    assert.equal(writesOrdersOnly('update orders set status = $2 where id in (select id from products for update)'), true);
  });

  it('narrows a transaction to its orders only while every write was one, and a script to everything', () => {
    const orders = new WriteTracker(A);
    orders.note('update orders set status = $2 where venue_id = $1');
    orders.note('insert into audit_log (venue_id) values ($1)');
    assert.deepEqual(orders.scope(), { venueId: A, ordersOnly: true });
    orders.note('update products set revision = revision + 1 where venue_id = $1');
    assert.deepEqual(orders.scope(), { venueId: A });

    const script = new WriteTracker(A);
    script.note(null);
    assert.deepEqual(script.scope(), { venueId: A });
    assert.equal(new WriteTracker(undefined).scope(), undefined, 'no venue: anything');
    assert.throws(
      () => assertWithinScope({ venueId: A, ordersOnly: true }, 'update products set name = $2'),
      /declared to write only orders/,
    );
    assert.doesNotThrow(() => assertWithinScope({ venueId: A, ordersOnly: true }, 'insert into orders (venue_id) values ($1)'));
  });
});
