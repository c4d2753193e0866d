import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openPostgres } from '../../src/db/postgres.js';
import type { Database } from '../../src/db/port.js';
import { claimDeliveries, recordBatch } from '../../src/modules/webhooks/deliveries.repository.js';
import { WebhookDispatcher } from '../../src/modules/webhooks/dispatcher.js';
import { WebhookSender } from '../../src/modules/webhooks/webhook-sender.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';
import { expectStatus, orderBody, placeOrder, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { loopbackResolver, sleep, until } from '../helpers/net.js';
import { Receiver } from '../helpers/webhook-receiver.js';

// Dispatchers sharing one database never send a delivery twice at once, send each
// endpoint's deliveries in commit order, and a delivery claimed by an instance that died is sent
// once its lease runs out. On PostgreSQL the two dispatchers have pools of their own (as two
// instances would); on PGlite they share the one connection.

describe('webhook dispatchers sharing a database', () => {
  const receiver = new Receiver();
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  const extra: Database[] = [];

  before(async () => {
    await receiver.listen();
    // The app's own dispatcher is paused: the dispatchers under test are made below.
    t = await startApp({ ssrfTestAllow: [{ host: '127.0.0.1', port: receiver.port }] }, undefined, { webhookDispatch: { paused: true } });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
    const created = await call(t.app, 'POST', '/v1/webhooks', {
      key: v.key,
      body: { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['order.created'] },
    });
    expectStatus(created, 201);
    receiver.secrets = [created.body.secret];
  });
  after(async () => {
    await t.close();
    for (const db of extra) await db.close();
    await receiver.close();
  });

  /** A database handle of its own on the test's schema (PostgreSQL), or the app's (PGlite). */
  async function instanceDb(): Promise<Database> {
    if (!onPostgres) return t.database.db;
    const db = await openPostgres({ url: process.env.DATABASE_URL!, poolSize: 4, schema: t.database.schema, listen: false });
    extra.push(db);
    return db;
  }

  const dispatcher = async () =>
    new WebhookDispatcher(
      await instanceDb(),
      new WebhookSender({ resolve: loopbackResolver, allow: [{ host: '127.0.0.1', port: receiver.port }] }),
      {
        pollMs: 20,
        concurrency: 4,
      },
    );

  it('sends each of 40 deliveries exactly once between two dispatchers, in the order the orders were placed', async () => {
    const placed: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const res = await placeOrder(t.app, v.slug, orderBody(ids));
      expectStatus(res, 201);
      placed.push(res.body.id);
    }
    const [a, b] = [await dispatcher(), await dispatcher()];
    await Promise.all([a.start(), b.start()]);
    try {
      await until('40 deliveries', () => receiver.unique().length >= 40, 20_000);
      await sleep(200);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    assert.equal(receiver.accepted.length, 40, 'no delivery was sent twice');
    assert.deepEqual(
      receiver.unique().map((r) => r.body.data.order.id),
      placed,
      'in commit order',
    );
    const { rows } = await t.database.db.query<{ status: string; attempts: number; n: number }>(
      `select status, attempts, count(*)::int as n from webhook_deliveries where venue_id = $1 group by 1, 2`,
      [v.id],
    );
    assert.deepEqual(rows, [{ status: 'delivered', attempts: 1, n: 40 }]);
  });

  it('sends a backlog in batches, in order, handing back what a failure or the lease leaves unsent with its attempt uncounted', async () => {
    const before = receiver.accepted.length;
    const placed: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const res = await placeOrder(t.app, v.slug, orderBody(ids));
      expectStatus(res, 201);
      placed.push(res.body.id);
    }
    // Each answer takes 150 ms; a send may start only while its 500 ms timeout ends inside the
    // 1.5 s lease, so one claim of the 12 cannot send them all. The third answer is a 500: the
    // batch stops there and what follows waits behind its retry (100 ms later).
    receiver.script = [
      { status: 200, late: 150 },
      { status: 200, late: 150 },
      500,
      ...Array.from({ length: 12 }, () => ({ status: 200, late: 150 })),
    ];
    const sender = new WebhookSender(
      { resolve: loopbackResolver, allow: [{ host: '127.0.0.1', port: receiver.port }] },
      { timeoutMs: 500 },
    );
    const d = new WebhookDispatcher(await instanceDb(), sender, {
      pollMs: 20,
      leaseMs: 1500,
      timeoutMs: 500,
      retryDelaysMs: [100],
      roundIntervalMs: 10,
    });
    await d.start();
    try {
      await until('12 deliveries', () => placed.every((id) => receiver.unique().some((r) => r.body.data.order.id === id)), 20_000);
      await sleep(100);
    } finally {
      await d.stop();
      receiver.script = [];
    }
    const got = receiver.accepted.slice(before);
    assert.equal(got.length, 12, 'each sent until accepted, none twice');
    assert.deepEqual(
      got.map((r) => r.body.data.order.id),
      placed,
      'in commit order',
    );
    // A delivery's attempts are the attempts logged: one handed back unsent counted none.
    const { rows } = await t.database.db.query<{ status: string; attempts: number; logged: number }>(
      `select d.status, d.attempts, (select count(*)::int from webhook_attempts a where a.venue_id = d.venue_id and a.delivery_id = d.id) as logged
       from webhook_deliveries d join webhook_events e on e.venue_id = d.venue_id and e.id = d.event_id
       where d.venue_id = $1 and (e.payload::jsonb -> 'data' -> 'order' ->> 'id') = any($2::text[])
       order by d.seq`,
      [v.id, placed],
    );
    assert.equal(rows.length, 12);
    assert.ok(
      rows.every((r) => r.status === 'delivered' && r.attempts === r.logged),
      JSON.stringify(rows),
    );
    assert.deepEqual(
      rows.map((r) => r.attempts),
      [1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      'the third was tried twice',
    );
  });

  it('sends a delivery claimed by an instance that died once its lease runs out', async () => {
    const res = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(res, 201);
    // The dispatcher is ready first, so the lease is not spent opening it on a loaded machine.
    const c = await dispatcher();
    // An instance claims it (a lease of 1.5 s) and dies before sending.
    const claimed = await t.database.db.transaction((tx) => claimDeliveries(tx, v.id, { endpoints: 10, batch: 10 }, 1500));
    assert.equal(claimed.length, 1);
    await c.start();
    c.arm();
    try {
      c.wake();
      await sleep(100);
      assert.ok(!receiver.unique().some((r) => r.body.data.order.id === res.body.id), 'not while the lease lasts');
      await until('sent after the lease', () => receiver.unique().some((r) => r.body.data.order.id === res.body.id), 10_000);
    } finally {
      await c.stop();
    }
    const { rows } = await t.database.db.query<{ status: string; attempts: number }>(
      'select status, attempts from webhook_deliveries where venue_id = $1 and id = $2',
      [v.id, claimed[0].id],
    );
    assert.deepEqual(rows[0], { status: 'delivered', attempts: 2 });
  });
  it('skips an endpoint whose head another claim holds locked, never taking the delivery behind it', { skip: !onPostgres }, async () => {
    const placed: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const res = await placeOrder(t.app, v.slug, orderBody(ids));
      expectStatus(res, 201);
      placed.push(res.body.id);
    }
    const other = await instanceDb();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    // Another instance's claim, caught between locking the head and committing its lease.
    const holder = t.database.db.transaction(async (tx) => {
      await tx.query(`select id from webhook_deliveries where venue_id = $1 and status = 'pending' order by seq limit 1 for update`, [
        v.id,
      ]);
      locked();
      await released;
    });
    await holding;
    try {
      assert.deepEqual(await claimDeliveries(other.unread, v.id, { endpoints: 10, batch: 10 }, 60_000), [], 'nothing behind a locked head');
    } finally {
      release();
      await holder;
    }
    const claimed = await claimDeliveries(other.unread, v.id, { endpoints: 10, batch: 10 }, 60_000);
    assert.equal(claimed.length, 2, 'the head and the one behind, once free');
    // Handed back unsent, as a stopping dispatcher would.
    await recordBatch(
      other.unread,
      v.id,
      claimed[0].endpoint_id,
      claimed.map((d) => ({ id: d.id, attempt: d.attempts, outcome: null, result: null })),
    );
    const { rows } = await t.database.db.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries where venue_id = $1 and status = 'pending' and leased_until is null and attempts = 0`,
      [v.id],
    );
    assert.equal(rows[0].n, 2);
  });
});
