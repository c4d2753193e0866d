import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCartaClient, type Order } from '../src/index.js';
import {
  createOrder,
  expectStatus,
  orderBody,
  PATH_TO,
  patchStatus,
  setUpOrderMenu,
  sleep,
  type MenuIds,
} from '../../../test/helpers/orders.js';
import { createVenue, startServer, type TestServer, type VenueFixture } from './server.js';

type Status = keyof typeof PATH_TO;
const STATUSES = Object.keys(PATH_TO) as Status[];

describe('pollOrders on a real server', () => {
  let s: TestServer;
  let v: VenueFixture;
  let ids: MenuIds;
  before(async () => {
    s = await startServer();
    v = await createVenue(s.t.app, { plan: 'standard' });
    ids = await setUpOrderMenu(s.t.app, v, { orderConfig: null });
  });
  after(() => s.close());

  it('delivers every version of every order exactly once while orders are created and moved, and stops on abort', async (ctx) => {
    // More than a page (100) already waiting, so the first polls page through a full feed.
    const finals = new Map<string, { updatedAt: string; status: string }>();
    for (let i = 0; i < 130; i += 1) {
      const order = await createOrder(s.t.app, v.slug, orderBody(ids));
      finals.set(order.id, { updatedAt: order.updatedAt, status: order.status });
    }
    await sleep(5);
    const since = new Date().toISOString();

    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key });
    const controller = new AbortController();
    const delivered: Order[] = [];
    const deliveredSince: Order[] = [];
    const everything = client.pollOrders({ onOrder: (o) => void delivered.push(o), signal: controller.signal, intervalMs: 20 });
    const tail = client.pollOrders({ since, onOrder: (o) => void deliveredSince.push(o), signal: controller.signal, intervalMs: 35 });

    // Writers: new orders, each moved along a random legal path, interleaved with the polls.
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const newIds = new Set<string>();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 8; i += 1) {
          const order = await createOrder(s.t.app, v.slug, orderBody(ids));
          newIds.add(order.id);
          finals.set(order.id, { updatedAt: order.updatedAt, status: order.status });
          for (const status of PATH_TO[STATUSES[Math.floor(random() * STATUSES.length)]]) {
            await sleep(Math.floor(random() * 8));
            const res = await patchStatus(s.t.app, v.key, order.id, status);
            expectStatus(res, 200);
            finals.set(order.id, { updatedAt: res.body.updatedAt, status: res.body.status });
          }
        }
      }),
    );

    // Wait until both pollers have seen the final version of every order they follow, then stop
    // them (the tail polls less often: on a loaded machine it can be a round behind the other).
    const latest = (list: Order[]) => new Map(list.map((o) => [o.id, `${o.updatedAt} ${o.status}`]));
    const expected = new Map([...finals].map(([id, f]) => [id, `${f.updatedAt} ${f.status}`]));
    const caughtUp = (list: Order[], ids: Iterable<string>) => [...ids].every((id) => latest(list).get(id) === expected.get(id));
    for (let waited = 0; waited < 10_000; waited += 20) {
      if (latest(delivered).size === expected.size && caughtUp(delivered, expected.keys()) && caughtUp(deliveredSince, newIds)) break;
      await sleep(20);
    }
    const abortedAt = Date.now();
    controller.abort();
    await Promise.all([everything, tail]);
    assert.ok(Date.now() - abortedAt < 1000, 'abort ends the loop at once');

    assert.deepEqual(latest(delivered), expected, 'the final state of every order');
    const pairs = delivered.map((o) => `${o.id} ${o.updatedAt}`);
    assert.equal(new Set(pairs).size, pairs.length, 'no version twice');
    for (let i = 1; i < delivered.length; i += 1) {
      assert.ok(delivered[i - 1].updatedAt <= delivered[i].updatedAt, 'in updatedAt order');
    }

    // The tail started after the backlog: it sees the writers' orders and nothing older.
    assert.ok(deliveredSince.every((o) => o.updatedAt >= since));
    assert.deepEqual(new Set(deliveredSince.map((o) => o.id)), newIds);
    const tailPairs = deliveredSince.map((o) => `${o.id} ${o.updatedAt}`);
    assert.equal(new Set(tailPairs).size, tailPairs.length);
    ctx.diagnostic(`${finals.size} orders, ${delivered.length} versions delivered`);
  });

  it('resolves at once when the signal is already aborted, or aborts during a wait', async () => {
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key });
    const calls: Order[] = [];
    await client.pollOrders({ onOrder: (o) => void calls.push(o), signal: AbortSignal.abort() });
    assert.equal(calls.length, 0);

    const started = Date.now();
    await client.pollOrders({
      since: new Date().toISOString(),
      onOrder: () => undefined,
      signal: AbortSignal.timeout(150),
      intervalMs: 60_000,
    });
    assert.ok(Date.now() - started < 2000);
  });
});
