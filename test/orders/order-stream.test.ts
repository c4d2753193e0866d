import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { openPostgres } from '../../src/db/postgres.js';
import type { Database } from '../../src/db/port.js';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';
import { createOrder, driveTo, expectStatus, orderBody, patchStatus, setUpOrderMenu, sleep, type MenuIds } from '../helpers/orders.js';
import { SseClient } from '../helpers/sse-client.js';

// GET /v1/orders/stream, the live order stream (docs/events.md).

/** Listens on a loopback port of its own; Fastify answers with the base URL. */
const listen = (app: App): Promise<string> => app.listen({ port: 0, host: '127.0.0.1' });

const streamOf = (base: string, key: string, headers: Record<string, string> = {}, query = '') =>
  SseClient.open(`${base}/v1/orders/stream${query}`, { authorization: `Bearer ${key}`, ...headers });

describe('the live order stream', () => {
  let t: TestApp;
  let base: string;
  let v: VenueFixture;
  let ids: MenuIds;

  before(async () => {
    t = await startApp({}, undefined, { orderStreams: { heartbeatMs: 150, perVenue: 3, slowReaderMs: 300 } });
    base = await listen(t.app);
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
  });
  after(() => t.close());

  it('sends each order change as it commits: id the updatedAt, created then updated, the order as GET /v1/orders/:id shows it', async () => {
    const stream = await streamOf(base, v.key);
    try {
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      assert.equal(stream.headers['cache-control'], 'no-store');
      assert.ok(stream.headers['x-request-id']);
      await stream.until('the retry hint', () => stream.retry !== null);
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      await stream.until('order.created', () => stream.events.length === 1);
      const confirmed = (await patchStatus(t.app, v.key, order.id, 'confirmed')).body;
      await stream.until('order.updated', () => stream.events.length === 2);
      assert.deepEqual(
        stream.events.map((e) => [e.event, e.id]),
        [
          ['order.created', order.updatedAt],
          ['order.updated', confirmed.updatedAt],
        ],
      );
      const read = await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: v.key });
      assert.deepEqual(stream.orders()[1], read.body);
      assert.equal(stream.orders()[0].status, 'new');
    } finally {
      stream.close();
    }
  });

  it('starts now, at updatedSince (inclusive), or right after Last-Event-ID', async () => {
    const venue = await createVenue(t.app, { plan: 'pro' });
    const menu = await setUpOrderMenu(t.app, venue);
    const placed = [];
    for (let i = 0; i < 3; i += 1) placed.push(await createOrder(t.app, venue.slug, orderBody(menu)));
    const idsOf = (s: SseClient) => s.orders().map((o) => o.id);

    const since = await streamOf(base, venue.key, {}, `?updatedSince=${encodeURIComponent(placed[0].updatedAt)}`);
    const resumed = await streamOf(base, venue.key, { 'last-event-id': placed[0].updatedAt });
    const now = await streamOf(base, venue.key);
    try {
      await since.until('the three orders', () => since.events.length === 3);
      assert.deepEqual(
        idsOf(since),
        placed.map((o) => o.id),
      );
      await resumed.until('the two after the first', () => resumed.events.length === 2);
      assert.deepEqual(
        idsOf(resumed),
        placed.slice(1).map((o) => o.id),
      );
      const next = await createOrder(t.app, venue.slug, orderBody(menu));
      await now.until('the new order', () => now.events.length >= 1);
      assert.deepEqual(idsOf(now), [next.id], 'a first connection without a cursor starts now');
      await since.until('the new order', () => since.events.length === 4);
    } finally {
      for (const s of [since, resumed, now]) s.close();
    }
  });

  it('refuses a bad cursor with 400 before streaming, and HEAD answers the headers alone', async () => {
    const bad = await streamOf(base, v.key, { 'last-event-id': 'yesterday' });
    assert.equal(bad.status, 400);
    assert.match(JSON.parse(bad.body).message, /Last-Event-ID must be an ISO 8601 timestamp/);
    const naive = await call(t.app, 'GET', '/v1/orders/stream?updatedSince=2026-01-01T10:00:00', { key: v.key });
    expectStatus(naive, 400);
    assert.match(naive.body.message, /^updatedSince must be/);
    const head = await t.app.inject({ method: 'HEAD', url: '/v1/orders/stream', headers: { authorization: `Bearer ${v.key}` } });
    assert.equal(head.statusCode, 200);
    assert.match(String(head.headers['content-type']), /^text\/event-stream/);
    assert.equal(head.body, '');
    assert.equal(t.services.orderStreams.count(v.id), 0, 'HEAD opens no stream');
  });

  it('loses nothing across reconnects with Last-Event-ID while guests and staff write concurrently', async () => {
    const venue = await createVenue(t.app, { plan: 'pro' });
    const menu = await setUpOrderMenu(t.app, venue);
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const order = await createOrder(t.app, venue.slug, orderBody(menu));
        for (const status of ['confirmed', 'preparing', 'completed'] as const) {
          if (Math.random() < 0.3) break;
          expectStatus(await patchStatus(t.app, venue.key, order.id, status), 200);
        }
      }
    });
    // The reader leaves after a few events each time, and comes back with the last id it saw.
    const seen: { id: string; order: any }[] = [];
    let lastId: string | undefined;
    let reconnects = 0;
    const deadline = Date.now() + 2500;
    while (Date.now() < deadline || reconnects < 6) {
      const stream = await streamOf(
        base,
        venue.key,
        lastId ? { 'last-event-id': lastId } : {},
        lastId ? '' : '?updatedSince=2000-01-01T00:00:00Z',
      );
      const want = 1 + Math.floor(Math.random() * 6);
      await stream.until(`${want} events`, () => stream.events.length >= want, 5000).catch(() => {});
      stream.close();
      reconnects += 1;
      for (const e of stream.events) seen.push({ id: e.id!, order: JSON.parse(e.data) });
      lastId = seen.at(-1)?.id ?? lastId;
    }
    writing = false;
    await Promise.all(writers);
    // Then once more to the end: everything written is there.
    const rest = await streamOf(base, venue.key, lastId ? { 'last-event-id': lastId } : {});
    const all = await call(t.app, 'GET', '/v1/orders?updatedSince=2000-01-01T00:00:00Z&limit=100', { key: venue.key });
    let total = all.body.total as number;
    const finals = new Map<string, string>();
    for (let page = 1; finals.size < total; page += 1) {
      const res = await call(t.app, 'GET', `/v1/orders?updatedSince=2000-01-01T00:00:00Z&limit=100&page=${page}`, { key: venue.key });
      total = res.body.total;
      for (const o of res.body.items) finals.set(o.id, o.updatedAt);
    }
    const latest = [...finals.values()].sort().at(-1)!;
    await rest.until('the last change', () => rest.events.at(-1)?.id === latest || lastId === latest, 10_000);
    rest.close();
    for (const e of rest.events) seen.push({ id: e.id!, order: JSON.parse(e.data) });

    assert.ok(reconnects >= 5, `reconnected ${reconnects} times`);
    for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i - 1].id < seen[i].id, `ids increase: ${seen[i - 1].id} then ${seen[i].id}`);
    for (const s of seen) assert.equal(s.order.updatedAt, s.id);
    const lastSeen = new Map(seen.map((s) => [s.order.id, s.id]));
    assert.equal(lastSeen.size, finals.size, 'every order reached the stream');
    for (const [id, updatedAt] of finals) assert.equal(lastSeen.get(id), updatedAt, `order ${id} in its last state`);
  });

  it('beats on an idle stream, caps streams per venue with 429 STREAM_LIMIT_REACHED, and frees a slot when a client leaves', async () => {
    const venue = await createVenue(t.app, { plan: 'pro' });
    const open = [await streamOf(base, venue.key), await streamOf(base, venue.key), await streamOf(base, venue.key)];
    try {
      await open[0].until('two heartbeats', () => open[0].comments >= 2);
      const refused = await streamOf(base, venue.key);
      assert.equal(refused.status, 429);
      const body = JSON.parse(refused.body);
      assert.equal(body.code, 'STREAM_LIMIT_REACHED');
      assert.deepEqual(body.details, { limit: 3 });
      assert.ok(refused.headers['retry-after']);
      // Another venue is not held back by this one's streams.
      const other = await streamOf(base, v.key);
      assert.equal(other.status, 200);
      other.close();
      open.shift()!.close();
      const start = Date.now();
      while (t.services.orderStreams.count(venue.id) > 2 && Date.now() - start < 3000) await sleep(10);
      const again = await streamOf(base, venue.key);
      assert.equal(again.status, 200);
      open.push(again);
    } finally {
      for (const s of open) s.close();
    }
  });

  it('disconnects a reader that stops reading rather than buffer for it', async () => {
    const venue = await createVenue(t.app, { plan: 'pro' });
    // Enough orders to fill the socket buffers many times over (each event is about 700 bytes).
    await t.database.db.query(
      `insert into orders (venue_id, id, order_number, status, type, payment_method, currency, subtotal_amount, delivery_fee,
         discount_amount, total_amount, comment, created_at, updated_at)
       select $1, gen_random_uuid(), g::text, 'new', 'pickup', 'cash', 'EUR', 100, 0, 0, 100, repeat('x', 500),
              timestamptz '2026-01-01' + g * interval '1 millisecond', timestamptz '2026-01-01' + g * interval '1 millisecond'
       from generate_series(1, 20000) g`,
      [venue.id],
    );
    const url = new URL(`${base}/v1/orders/stream?updatedSince=2000-01-01T00:00:00Z`);
    const socket = net.connect(Number(url.port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${venue.key}\r\n\r\n`);
    try {
      const start = Date.now();
      while (t.services.orderStreams.count(venue.id) === 0 && Date.now() - start < 5000) await sleep(10);
      assert.equal(t.services.orderStreams.count(venue.id), 1, 'the stream opened');
      while (t.services.orderStreams.count(venue.id) > 0 && Date.now() - start < 15_000) await sleep(20);
      assert.equal(t.services.orderStreams.count(venue.id), 0, 'the stream was dropped');
    } finally {
      socket.destroy();
    }
  });

  it('ends the stream when its key is revoked, and answers 403 on the free plan', async () => {
    const venue = await createVenue(t.app, { plan: 'pro' });
    const stream = await streamOf(base, venue.key);
    assert.equal(stream.status, 200);
    expectStatus(await admin(t.app, 'DELETE', `/api-keys/${venue.keyId}`), 204);
    await stream.until('the end', () => stream.ended);
    const free = await createVenue(t.app, { plan: 'free' });
    const refused = await streamOf(base, free.key);
    assert.equal(refused.status, 403);
    assert.equal(JSON.parse(refused.body).code, 'PAID_PLAN_REQUIRED');
  });

  it('lets a read-only key follow the stream, and counts open streams in GET /metrics', async () => {
    const ro = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true });
    const stream = await streamOf(base, ro.body.key);
    try {
      assert.equal(stream.status, 200);
      const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.match(metrics.body, /^carta_order_streams_open [1-9]/m);
    } finally {
      stream.close();
    }
  });
});

describe('the live order stream when its key loses its right', () => {
  let t: TestApp;
  let base: string;

  before(async () => {
    // Heartbeats a minute apart: whatever ends a stream here, it is not a heartbeat.
    t = await startApp({}, undefined, { orderStreams: { heartbeatMs: 60_000 } });
    base = await listen(t.app);
  });
  after(() => t.close());

  /** A paid venue with a menu, a stream on its key, and a second key of its own. */
  async function followed() {
    const venue = await createVenue(t.app, { plan: 'pro' });
    const menu = await setUpOrderMenu(t.app, venue);
    const stream = await streamOf(base, venue.key);
    assert.equal(stream.status, 200);
    await stream.until('the retry hint', () => stream.retry !== null);
    return { venue, menu, stream };
  }

  const ends = async (stream: SseClient, what: string) => {
    const start = Date.now();
    await stream.until(what, () => stream.ended, 2000);
    return Date.now() - start;
  };

  for (const [change, act] of [
    ['revoked', (venue: VenueFixture) => admin(t.app, 'DELETE', `/api-keys/${venue.keyId}`)],
    ['regenerated', (venue: VenueFixture) => admin(t.app, 'POST', `/api-keys/${venue.keyId}/regenerate`)],
  ] as const) {
    it(`ends the streams of a ${change} key at once and sends them no order placed after it, while the venue's other keys follow on`, async () => {
      const { venue, menu, stream } = await followed();
      const second = await admin(t.app, 'POST', `/venues/${venue.id}/api-keys`, { mode: 'live', readOnly: true });
      const other = await streamOf(base, second.body.key);
      try {
        await other.until('the retry hint', () => other.retry !== null);
        assert.ok([201, 204].includes((await act(venue)).status));
        const order = await createOrder(t.app, venue.slug, orderBody(menu));
        assert.ok((await ends(stream, 'the end')) < 1000);
        assert.equal(stream.events.length, 0, 'nothing sent after the key lost its right');
        await other.until('the order, on the key still valid', () => other.events.length === 1);
        assert.equal(other.orders()[0].id, order.id);
        assert.equal(other.ended, false);
        assert.equal(t.services.orderStreams.count(venue.id), 1);
      } finally {
        other.close();
      }
    });
  }

  it('ends a stream at once when the subscription goes inactive, or the plan loses the Orders API', async () => {
    for (const patch of [{ subscriptionStatus: 'suspended' }, { plan: 'free' }]) {
      const { venue, menu, stream } = await followed();
      expectStatus(await admin(t.app, 'PATCH', `/venues/${venue.id}`, patch), 200);
      await createOrder(t.app, venue.slug, orderBody(menu)).catch(() => {});
      assert.ok((await ends(stream, `the end after ${JSON.stringify(patch)}`)) < 1000);
      assert.equal(stream.events.length, 0);
    }
  });

  it('asks the key before every batch it sends: an order read after the key lost its right is never sent', async () => {
    // A stream held straight on the server's streams, with a key whose answer the test decides: the
    // order's own write (an orders-only write, which tells nothing of keys) is what wakes it.
    const venue = await createVenue(t.app, { plan: 'pro' });
    const menu = await setUpOrderMenu(t.app, venue);
    let allowed = true;
    const written: string[] = [];
    let ended = false;
    let close = () => {};
    await t.services.orderStreams.open(
      { venueId: venue.id, start: { now: true }, stillAllowed: async () => allowed, log: { warn: () => {} } },
      () => ({
        write: (text) => written.push(text) > 0,
        onDrain: () => {},
        onClose: (listener) => {
          close = listener;
        },
        end: () => {
          ended = true;
          close();
        },
        destroy: () => close(),
      }),
    );
    await createOrder(t.app, venue.slug, orderBody(menu));
    const start = Date.now();
    while (!written.some((w) => w.includes('event: order.created')) && Date.now() - start < 2000) await sleep(5);
    assert.ok(
      written.some((w) => w.includes('event: order.created')),
      'an order is sent while the key is good',
    );
    allowed = false;
    const before = written.length;
    await createOrder(t.app, venue.slug, orderBody(menu));
    while (!ended && Date.now() - start < 2000) await sleep(5);
    assert.ok(ended, 'the stream ended');
    assert.equal(written.length, before, 'the order read after that was not sent');
    assert.equal(t.services.orderStreams.count(venue.id), 0);
  });
});

describe('the live order stream at shutdown', () => {
  it('ends open streams when the server closes, so their clients reconnect elsewhere', async () => {
    const t = await startApp();
    const base = await listen(t.app);
    const v = await createVenue(t.app, { plan: 'pro' });
    const stream = await streamOf(base, v.key);
    assert.equal(stream.status, 200);
    const closing = t.close();
    await stream.until('the end', () => stream.ended);
    await closing;
  });
});

describe('the live order stream across instances (PostgreSQL)', { skip: !onPostgres && 'PostgreSQL only (DATABASE_URL)' }, () => {
  let a: TestApp;
  const others: { app: App; db: Database }[] = [];

  before(async () => {
    a = await startApp();
  });
  after(async () => {
    for (const o of others) {
      await o.app.close();
      await o.db.close();
    }
    await a.close();
  });

  /** Another instance on A's schema: listening for other instances' writes, or (listen false) not. */
  async function instance(listen: boolean): Promise<App> {
    const db = await openPostgres({ url: process.env.DATABASE_URL as string, poolSize: 4, schema: a.database.schema, listen });
    const { app } = await buildApp({ config: a.config, db, orderStreams: { pollMs: 200 } });
    others.push({ app, db });
    return app;
  }

  for (const listenFeed of [true, false]) {
    it(`delivers an order placed through instance A to a stream held on instance B within a second${listenFeed ? '' : ', B polling without its change feed'}`, async () => {
      const b = await instance(listenFeed);
      const base = await listen(b);
      const v = await createVenue(a.app, { plan: 'pro' });
      const ids = await setUpOrderMenu(a.app, v);
      const stream = await streamOf(base, v.key);
      try {
        assert.equal(stream.status, 200);
        await stream.until('the retry hint', () => stream.retry !== null);
        const order = await createOrder(a.app, v.slug, orderBody(ids));
        const placedAt = Date.now();
        await stream.until('the order', () => stream.events.length >= 1, 1000);
        assert.ok(Date.now() - placedAt < 1000);
        await driveTo(a.app, v.key, order, 'preparing');
        await stream.until('its changes', () => stream.orders().at(-1)?.status === 'preparing', 1000);
      } finally {
        stream.close();
      }
    });
  }

  for (const listenFeed of [true, false]) {
    it(`ends a stream held on instance B when its key is revoked through instance A, at once and before any later order${listenFeed ? '' : ', B polling without its change feed'}`, async () => {
      const b = await instance(listenFeed);
      const base = await listen(b);
      const v = await createVenue(a.app, { plan: 'pro' });
      const ids = await setUpOrderMenu(a.app, v);
      const stream = await streamOf(base, v.key);
      try {
        assert.equal(stream.status, 200);
        await stream.until('the retry hint', () => stream.retry !== null);
        expectStatus(await admin(a.app, 'DELETE', `/api-keys/${v.keyId}`), 204);
        // Placed through B itself: B hears of its own commit at once, and of A's revocation only
        // through its feed (or its next poll); the stream must not send it either way.
        const placed = await call(b, 'POST', `/guest/v1/venues/${v.slug}/orders`, { body: orderBody(ids) });
        expectStatus(placed, 201);
        // B's heartbeat is 15 s away: the revocation itself ends the stream.
        await stream.until('the end', () => stream.ended, 1500);
        assert.equal(stream.events.length, 0);
      } finally {
        stream.close();
      }
    });
  }
});
