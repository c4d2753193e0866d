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
