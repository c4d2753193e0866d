import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ORDER_STATUSES, type OrderStatus } from '../../src/shared/order-status.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import {
  auditEntries,
  createOrder,
  driveTo,
  expectStatus,
  orderBody,
  PATH_TO,
  patchStatus,
  placeOrder,
  setUpOrderMenu,
  type MenuIds,
} from '../helpers/orders.js';
import { SPEC_ORDER_TRANSITIONS } from '../helpers/order-transitions.js';

// The status table, as test/helpers/order-transitions.ts writes it out independently of src.
const LEGAL = SPEC_ORDER_TRANSITIONS;

/**
 * The audit entries of one order must form one chain of legal steps from `start` to the stored
 * status: every entry used once, each step's `from` the previous step's `to`. The machine has no
 * cycles, so the chain is found by following `from` (entries of one transaction share a createdAt,
 * so their listing order is not relied on).
 */
function assertChain(entries: any[], start: OrderStatus, final: OrderStatus): OrderStatus[] {
  const byFrom = new Map<string, any>();
  for (const e of entries) {
    assert.ok(!byFrom.has(e.changes.from), `two transitions out of ${e.changes.from}: ${JSON.stringify(entries.map((x) => x.changes))}`);
    byFrom.set(e.changes.from, e);
  }
  const path: OrderStatus[] = [start];
  let current = start;
  while (byFrom.has(current)) {
    const next = byFrom.get(current).changes.to as OrderStatus;
    assert.ok(LEGAL[current].includes(next), `illegal step ${current} -> ${next}`);
    byFrom.delete(current);
    current = next;
    path.push(current);
  }
  assert.equal(byFrom.size, 0, `entries off the chain: ${JSON.stringify([...byFrom.values()].map((e) => e.changes))}`);
  assert.equal(current, final, `chain ${path.join(' -> ')} ends elsewhere than the stored ${final}`);
  return path;
}

// Concurrent PATCH /v1/orders/:id/status: no lost update, one audit entry per real transition.
describe('concurrent order writes', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  async function venueWithMenu(): Promise<{ v: VenueFixture; ids: MenuIds }> {
    const v = await createVenue(t.app);
    return { v, ids: await setUpOrderMenu(t.app, v, { orderConfig: null }) };
  }

  async function entriesFor(v: VenueFixture, orderId: string) {
    return (await auditEntries(t.app, v.key, 'order.status_update')).filter((e) => e.entityRef === orderId);
  }

  const getOrder = async (v: VenueFixture, id: string) => (await call(t.app, 'GET', `/v1/orders/${id}`, { key: v.key })).body;

  it('applies 10 simultaneous "confirmed" requests once: all 200, one transition, one audit entry', async () => {
    const { v, ids } = await venueWithMenu();
    const order = await createOrder(t.app, v.slug, orderBody(ids));
    const results = await Promise.all(Array.from({ length: 10 }, () => patchStatus(t.app, v.key, order.id, 'confirmed')));
    for (const r of results) {
      expectStatus(r, 200);
      assert.equal(r.body.status, 'confirmed');
    }
    // Every answer shows the one transition's timestamps.
    assert.equal(new Set(results.map((r) => r.body.updatedAt)).size, 1);
    assert.equal(new Set(results.map((r) => r.body.confirmedAt)).size, 1);
    const entries = await entriesFor(v, order.id);
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0].changes, { from: 'new', to: 'confirmed' });
    const stored = await getOrder(v, order.id);
    assert.equal(stored.updatedAt, results[0].body.updatedAt);
  });

  it('races confirmed against cancelled from new without a lost update', async () => {
    const { v, ids } = await venueWithMenu();
    for (let round = 0; round < 8; round += 1) {
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      const targets: OrderStatus[] = round % 2 === 0 ? ['confirmed', 'cancelled'] : ['cancelled', 'confirmed'];
      const results = await Promise.all(targets.map((s) => patchStatus(t.app, v.key, order.id, s)));
      const stored = await getOrder(v, order.id);
      assert.ok(targets.includes(stored.status), stored.status);

      for (const [i, r] of results.entries()) {
        if (r.status === 200) assert.equal(r.body.status, targets[i]);
        else {
          assert.equal(r.status, 422, JSON.stringify(r.body));
          assert.equal(r.body.code, 'INVALID_STATUS_TRANSITION');
        }
      }
      const succeeded = results.filter((r) => r.status === 200).length;
      assert.ok(succeeded >= 1, 'one of the two always wins');
      const chain = assertChain(await entriesFor(v, order.id), 'new', stored.status);
      // Each success is one real step of the chain; a 422 lost to the other's state.
      assert.equal(chain.length - 1, succeeded);
      if (succeeded === 2) assert.deepEqual(chain, ['new', 'confirmed', 'cancelled']);
      else assert.deepEqual(chain, ['new', 'cancelled']);
    }
  });

  it('races every target at once from every non-terminal status; audit entries always form one legal chain', async () => {
    const { v, ids } = await venueWithMenu();
    for (const from of ['new', 'confirmed', 'preparing', 'delivering'] as OrderStatus[]) {
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      const start = await driveTo(t.app, v.key, order, from);
      const before = (await entriesFor(v, order.id)).length;
      const targets = [...ORDER_STATUSES, ...ORDER_STATUSES, ...ORDER_STATUSES];
      const results = await Promise.all(targets.map((s) => patchStatus(t.app, v.key, order.id, s)));
      for (const [i, r] of results.entries()) {
        assert.ok(r.status === 200 || r.status === 422, `${from} -> ${targets[i]}: ${r.status} ${JSON.stringify(r.body)}`);
        if (r.status === 200) assert.equal(r.body.status, targets[i]);
      }
      const stored = await getOrder(v, order.id);
      const entries = await entriesFor(v, order.id);
      assert.equal(before, PATH_TO[from].length);
      const chain = assertChain(entries, 'new', stored.status);
      assert.deepEqual(chain.slice(0, before + 1), ['new', ...PATH_TO[from]]);
      // Every 200 to another status is a step of the chain after the start.
      for (const [i, r] of results.entries()) {
        if (r.status === 200 && targets[i] !== from)
          assert.ok(chain.slice(before + 1).includes(targets[i]), `${targets[i]} not in ${chain}`);
      }
      // Timestamps strictly increase along the chain, and the stored order carries the last.
      assert.ok(stored.updatedAt >= start.updatedAt);
      if (chain.length - 1 > before) assert.ok(stored.updatedAt > start.updatedAt);
      else assert.equal(stored.updatedAt, start.updatedAt);
    }
  });

  it('creates one order for simultaneous requests with one Idempotency-Key', async () => {
    const { v, ids } = await venueWithMenu();
    const body = orderBody(ids);
    const results = await Promise.all(Array.from({ length: 6 }, () => placeOrder(t.app, v.slug, body, 'same-key')));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 201]);
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
    const list = await call(t.app, 'GET', '/v1/orders', { key: v.key });
    assert.equal(list.body.total, 1);
    // The requests that found the key taken wrote nothing, not even a tick of the order clock.
    const next = await placeOrder(t.app, v.slug, body);
    expectStatus(next, 201);
    assert.equal(next.body.orderNumber, '2');
  });

  it('gives simultaneous orders distinct numbers and distinct, ordered timestamps', async () => {
    const { v, ids } = await venueWithMenu();
    const results = await Promise.all(Array.from({ length: 12 }, () => placeOrder(t.app, v.slug, orderBody(ids))));
    for (const r of results) expectStatus(r, 201);
    const numbers = results.map((r) => Number(r.body.orderNumber)).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    const byNumber = [...results].sort((a, b) => Number(a.body.orderNumber) - Number(b.body.orderNumber));
    for (let i = 1; i < byNumber.length; i += 1) assert.ok(byNumber[i].body.createdAt > byNumber[i - 1].body.createdAt);
  });
});
