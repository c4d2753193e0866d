import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ORDER_STATUSES } from '../../src/shared/order-status.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import {
  auditEntries,
  createOrder,
  driveTo,
  expectStatus,
  orderBody,
  PATH_TO,
  patchStatus,
  setUpOrderMenu,
  type MenuIds,
} from '../helpers/orders.js';
import { SPEC_ORDER_TRANSITIONS } from '../helpers/order-transitions.js';

// The status table, as test/helpers/order-transitions.ts writes it out independently of src: the pairs it allows.
const LEGAL = SPEC_ORDER_TRANSITIONS;

const TINY_MENU = { products: [{ externalId: 'fries', name: 'Fries', priceMinor: 400 }] };

// PATCH /v1/orders/:id/status through the HTTP API.
describe('order status updates', () => {
  let t: TestApp;
  let transitions: Record<string, string[]>;
  before(async () => {
    t = await startApp();
    const v = await createVenue(t.app);
    const reference = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    expectStatus(reference, 200);
    transitions = reference.body.orderStatusTransitions;
  });
  after(() => t.close());

  async function venueWithOrder(): Promise<{ v: VenueFixture; ids: MenuIds; order: any }> {
    const v = await createVenue(t.app);
    // One product is all a status test needs (orderBody orders fries).
    const ids = await setUpOrderMenu(t.app, v, { orderConfig: null, menu: TINY_MENU });
    return { v, ids, order: await createOrder(t.app, v.slug, orderBody(ids)) };
  }

  const getOrder = async (v: VenueFixture, id: string) => {
    const res = await call(t.app, 'GET', `/v1/orders/${id}`, { key: v.key });
    expectStatus(res, 200);
    return res.body;
  };

  it('publishes the status table as orderStatusTransitions in GET /v1/reference', () => {
    assert.deepEqual(transitions, LEGAL);
  });

  for (const from of ORDER_STATUSES) {
    describe(`from ${from}`, () => {
      for (const to of ORDER_STATUSES) {
        const legal = LEGAL[from].includes(to);
        const kind = from === to ? 'a no-op 200' : legal ? 'allowed (200)' : 'refused (422 INVALID_STATUS_TRANSITION)';
        it(`${from} -> ${to} is ${kind}`, async () => {
          const { v, order } = await venueWithOrder();
          const before = await driveTo(t.app, v.key, order, from);
          const auditBefore = await auditEntries(t.app, v.key, 'order.status_update');
          assert.equal(auditBefore.length, PATH_TO[from].length);

          const res = await patchStatus(t.app, v.key, order.id, to);
          const auditAfter = await auditEntries(t.app, v.key, 'order.status_update');
          const stored = await getOrder(v, order.id);

          if (from === to) {
            // The same status: 200, nothing changes: no updatedAt bump, no audit entry.
            expectStatus(res, 200);
            assert.deepEqual(res.body, before);
            assert.deepEqual(stored, before);
            assert.equal(auditAfter.length, auditBefore.length);
            return;
          }

          if (!legal) {
            assert.equal(res.status, 422, JSON.stringify(res.body));
            assert.equal(res.body.code, 'INVALID_STATUS_TRANSITION');
            assert.equal(res.body.statusCode, 422);
            const message: string = res.body.message;
            assert.ok(message.includes(`'${from}'`) && message.includes(`'${to}'`), message);
            if (LEGAL[from].length === 0) {
              assert.match(message, /terminal/, message);
            } else {
              assert.ok(message.includes(`Allowed from '${from}': ${LEGAL[from].join(', ')}`), message);
            }
            assert.deepEqual(stored, before, 'a refused transition changes nothing');
            assert.equal(auditAfter.length, auditBefore.length, 'a refused transition is not audited');
            return;
          }

          expectStatus(res, 200);
          const o = res.body;
          assert.equal(o.status, to);
          assert.deepEqual(o.allowedTransitions, transitions[to]);
          assert.equal(o.createdAt, before.createdAt);
          assert.ok(o.updatedAt > before.updatedAt, `updatedAt ${o.updatedAt} after ${before.updatedAt}`);
          assert.equal(o.confirmedAt, to === 'confirmed' ? o.updatedAt : before.confirmedAt);
          assert.equal(o.completedAt, to === 'completed' ? o.updatedAt : before.completedAt);
          assert.deepEqual(o.items, before.items);
          assert.equal(o.totalAmount, before.totalAmount);
          assert.deepEqual(stored, o);

          assert.equal(auditAfter.length, auditBefore.length + 1);
          const entry = auditAfter[0];
          assert.equal(entry.action, 'order.status_update');
          assert.equal(entry.entityType, 'order');
          assert.equal(entry.entityRef, order.id);
          assert.deepEqual(entry.changes, { from, to });
          assert.equal(entry.source, 'api_key');
          assert.equal(entry.requestId, res.headers['x-request-id']);
        });
      }
    });
  }

  it('walks new -> confirmed -> preparing -> delivering -> completed, setting confirmedAt and completedAt once', async () => {
    const { v, order } = await venueWithOrder();
    assert.deepEqual(order.allowedTransitions, transitions.new);
    const steps: any[] = [order];
    for (const status of ['confirmed', 'preparing', 'delivering', 'completed'] as const) {
      const res = await patchStatus(t.app, v.key, order.id, status);
      expectStatus(res, 200);
      assert.deepEqual(res.body.allowedTransitions, transitions[status]);
      steps.push(res.body);
    }
    const [placed, confirmed, preparing, delivering, completed] = steps;
    assert.equal(placed.confirmedAt, null);
    assert.equal(confirmed.confirmedAt, confirmed.updatedAt);
    for (const later of [preparing, delivering, completed]) assert.equal(later.confirmedAt, confirmed.confirmedAt);
    for (const earlier of [placed, confirmed, preparing, delivering]) assert.equal(earlier.completedAt, null);
    assert.equal(completed.completedAt, completed.updatedAt);
    for (let i = 1; i < steps.length; i += 1) assert.ok(steps[i].updatedAt > steps[i - 1].updatedAt);

    const audit = await auditEntries(t.app, v.key, 'order.status_update');
    assert.deepEqual(audit.map((e) => e.changes).reverse(), [
      { from: 'new', to: 'confirmed' },
      { from: 'confirmed', to: 'preparing' },
      { from: 'preparing', to: 'delivering' },
      { from: 'delivering', to: 'completed' },
    ]);
    // A repeat of the last status is still a no-op.
    const again = await patchStatus(t.app, v.key, order.id, 'completed');
    expectStatus(again, 200);
    assert.equal(again.body.updatedAt, completed.updatedAt);
    assert.equal((await auditEntries(t.app, v.key, 'order.status_update')).length, 4);
  });

  it('cancels from new without setting confirmedAt or completedAt', async () => {
    const { v, order } = await venueWithOrder();
    const res = await patchStatus(t.app, v.key, order.id, 'cancelled');
    expectStatus(res, 200);
    assert.deepEqual(
      [res.body.status, res.body.confirmedAt, res.body.completedAt, res.body.allowedTransitions],
      ['cancelled', null, null, []],
    );
  });

  it('moves the order to the head of an updatedSince poll', async () => {
    const { v, ids, order } = await venueWithOrder();
    const second = await createOrder(t.app, v.slug, orderBody(ids));
    const res = await patchStatus(t.app, v.key, order.id, 'confirmed');
    const poll = await call(t.app, 'GET', `/v1/orders?updatedSince=${second.updatedAt}`, { key: v.key });
    assert.deepEqual(
      poll.body.items.map((o: any) => [o.id, o.updatedAt]),
      [
        [second.id, second.updatedAt],
        [order.id, res.body.updatedAt],
      ],
    );
  });

  it('rejects a bad body with 400: missing status, unknown status, wrong type, extra property, no body', async () => {
    const { v, order } = await venueWithOrder();
    const url = `/v1/orders/${order.id}/status`;
    const cases: [unknown, RegExp][] = [
      [{}, /^status is required/],
      [{ status: 'shipped' }, /^status must be one of/],
      [{ status: 'CONFIRMED' }, /^status must be one of/],
      [{ status: 1 }, /^status/],
      [{ status: null }, /^status/],
      [{ status: 'confirmed', note: 'x' }, /^note is not allowed/],
      [['confirmed'], /./],
    ];
    for (const [body, pattern] of cases) {
      const res = await call(t.app, 'PATCH', url, { key: v.key, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.message, 'Validation failed');
      assert.ok(
        res.body.errors.some((e: string) => pattern.test(e)),
        `${JSON.stringify(body)}: ${JSON.stringify(res.body.errors)}`,
      );
    }
    const noBody = await call(t.app, 'PATCH', url, { key: v.key });
    assert.equal(noBody.status, 400);
    const stored = await getOrder(v, order.id);
    assert.deepEqual(stored, order);
    assert.equal((await auditEntries(t.app, v.key, 'order.status_update')).length, 0);
  });
});
