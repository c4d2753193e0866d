import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { DispatcherOptions } from '../../src/modules/webhooks/dispatcher.js';
import { DELIVERY_TIMEOUT_MS } from '../../src/modules/webhooks/webhook-sender.js';
import { call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';
import { burgerLine, expectStatus, orderBody, patchStatus, placeOrder, publish, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { sleep, until } from '../helpers/net.js';
import { Receiver, venueWithEndpoint } from '../helpers/webhook-receiver.js';

// Webhook events (docs/events.md): written with the change that causes them, delivered at least
// once with Standard Webhooks signatures, retried, and in order per endpoint. The receiver is a
// real HTTP server on loopback that verifies every signature with the standardwebhooks package.

/**
 * The endpoint's log entry for an event once `ready` holds: the dispatcher records an attempt a
 * moment after the receiver has answered it.
 */
function logEntry(
  t: TestApp,
  v: VenueFixture,
  endpointId: string,
  eventId: string,
  ready: (entry: any) => boolean,
): Promise<{ entry: any; log: Call }> {
  return until(`the logged delivery of ${eventId}`, async () => {
    const log = await call(t.app, 'GET', `/v1/webhooks/${endpointId}/deliveries?limit=100`, { key: v.key });
    expectStatus(log, 200);
    const entry = log.body.items.find((d: any) => d.eventId === eventId);
    return entry && ready(entry) && { entry, log };
  });
}

/** The app on a database of its own, its dispatcher tuned by `dispatch`, and a venue with an endpoint on the (now listening) receiver. */
async function startWithReceiver(receiver: Receiver, dispatch: DispatcherOptions, events: string[]) {
  await receiver.listen();
  const t = await startApp({ ssrfTestAllow: [{ host: '127.0.0.1', port: receiver.port }] }, undefined, {
    webhookDispatch: dispatch,
    // Scheduled orders are judged against this clock: an order below is for 2027-03-14.
    clock: () => Date.parse('2027-03-13T12:00:00Z'),
  });
  return { t, ...(await venueWithEndpoint(t.app, receiver, events)) };
}

describe('webhook delivery', () => {
  const receiver = new Receiver();
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let endpointId: string;

  before(async () => {
    const dispatch = { pollMs: 50, retryDelaysMs: [100, 200], leaseMs: 15_000 };
    ({ t, v, ids, endpointId } = await startWithReceiver(receiver, dispatch, ['order.created', 'order.updated', 'menu.published']));
  });
  after(() => Promise.all([t.close(), receiver.close()]));

  it('sends order.created, signed, with the order as GET /v1/orders/:id shows it', async () => {
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(placed, 201);
    const event = await until('order.created', () =>
      receiver.unique().find((r) => r.type === 'order.created' && r.body.data.order.id === placed.body.id),
    );
    const read = await call(t.app, 'GET', `/v1/orders/${placed.body.id}`, { key: v.key });
    assert.deepEqual(event.body.data.order, read.body);
    assert.equal(event.body.id, event.id, 'the payload id is the webhook-id');
    assert.equal(event.body.venueId, v.id);
    assert.match(event.body.timestamp, /^\d{4}-\d{2}-\d{2}T/);
  });

  it("writes the payload in the order's own statement exactly as the read shows it: number, times, lines, modifiers, table, text", async () => {
    // The statement builds the body from the rows it inserts: its number and times from the order
    // clock, the scheduled time as stored, and text (quotes, backslashes, line breaks, non-Latin
    // text) escaped as the read's JSON has it.
    const table = await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'Window "4" — вікно' } });
    expectStatus(table, 201);
    const burger = ids.options.burger;
    const placed = await placeOrder(
      t.app,
      v.slug,
      orderBody(ids, {
        type: 'dine_in',
        tableId: table.body.id,
        comment: 'carta-number-0000 carta-time-0000 "quoted" \\ back\nslash, 🍔 — без цибулі',
        customerName: 'Zoë "Z" O\'Neil',
        scheduledFor: '2027-03-14T18:00:00.123456+02:00',
        items: [
          burgerLine(ids, 2, [{ optionId: burger.Extras.cheese, quantity: 2 }, { optionId: burger.Remove.onion }], 'bun-brioche'),
          { productId: ids.productIds.fries, quantity: 3 },
        ],
      }),
      'payload-statement-key',
    );
    expectStatus(placed, 201);
    const event = await until('order.created', () =>
      receiver.unique().find((r) => r.type === 'order.created' && r.body.data.order.id === placed.body.id),
    );
    const read = await call(t.app, 'GET', `/v1/orders/${placed.body.id}`, { key: v.key });
    assert.deepEqual(event.body.data.order, read.body);
    assert.equal(read.body.scheduledFor, '2027-03-14T16:00:00.123Z');
    assert.equal(read.body.orderNumber, placed.body.orderNumber);
    assert.equal(read.body.items[0].modifiers.length, 3);
  });

  it('pins the order.created body field by field: keys in the documented order, types, and the values placed', async () => {
    const burger = ids.options.burger;
    const sentAt = new Date().toISOString();
    const placed = await placeOrder(
      t.app,
      v.slug,
      orderBody(ids, {
        type: 'delivery',
        customerEmail: 'ada@example.com',
        deliveryAddress: 'Khreshchatyk 1, Kyiv',
        deliveryNotes: 'Ring twice',
        changeFromAmount: 5000,
        items: [burgerLine(ids, 2, [{ optionId: burger.Extras.cheese, quantity: 2 }]), { productId: ids.productIds.fries, quantity: 3 }],
      }),
    );
    expectStatus(placed, 201);
    const event = await until('order.created', () =>
      receiver.unique().find((r) => r.type === 'order.created' && r.body.data.order.id === placed.body.id),
    );
    const body = JSON.parse(event.raw.body);

    assert.deepEqual(Object.keys(body), ['id', 'type', 'timestamp', 'venueId', 'data'], 'the envelope of docs/events.md, in its order');
    assert.equal(body.id, event.id);
    assert.equal(body.type, 'order.created');
    assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(body.timestamp >= sentAt && body.timestamp <= new Date().toISOString(), 'drafted when the order was placed');
    assert.equal(body.venueId, v.id);
    assert.deepEqual(Object.keys(body.data), ['order']);

    const order = body.data.order;
    assert.deepEqual(Object.keys(order), [
      'id',
      'orderNumber',
      'status',
      'allowedTransitions',
      'type',
      'customerName',
      'customerPhone',
      'customerEmail',
      'deliveryAddress',
      'deliveryNotes',
      'paymentMethod',
      'comment',
      'changeFromAmount',
      'scheduledFor',
      'tableId',
      'tableName',
      'currency',
      'subtotalAmount',
      'deliveryFee',
      'discountAmount',
      'totalAmount',
      'createdAt',
      'updatedAt',
      'confirmedAt',
      'completedAt',
      'items',
    ]);
    const expected: Record<string, unknown> = {
      id: placed.body.id,
      orderNumber: placed.body.orderNumber,
      status: 'new',
      allowedTransitions: ['confirmed', 'cancelled'],
      type: 'delivery',
      customerName: 'Ada',
      customerPhone: '+380501234567',
      customerEmail: 'ada@example.com',
      deliveryAddress: 'Khreshchatyk 1, Kyiv',
      deliveryNotes: 'Ring twice',
      paymentMethod: 'cash',
      comment: null,
      changeFromAmount: 5000,
      scheduledFor: null,
      tableId: null,
      tableName: null,
      currency: placed.body.currency,
      subtotalAmount: placed.body.subtotalAmount,
      deliveryFee: placed.body.deliveryFee,
      discountAmount: placed.body.discountAmount,
      totalAmount: placed.body.totalAmount,
      createdAt: placed.body.createdAt,
      updatedAt: placed.body.createdAt,
      confirmedAt: null,
      completedAt: null,
    };
    for (const [field, value] of Object.entries(expected)) assert.deepEqual(order[field], value, field);
    assert.equal(typeof order.orderNumber, 'string');
    assert.equal(typeof order.currency, 'string');
    for (const field of ['subtotalAmount', 'deliveryFee', 'discountAmount', 'totalAmount'])
      assert.ok(Number.isInteger(order[field]), field);
    assert.equal(order.deliveryFee, 250, 'under the free-delivery threshold');

    assert.equal(order.items.length, 2);
    for (const item of order.items) {
      assert.deepEqual(Object.keys(item), ['productExternalId', 'productName', 'quantity', 'unitPrice', 'totalPrice', 'modifiers']);
      for (const m of item.modifiers)
        assert.deepEqual(Object.keys(m), ['groupName', 'ingredientExternalId', 'ingredientName', 'priceAdjustment', 'quantity']);
    }
    const [burgers, fries] = order.items;
    assert.deepEqual([burgers.productExternalId, burgers.productName, burgers.quantity], ['burger', 'Burger', 2]);
    assert.deepEqual(burgers.modifiers, [
      { groupName: 'Bun', ingredientExternalId: 'bun-white', ingredientName: 'White bun', priceAdjustment: 0, quantity: 1 },
      { groupName: 'Extras', ingredientExternalId: 'cheese', ingredientName: 'Cheese', priceAdjustment: 100, quantity: 2 },
    ]);
    assert.deepEqual([fries.productExternalId, fries.productName, fries.quantity, fries.modifiers], ['fries', 'Fries', 3, []]);
    order.items.forEach((item: any, i: number) => {
      assert.equal(item.unitPrice, placed.body.items[i].unitPrice);
      assert.equal(item.totalPrice, placed.body.items[i].totalPrice);
      assert.ok(Number.isInteger(item.unitPrice) && Number.isInteger(item.totalPrice));
    });

    // The guest's answer and the read are the same order, whatever their key order.
    assert.deepEqual(order, placed.body);
    const read = await call(t.app, 'GET', `/v1/orders/${placed.body.id}`, { key: v.key });
    assert.deepEqual(order, read.body);
  });

  it('sends order.updated with the previous and new status, and menu.published', async () => {
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(await patchStatus(t.app, v.key, placed.body.id, 'confirmed'), 200);
    const updated = await until('order.updated', () =>
      receiver.unique().find((r) => r.type === 'order.updated' && r.body.data.order.id === placed.body.id),
    );
    assert.equal(updated.body.data.previousStatus, 'new');
    assert.equal(updated.body.data.status, 'confirmed');
    assert.equal(updated.body.data.order.status, 'confirmed');

    const publicationId = await publish(t.app, v);
    const published = await until('menu.published', () =>
      receiver.unique().find((r) => r.type === 'menu.published' && r.body.data.publicationId === publicationId),
    );
    assert.ok(published.body.data.counts);
  });

  it('retries through failures, delivering every event once after deduplication, in commit order', async () => {
    receiver.script = [500, 503];
    const orders: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const placed = await placeOrder(t.app, v.slug, orderBody(ids));
      expectStatus(placed, 201);
      orders.push(placed.body.id);
    }
    await until('three deliveries', () =>
      orders.every((id) => receiver.unique().some((r) => r.type === 'order.created' && r.body.data.order.id === id)),
    );
    const created = receiver
      .unique()
      .filter((r) => orders.includes(r.body.data?.order?.id) && r.type === 'order.created')
      .map((r) => r.body.data.order.id);
    assert.deepEqual(created, orders, 'in the order they were placed');
    assert.ok(receiver.requests.filter((r) => r.status >= 500).length >= 2, 'the failures were retried');

    // A batch is recorded once all of it is sent: the receiver can hold the last event first.
    const delivery = await until("the first order's delivery recorded", async () => {
      const { rows } = await t.database.db.query<{ status: string; attempts: number }>(
        `select d.status, d.attempts from webhook_deliveries d join webhook_events e on e.venue_id = d.venue_id and e.id = d.event_id
         where d.venue_id = $1 and e.payload like '%' || $2 || '%'`,
        [v.id, orders[0]],
      );
      return rows[0]?.status === 'delivered' ? rows[0] : undefined;
    });
    assert.ok(delivery.attempts >= 2);
  });

  it('logs every attempt, newest first; a manual retry and a ping are delivered', async () => {
    receiver.script = [500];
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    const received = await until('delivered after a failure', () =>
      receiver.unique().find((r) => r.body.data?.order?.id === placed.body.id),
    );
    const { entry, log } = await logEntry(t, v, endpointId, received.id, (d) => d.status === 'delivered');
    assert.equal(entry.eventType, 'order.created');
    assert.equal(entry.nextAttemptAt, null);
    assert.deepEqual(
      entry.attemptLog.map((a: any) => a.statusCode),
      [200, 500],
      'newest first',
    );
    assert.ok(entry.attemptLog.every((a: any) => Number.isInteger(a.durationMs)));
    const seqs = log.body.items.map((d: any) => d.createdAt);
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

    const unknown = await call(t.app, 'POST', `/v1/webhooks/${endpointId}/deliveries/00000000-0000-7000-8000-000000000000/retry`, {
      key: v.key,
    });
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
    assert.ok(event.signatures.every((s) => s.startsWith('v1,')));
    // The receiver verified it with the new secret; one that still holds the old secret verifies
    // the same request (the library accepts any one signature of the header), and a stranger's does not.
    assert.doesNotThrow(() => new Webhook(previous).verify(event.raw.body, event.raw.headers));
    assert.throws(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(event.raw.body, event.raw.headers));
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
      (
        await t.database.db.query<{ failing_since: Date | null }>(
          'select failing_since from webhook_endpoints where venue_id = $1 and id = $2',
          [v.id, endpointId],
        )
      ).rows[0].failing_since;
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

describe('webhook delivery to a receiver that does not answer in time', () => {
  const TIMEOUT_MS = 500;
  const TIMED_OUT = `no answer within ${TIMEOUT_MS / 1000} s`;
  const receiver = new Receiver();
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let endpointId: string;

  before(async () => {
    // The send timeout shortened from 10 s so that a hang ends at once; the first retry waits three
    // seconds, long enough to read the timed-out attempt in the log while the delivery is pending
    // even on a loaded machine (after one second, a slow read once met the retry already claimed).
    const dispatch = { pollMs: 50, timeoutMs: TIMEOUT_MS, retryDelaysMs: [3_000, 100, 100, 100], leaseMs: 15_000 };
    ({ t, v, ids, endpointId } = await startWithReceiver(receiver, dispatch, ['order.created']));
  });
  after(() => Promise.all([t.close(), receiver.close()]));

  it('logs a receiver that never answers as a timed-out attempt, retries, and the event is seen once after deduplication', async () => {
    // The first request is held open and never answered; the second is handled but answered after
    // the timeout (the receiver has the event, Carta does not know it); the third is answered at once.
    receiver.script = ['hang', { status: 200, late: TIMEOUT_MS * 2 }];
    const placed = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(placed, 201);
    const { id: eventId } = await until('the first request', () => receiver.requests[0]);

    const { entry: pending } = await logEntry(t, v, endpointId, eventId, (d) => d.attemptLog.length === 1);
    assert.deepEqual([pending.status, pending.attempts, pending.lastStatusCode, pending.lastError], ['pending', 1, null, TIMED_OUT]);
    assert.ok(Date.parse(pending.nextAttemptAt) > Date.parse(pending.attemptLog[0].startedAt), 'due again later');
    const [hung] = pending.attemptLog;
    assert.deepEqual([hung.statusCode, hung.error], [null, TIMED_OUT]);
    assert.ok(
      hung.durationMs >= TIMEOUT_MS * 0.9 && hung.durationMs < DELIVERY_TIMEOUT_MS,
      `ended by the timeout, after ${hung.durationMs} ms`,
    );

    const { entry: delivered } = await logEntry(t, v, endpointId, eventId, (d) => d.status === 'delivered');
    assert.deepEqual(
      delivered.attemptLog.map((a: any) => [a.attempt, a.statusCode, a.error]),
      [
        [3, 200, null],
        [2, null, TIMED_OUT],
        [1, null, TIMED_OUT],
      ],
      'newest first: the late answer counted as a timeout too',
    );
    assert.equal(delivered.nextAttemptAt, null);
    assert.deepEqual(
      receiver.requests.map((r) => r.id),
      [eventId, eventId, eventId],
    );
    assert.equal(receiver.accepted.filter((r) => r.id === eventId).length, 2, 'handled twice: on the late answer and on the retry');
    const seen = receiver.unique().filter((r) => r.type === 'order.created' && r.body.data.order.id === placed.body.id);
    assert.equal(seen.length, 1, 'once after deduplication by webhook-id');
    assert.equal(seen[0].id, eventId);
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
    const created = await call(t.app, 'POST', '/v1/webhooks', {
      key: v.key,
      body: { url: 'https://hooks.example.com/carta', events: ['order.created'] },
    });
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
    // What the venue reads says that the name reaches no allowed address, never which one, in the
    // words an unknown name gets too (test/outbound/ssrf-messages.test.ts, ssrf-unknown-names.test.ts).
    assert.match(String(row.error), /does not resolve to an address that may be reached/);
    assert.doesNotMatch(String(row.error), /10\.1\.2\.3|private/);
  });
});

describe('webhook delivery that keeps failing', () => {
  const receiver = new Receiver();
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let endpointId: string;

  before(async () => {
    // The day of retries and the day of failing, shrunk: two retries 60 ms apart; disabled after 1 s of failures.
    const dispatch = { pollMs: 30, retryDelaysMs: [60, 60], disableAfterMs: 1000, leaseMs: 15_000 };
    ({ t, v, ids, endpointId } = await startWithReceiver(receiver, dispatch, ['order.created']));
  });
  after(() => Promise.all([t.close(), receiver.close()]));

  it('gives a delivery up once its retries are spent, then disables an endpoint failing past the limit, and says why', async () => {
    receiver.script = Array.from({ length: 100 }, () => 500);
    const first = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(first, 201);
    const firstEvent = await until('the first request', () => receiver.requests[0]);
    const { entry } = await logEntry(t, v, endpointId, firstEvent.id, (d) => d.status !== 'pending');
    assert.deepEqual([entry.status, entry.attempts, entry.lastStatusCode, entry.nextAttemptAt], ['failed', 3, 500, null]);
    const endpoint = (await call(t.app, 'GET', `/v1/webhooks/${endpointId}`, { key: v.key })).body;
    assert.equal(endpoint.enabled, true, 'one given-up delivery does not disable the endpoint');

    // More orders, still failing: once the failures have lasted past the limit, the endpoint goes off.
    const disabled = await until('the endpoint disabled', async () => {
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
      await sleep(100);
      const read = (await call(t.app, 'GET', `/v1/webhooks/${endpointId}`, { key: v.key })).body;
      return !read.enabled && read;
    });
    assert.equal(disabled.disabledReason, 'every delivery failed for 1 s (last: answered 500)');
    // Its pending deliveries wait; turned on again with the receiver back, they are sent.
    receiver.script = [];
    const before = receiver.unique().length;
    expectStatus(await call(t.app, 'PATCH', `/v1/webhooks/${endpointId}`, { key: v.key, body: { enabled: true } }), 200);
    await until('the waiting deliveries', () => receiver.unique().length > before);
  });
});
