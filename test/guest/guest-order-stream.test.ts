import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { expectStatus, orderBody, patchStatus, placeOrder, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { SseClient } from '../helpers/sse-client.js';

// The guest status page's live order (docs/guest-page.md): GET /guest/v1/venues/:slug/orders/:token/stream.
describe("a guest's order, live", () => {
  let t: TestApp;
  let base: string;
  let v: VenueFixture;
  let ids: MenuIds;

  before(async () => {
    t = await startApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
  });
  after(() => t.close());

  const place = async () => {
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(placed, 201);
    return { id: placed.body.id as string, path: String(placed.headers.location) };
  };

  it('sends the order now and at each change, as the guest read answers it, and ends once it is completed', async () => {
    const order = await place();
    const stream = await SseClient.open(`${base}${order.path}/stream`);
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['cache-control'], 'no-store');
      await stream.until('the order as it is', () => stream.events.length === 1);
      const read = await t.app.inject({ url: order.path });
      assert.deepEqual(JSON.parse(stream.events[0].data), read.json());
      assert.equal(stream.events[0].id, read.headers.etag);
      for (const status of ['confirmed', 'preparing', 'completed']) expectStatus(await patchStatus(t.app, v.key, order.id, status), 200);
      await stream.until('the end', () => stream.ended);
      const statuses = stream.events.map((e) => JSON.parse(e.data).status);
      // Changes that commit together may be sent as one: the last one is always there.
      assert.equal(statuses.at(-1), 'completed');
      assert.equal(statuses[0], 'new');
      assert.ok(stream.events.every((e) => e.event === 'order.updated'));
    } finally {
      stream.close();
    }
  });

  it('sends nothing to a reconnect whose Last-Event-ID is the current ETag, then the next change', async () => {
    const order = await place();
    const etag = String((await t.app.inject({ url: order.path })).headers.etag);
    const stream = await SseClient.open(`${base}${order.path}/stream`, { 'last-event-id': etag });
    try {
      await stream.until('the retry hint', () => stream.retry !== null);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(stream.events.length, 0);
      expectStatus(await patchStatus(t.app, v.key, order.id, 'cancelled'), 200);
      await stream.until('the cancellation', () => stream.events.length === 1 && stream.ended);
      assert.equal(JSON.parse(stream.events[0].data).status, 'cancelled');
    } finally {
      stream.close();
    }
  });

  it('ends at once for a finished order the page has already, and holds three streams per order at most', async () => {
    const done = await place();
    expectStatus(await patchStatus(t.app, v.key, done.id, 'cancelled'), 200);
    const etag = String((await t.app.inject({ url: done.path })).headers.etag);
    const finished = await SseClient.open(`${base}${done.path}/stream`, { 'last-event-id': etag });
    await finished.until('the end', () => finished.ended, 2000);
    assert.equal(finished.events.length, 0);

    const order = await place();
    const open = await Promise.all([1, 2, 3].map(() => SseClient.open(`${base}${order.path}/stream`)));
    try {
      const fourth = await SseClient.open(`${base}${order.path}/stream`);
      assert.equal(fourth.status, 429);
      assert.equal(JSON.parse(fourth.body).code, 'STREAM_LIMIT_REACHED');
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it("refuses an unknown token or another venue's order with the read's 404s, and shows no contact details", async () => {
    const order = await place();
    const token = order.path.split('/').pop()!;
    const other = await createVenue(t.app);
    assert.equal((await SseClient.open(`${base}/guest/v1/venues/${other.slug}/orders/${token}/stream`)).status, 404);
    assert.equal((await SseClient.open(`${base}/guest/v1/venues/${v.slug}/orders/${'x'.repeat(token.length)}/stream`)).status, 404);
    const stream = await SseClient.open(`${base}${order.path}/stream`);
    try {
      await stream.until('the order', () => stream.events.length === 1);
      assert.doesNotMatch(stream.events[0].data, /380501234567/);
    } finally {
      stream.close();
    }
    assert.equal((await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/orders/${token}`)).status, 200);
  });
});

// A venue's guest streams share one reader: a write costs the same statements whatever the number
// of pages following the venue's orders (the review measured 500 open pages multiplying an order's
// server CPU by 20, through a read of its own order per page per write of its venue).
describe("guest order streams' cost per write", () => {
  let t: TestApp;
  let base: string;
  let counting = false;
  let statements = 0;

  before(async () => {
    t = await startApp({}, () => {
      if (counting) statements += 1;
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  /** The statements two status changes of a followed order send, with `open` pages following the venue's orders. */
  async function statementsPerChange(open: number): Promise<number> {
    const v = await createVenue(t.app, { plan: 'pro' });
    const ids = await setUpOrderMenu(t.app, v);
    const streams: SseClient[] = [];
    try {
      const orders: { id: string; path: string }[] = [];
      for (let i = 0; i < open; i += 1) {
        const placed = await placeOrder(t.app, v.slug, orderBody(ids));
        expectStatus(placed, 201);
        orders.push({ id: placed.body.id, path: String(placed.headers.location) });
        streams.push(await SseClient.open(`${base}${orders[i].path}/stream`));
      }
      for (const stream of streams) await stream.until('the order as it is', () => stream.events.length === 1);
      // The key's and the venue's look-ups memoised, as on a venue at work.
      expectStatus(await call(t.app, 'GET', '/v1/orders?limit=1', { key: v.key }), 200);
      statements = 0;
      counting = true;
      let seen = 0;
      const quiet = async () => {
        // Every stream's reads of the write have run once no statement comes for a while.
        for (let idle = 0; idle < 10;) {
          seen = statements;
          await new Promise((resolve) => setTimeout(resolve, 20));
          idle = statements === seen ? idle + 1 : 0;
        }
      };
      for (const status of ['confirmed', 'preparing']) {
        expectStatus(await patchStatus(t.app, v.key, orders[0].id, status), 200);
        await streams[0].until(`the order ${status}`, () => streams[0].events.some((e) => JSON.parse(e.data).status === status));
        await quiet();
      }
      counting = false;
      return statements;
    } finally {
      counting = false;
      for (const stream of streams) stream.close();
    }
  }

  it('reads the changed orders once per write for all the open pages of the venue, however many are open', async () => {
    const one = await statementsPerChange(1);
    const many = await statementsPerChange(40);
    assert.ok(one > 0);
    // A write may wake the reader twice on PostgreSQL (this process's commit, then its notification): one statement each.
    assert.ok(many <= one + 2, `1 page open: ${one} statements for two changes; 40 pages open: ${many}`);
  });
});

// An address's share of the guest streams is counted as its rate limits are, an IPv6
// client by its /64 (which hands it 2^64 addresses to pick from).
describe('guest order streams per address', () => {
  let t: TestApp;
  let base: string;

  before(async () => {
    t = await startApp({ trustProxy: ['127.0.0.1'] });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  it("counts an IPv6 client's streams by its /64, as the rate limiter does: 50 in all", async () => {
    const v = await createVenue(t.app, { plan: 'pro' });
    const ids = await setUpOrderMenu(t.app, v);
    const paths: string[] = [];
    for (let i = 0; i < 18; i += 1) {
      const placed = await placeOrder(t.app, v.slug, orderBody(ids));
      expectStatus(placed, 201);
      paths.push(String(placed.headers.location));
    }
    const from = (address: string, path: string) => SseClient.open(`${base}${path}/stream`, { 'x-forwarded-for': address });
    const streams: SseClient[] = [];
    try {
      // 50 from one address of the /64 (three per order at most), on 17 orders.
      for (let i = 0; i < 50; i += 1) streams.push(await from('2001:db8:1:2::a', paths[Math.floor(i / 3)]));
      assert.ok(streams.every((s) => s.status === 200));
      const sibling = await from('2001:db8:1:2:ffff::b', paths[17]);
      assert.equal(sibling.status, 429);
      assert.equal(JSON.parse(sibling.body).code, 'STREAM_LIMIT_REACHED');
      const elsewhere = await from('2001:db8:1:3::a', paths[17]);
      streams.push(elsewhere);
      assert.equal(elsewhere.status, 200);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
