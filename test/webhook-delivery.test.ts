import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from './helpers/app.js';
import { expectStatus, orderBody, patchStatus, placeOrder, publish, setUpOrderMenu, type MenuIds } from './helpers/orders.js';
import { sleep } from './helpers/net.js';
import { Receiver, until } from './helpers/webhook-receiver.js';

// Issue 16 (docs/events.md): events written with the change that causes them, delivered at least
// once with Standard Webhooks signatures, retried, and in order per endpoint. The receiver is a
// real HTTP server on loopback that verifies every signature with the standardwebhooks package.

describe('webhook delivery', () => {
  const receiver = new Receiver();
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let endpointId: string;

  before(async () => {
    await receiver.listen();
    t = await startApp(
      { ssrfTestAllow: [{ host: '127.0.0.1', port: receiver.port }] },
      undefined,
      { webhookDispatch: { pollMs: 50, retryDelaysMs: [100, 200], leaseMs: 15_000 } },
    );
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
    const created = await call(t.app, 'POST', '/v1/webhooks', {
      key: v.key,
      body: { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['order.created', 'order.updated', 'menu.published'] },
    });
    expectStatus(created, 201);
    endpointId = created.body.id;
    receiver.secrets = [created.body.secret];
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('sends order.created, signed, with the order as GET /v1/orders/:id shows it', async () => {
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(placed, 201);
    const event = await until('order.created', () => receiver.unique().find((r) => r.type === 'order.created' && r.body.data.order.id === placed.body.id));
    const read = await call(t.app, 'GET', `/v1/orders/${placed.body.id}`, { key: v.key });
    assert.deepEqual(event.body.data.order, read.body);
    assert.equal(event.body.id, event.id, 'the payload id is the webhook-id');
    assert.equal(event.body.venueId, v.id);
    assert.match(event.body.timestamp, /^\d{4}-\d{2}-\d{2}T/);
  });

  it('sends order.updated with the previous and new status, and menu.published', async () => {
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(await patchStatus(t.app, v.key, placed.body.id, 'confirmed'), 200);
    const updated = await until('order.updated', () => receiver.unique().find((r) => r.type === 'order.updated' && r.body.data.order.id === placed.body.id));
    assert.equal(updated.body.data.previousStatus, 'new');
    assert.equal(updated.body.data.status, 'confirmed');
    assert.equal(updated.body.data.order.status, 'confirmed');

    const publicationId = await publish(t.app, v);
    const published = await until('menu.published', () => receiver.unique().find((r) => r.type === 'menu.published' && r.body.data.publicationId === publicationId));
    assert.ok(published.body.data.counts);
  });

  it('retries through failures and a timeout, delivering every event once after deduplication, in commit order', async () => {
    receiver.script = [500, 503];
    const orders: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const placed = await placeOrder(t.app, v.slug, orderBody(ids));
      expectStatus(placed, 201);
      orders.push(placed.body.id);
    }
    await until('three deliveries', () => orders.every((id) => receiver.unique().some((r) => r.type === 'order.created' && r.body.data.order.id === id)));
    const created = receiver.unique().filter((r) => orders.includes(r.body.data?.order?.id) && r.type === 'order.created').map((r) => r.body.data.order.id);
    assert.deepEqual(created, orders, 'in the order they were placed');
    assert.ok(receiver.requests.filter((r) => r.status >= 500).length >= 2, 'the failures were retried');

    const deliveries = await t.database.db.query<{ status: string; attempts: number }>(
      `select d.status, d.attempts from webhook_deliveries d join webhook_events e on e.venue_id = d.venue_id and e.id = d.event_id
       where d.venue_id = $1 and e.payload like '%' || $2 || '%'`,
      [v.id, orders[0]],
    );
    assert.equal(deliveries.rows[0].status, 'delivered');
    assert.ok(deliveries.rows[0].attempts >= 2);
  });

  it('logs every attempt, newest first; a manual retry and a ping are delivered', async () => {
    receiver.script = [500];
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    const received = await until('delivered after a failure', () => receiver.unique().find((r) => r.body.data?.order?.id === placed.body.id));
    // The receiver has answered; the dispatcher records the attempt just after.
    let log: Awaited<ReturnType<typeof call>> | undefined;
    let entry: any;
    for (let i = 0; i < 200; i += 1) {
      log = await call(t.app, 'GET', `/v1/webhooks/${endpointId}/deliveries?limit=100`, { key: v.key });
      expectStatus(log, 200);
      entry = log.body.items.find((d: any) => d.eventId === received.id);
      if (entry?.status === 'delivered') break;
      await sleep(25);
    }
    assert.equal(entry.status, 'delivered');
    assert.equal(entry.eventType, 'order.created');
    assert.equal(entry.nextAttemptAt, null);
    assert.deepEqual(entry.attemptLog.map((a: any) => a.statusCode), [200, 500], 'newest first');
    assert.ok(entry.attemptLog.every((a: any) => Number.isInteger(a.durationMs)));
    const seqs = log!.body.items.map((d: any) => d.createdAt);
    assert.deepEqual(seqs, [...seqs].sort().reverse(), 'the log is newest first');

    const before = receiver.accepted.filter((r) => r.id === entry.eventId).length;
    const retried = await call(t.app, 'POST', `/v1/webhooks/${endpointId}/deliveries/${entry.id}/retry`, { key: v.key });
    expectStatus(retried, 202);
    assert.equal(retried.body.eventId, entry.eventId, 'the same event, so the receiver can deduplicate');
    assert.notEqual(retried.body.id, entry.id);
    await until('sent again', () => receiver.accepted.filter((r) => r.id === entry.eventId).length > before);

    const ping = await call(t.app, 'POST', `/v1/webhooks/${endpointId}/test`, { key: v.key });
    expectStatus(ping, 202);
    assert.equal(ping.body.eventType, 'ping');
    const pinged = await until('ping', () => receiver.unique().find((r) => r.id === ping.body.eventId));
    assert.equal(pinged.body.data.endpointId, endpointId);

    const unknown = await call(t.app, 'POST', `/v1/webhooks/${endpointId}/deliveries/00000000-0000-7000-8000-000000000000/retry`, { key: v.key });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'WEBHOOK_DELIVERY_NOT_FOUND');
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const rotated = await call(t.app, 'POST', `/v1/webhooks/${endpointId}/rotate-secret`, { key: v.key });
    expectStatus(rotated, 200);
    const previous = receiver.secrets[0];
    receiver.secrets = [rotated.body.secret];
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    const event = await until('signed twice', () => receiver.unique().find((r) => r.body.data?.order?.id === placed.body.id));
    assert.equal(event.signatures.length, 2);
    receiver.secrets = [previous];
    // The receiver verified it with the new secret; the old one verifies the same bytes as well.
    assert.ok(event.signatures.every((s) => s.startsWith('v1,')));
  });

  it('disables an endpoint that answers 410, and says why', async () => {
    receiver.secrets = [];
    receiver.script = [410];
    expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
    const disabled = await (async () => {
      for (let i = 0; i < 200; i += 1) {
        const res = await call(t.app, 'GET', `/v1/webhooks/${endpointId}`, { key: v.key });
        if (res.body.enabled === false) return res.body;
        await sleep(25);
      }
      return null;
    })();
    assert.ok(disabled, 'disabled after the 410');
    assert.match(disabled.disabledReason, /410/);
  });

  it('gives a re-enabled endpoint its pending deliveries and a fresh failing clock', async () => {
    const failing = async () =>
      (await t.database.db.query<{ failing_since: Date | null }>('select failing_since from webhook_endpoints where venue_id = $1 and id = $2', [v.id, endpointId])).rows[0]
        .failing_since;
    assert.equal(await failing(), null, 'disabling starts the clock over');
    receiver.secrets = [(await call(t.app, 'POST', `/v1/webhooks/${endpointId}/rotate-secret`, { key: v.key })).body.secret];
    receiver.script = [500];
    expectStatus(await call(t.app, 'PATCH', `/v1/webhooks/${endpointId}`, { key: v.key, body: { enabled: true } }), 200);
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    await until('delivered after the re-enable', () => receiver.unique().find((r) => r.body.data?.order?.id === placed.body.id));
    const endpoint = await call(t.app, 'GET', `/v1/webhooks/${endpointId}`, { key: v.key });
    assert.equal(endpoint.body.enabled, true);
  });
});

describe('webhook delivery: what venues without webhooks pay, and the guard at send time', () => {
  let t: TestApp;
  before(async () => {
    // Every name resolves to a private address: the guard refuses it when the delivery connects.
    t = await startApp({}, undefined, {
      resolve: async () => [{ address: '10.1.2.3', family: 4 }],
      webhookDispatch: { pollMs: 50, retryDelaysMs: [60_000] },
    });
  });
  after(() => t.close());

  it('writes no event for a venue without endpoints', async () => {
    const v = await createVenue(t.app, { plan: 'pro' });
    const ids = await setUpOrderMenu(t.app, v);
    expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
    const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from webhook_events where venue_id = $1', [v.id]);
    assert.equal(rows[0].n, 0);
  });

  it('refuses, at send time, a name that now resolves to a private address', async () => {
    const v = await createVenue(t.app, { plan: 'pro' });
    const ids = await setUpOrderMenu(t.app, v);
    const created = await call(t.app, 'POST', '/v1/webhooks', { key: v.key, body: { url: 'https://hooks.example.com/carta', events: ['order.created'] } });
    expectStatus(created, 201);
    expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
    let row: { status_code: number | null; error: string | null } | undefined;
    for (let i = 0; i < 200 && !row; i += 1) {
      const { rows } = await t.database.db.query<{ status_code: number | null; error: string | null }>(
        'select status_code, error from webhook_attempts where venue_id = $1',
        [v.id],
      );
      row = rows[0];
      if (!row) await sleep(25);
    }
    assert.ok(row, 'an attempt was recorded');
    assert.equal(row.status_code, null);
    assert.match(String(row.error), /blocked|private/i);
  });
});
