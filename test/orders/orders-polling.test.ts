import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OrderStatus } from '../../src/shared/order-status.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { createOrder, expectStatus, orderBody, PATH_TO, patchStatus, setUpOrderMenu, sleep } from '../helpers/orders.js';

const FINAL_STATUSES: OrderStatus[] = ['new', 'confirmed', 'preparing', 'delivering', 'completed', 'cancelled'];
const LIFECYCLE: OrderStatus[] = ['new', 'confirmed', 'preparing', 'delivering', 'completed'];

/** A small seeded PRNG, so a failing interleaving's seed can be replayed (POLL_SEED=...). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Can an order seen in `a` later be seen in `b`? (cancelled is reachable from every live status). */
function reachable(a: OrderStatus, b: OrderStatus): boolean {
  if (a === b) return true;
  if (a === 'completed' || a === 'cancelled') return false;
  if (b === 'cancelled') return true;
  return LIFECYCLE.indexOf(b) > LIFECYCLE.indexOf(a);
}

interface Seen {
  updatedAt: string;
  status: OrderStatus;
}

// A poller on GET /v1/orders?updatedSince=<last updatedAt> that drops (id, updatedAt)
// pairs it already saw never misses a change, however writes interleave with its polls.
describe('lossless polling with updatedSince', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('sees the final (id, updatedAt, status) of every order while writers create and move orders', async (ctx) => {
    const seed = Number(process.env.POLL_SEED ?? Date.now() % 1_000_000);
    ctx.diagnostic(`POLL_SEED=${seed}`);
    const random = mulberry32(seed);
    const pause = (maxMs: number) => sleep(Math.floor(random() * maxMs));

    const v: VenueFixture = await createVenue(t.app);
    const ids = await setUpOrderMenu(t.app, v, { orderConfig: null });

    // ---- writers: create orders through the guest API and move each along a random legal path
    const WRITERS = 4;
    const ORDERS_PER_WRITER = 8;
    const finals = new Map<string, Seen>();
    let writes = 0;
    async function writer(): Promise<void> {
      for (let i = 0; i < ORDERS_PER_WRITER; i += 1) {
        const order = await createOrder(t.app, v.slug, orderBody(ids));
        writes += 1;
        finals.set(order.id, { updatedAt: order.updatedAt, status: order.status });
        const target = FINAL_STATUSES[Math.floor(random() * FINAL_STATUSES.length)];
        for (const status of PATH_TO[target]) {
          await pause(6);
          const res = await patchStatus(t.app, v.key, order.id, status);
          expectStatus(res, 200);
          writes += 1;
          finals.set(order.id, { updatedAt: res.body.updatedAt, status: res.body.status });
        }
        await pause(4);
      }
    }

    // ---- the poller
    const LIMIT = 5;
    const seenPairs = new Set<string>();
    const latest = new Map<string, Seen>();
    let cursor = '1970-01-01T00:00:00.000Z';
    let polls = 0;
    let cursorEchoes = 0;

    /** One page from the cursor; returns how many items it held. */
    async function poll(): Promise<number> {
      const res = await call(t.app, 'GET', `/v1/orders?updatedSince=${encodeURIComponent(cursor)}&limit=${LIMIT}`, { key: v.key });
      expectStatus(res, 200);
      polls += 1;
      const items: any[] = res.body.items;
      for (const [i, o] of items.entries()) {
        assert.ok(o.updatedAt >= cursor, `item ${o.updatedAt} before the cursor ${cursor}`);
        if (i > 0) assert.ok(o.updatedAt >= items[i - 1].updatedAt, 'page not in updatedAt order');
        const pair = `${o.id}|${o.updatedAt}`;
        if (seenPairs.has(pair)) continue;
        seenPairs.add(pair);
        const previous = latest.get(o.id);
        if (previous) {
          assert.ok(o.updatedAt > previous.updatedAt, `order ${o.id} went back in time`);
          assert.ok(reachable(previous.status, o.status), `order ${o.id} went ${previous.status} -> ${o.status}`);
        }
        latest.set(o.id, { updatedAt: o.updatedAt, status: o.status });
      }
      if (items.length > 0) {
        // The inclusive bound hands the cursor's own item back, byte for byte, unless it moved on.
        if (items[0].updatedAt === cursor) cursorEchoes += 1;
        cursor = items[items.length - 1].updatedAt;
      }
      return items.length;
    }

    let writersDone = false;
    const writing = Promise.all(Array.from({ length: WRITERS }, () => writer())).finally(() => {
      writersDone = true;
    });
    const polling = (async () => {
      while (!writersDone) {
        await poll();
        await pause(3);
      }
    })();
    await writing;
    await polling;
    // Drain: read on until a page is not full.
    while ((await poll()) === LIMIT);

    ctx.diagnostic(`${writes} writes, ${finals.size} orders, ${polls} polls, ${seenPairs.size} distinct (id, updatedAt) seen`);
    assert.equal(finals.size, WRITERS * ORDERS_PER_WRITER);
    assert.ok(cursorEchoes > 0, 'the cursor item came back at least once');

    // Nothing missed: the poller's last view of every order is its final state.
    for (const [id, final] of finals) {
      assert.ok(seenPairs.has(`${id}|${final.updatedAt}`), `missed the final state of ${id} (${final.status} at ${final.updatedAt})`);
      assert.deepEqual(latest.get(id), final, id);
    }
    assert.equal(latest.size, finals.size, 'the poller saw no order that was never written');

    // Timestamps round-trip exactly: sending back the string received finds that very change.
    for (const [id, final] of finals) {
      const res = await call(t.app, 'GET', `/v1/orders?updatedSince=${encodeURIComponent(final.updatedAt)}&limit=1`, { key: v.key });
      expectStatus(res, 200);
      assert.deepEqual([res.body.items[0].id, res.body.items[0].updatedAt], [id, final.updatedAt]);
    }
  });

  it('needs no dedupe beyond the cursor item when nothing changes between polls', async () => {
    const v = await createVenue(t.app);
    const ids = await setUpOrderMenu(t.app, v, { orderConfig: null });
    const placed = [];
    for (let i = 0; i < 7; i += 1) placed.push(await createOrder(t.app, v.slug, orderBody(ids)));

    const pages: string[][] = [];
    let cursor = placed[0].updatedAt;
    for (;;) {
      const res = await call(t.app, 'GET', `/v1/orders?updatedSince=${encodeURIComponent(cursor)}&limit=3`, { key: v.key });
      pages.push(res.body.items.map((o: any) => o.id));
      const last = res.body.items[res.body.items.length - 1];
      if (res.body.items.length < 3) break;
      cursor = last.updatedAt;
    }
    const p = placed.map((o) => o.id);
    // Each page starts with the previous page's last item (inclusive bound), then the next ones.
    assert.deepEqual(pages, [[p[0], p[1], p[2]], [p[2], p[3], p[4]], [p[4], p[5], p[6]], [p[6]]]);
  });
});
