import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { CartaError, createCartaClient, type Order } from '../src/index.js';
import { createOrder, expectStatus, orderBody, patchStatus, setUpOrderMenu, sleep, type MenuIds } from '../../../test/helpers/orders.js';
import { createVenue, startServer, type TestServer, type VenueFixture } from './server.js';

const BEGINNING = '2000-01-01T00:00:00Z';

describe('followOrders on a real server', () => {
  let s: TestServer;
  let v: VenueFixture;
  let ids: MenuIds;
  before(async () => {
    s = await startServer();
    v = await createVenue(s.t.app, { plan: 'standard' });
    ids = await setUpOrderMenu(s.t.app, v, { orderConfig: null });
  });
  after(() => s.close());

  it('delivers each change once, in commit order, while the connection keeps being cut and writers keep writing', async (ctx) => {
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, baseDelayMs: 20 });
    const controller = new AbortController();
    const delivered: { id: string; type: string; order: Order }[] = [];
    let reconnects = 0;
    const following = client.followOrders({
      since: BEGINNING,
      signal: controller.signal,
      onOrder: (order, event) => void delivered.push({ ...event, order }),
      onReconnect: () => void (reconnects += 1),
    });

    const finals = new Map<string, string>();
    let cutting = true;
    const cutter = (async () => {
      // At least two cuts land on an open stream, however fast the writers are.
      while (cutting || reconnects < 2) {
        await sleep(120);
        // Every socket of the server, the stream's among them: the client sees a broken connection.
        s.t.app.server.closeAllConnections();
      }
    })();
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let i = 0; i < 10; i += 1) {
          const order = await createOrder(s.t.app, v.slug, orderBody(ids));
          finals.set(order.id, order.updatedAt);
          for (const status of ['confirmed', 'preparing'] as const) {
            await sleep(5);
            const res = await patchStatus(s.t.app, v.key, order.id, status);
            expectStatus(res, 200);
            finals.set(order.id, res.body.updatedAt);
          }
        }
      }),
    );
    cutting = false;
    await cutter;
    const latest = () => new Map(delivered.map((d) => [d.order.id, d.order.updatedAt]));
    for (let waited = 0; waited < 10_000 && !isDeepStrictEqual(latest(), finals); waited += 20) await sleep(20);
    controller.abort();
    await following;

    assert.deepEqual(latest(), finals, 'every order in its last state');
    for (let i = 1; i < delivered.length; i += 1) assert.ok(delivered[i - 1].id < delivered[i].id, 'each change once, in commit order');
    for (const d of delivered) {
      assert.equal(d.id, d.order.updatedAt);
      assert.equal(d.type, d.order.createdAt === d.order.updatedAt ? 'order.created' : 'order.updated');
    }
    assert.ok(reconnects >= 2, `reconnected ${reconnects} times`);
    ctx.diagnostic(`${finals.size} orders, ${delivered.length} changes delivered, ${reconnects} reconnects`);
  });

  it('resumes after lastEventId (a restarted caller), and rejects a free plan with PAID_PLAN_REQUIRED', async () => {
    const venue = await createVenue(s.t.app, { plan: 'standard' });
    const menu = await setUpOrderMenu(s.t.app, venue, { orderConfig: null });
    const placed: Order[] = [];
    for (let i = 0; i < 4; i += 1) placed.push(await createOrder(s.t.app, venue.slug, orderBody(menu)));
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: venue.key });
    const controller = new AbortController();
    const seen: string[] = [];
    const following = client.followOrders({
      lastEventId: placed[1].updatedAt,
      signal: controller.signal,
      onOrder: (order) => {
        seen.push(order.id);
        if (seen.length === 2) controller.abort();
      },
    });
    await following;
    assert.deepEqual(seen, [placed[2].id, placed[3].id]);

    const free = await createVenue(s.t.app, { plan: 'free' });
    const refused = createCartaClient({ baseUrl: s.baseUrl, apiKey: free.key }).followOrders({ onOrder: () => undefined });
    await assert.rejects(
      refused,
      (err: unknown) => err instanceof CartaError && err.statusCode === 403 && err.code === 'PAID_PLAN_REQUIRED',
    );
  });
});
