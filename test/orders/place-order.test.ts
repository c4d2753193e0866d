import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { expectStatus, orderBody, placeOrder, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

// Order placement's round trips (src/modules/orders/place-order.ts): on a venue whose memos hold,
// what the decision reads costs a table's read at most, and the order is one statement. A refused
// order writes nothing and, with an Idempotency-Key, looks that key up once.

describe('order placement round trips', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let tableId: string;
  let statements: string[] = [];
  let recording = false;

  before(async () => {
    t = await startApp({}, (text) => {
      if (recording) statements.push(text);
    });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
    const table = await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'Window' } });
    expectStatus(table, 201);
    tableId = table.body.id;
    // Warm: the venue, its merchandising, marks and webhook subscriptions are memoised from here on.
    expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
  });
  after(() => t.close());

  async function recorded<T>(fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
    statements = [];
    recording = true;
    try {
      return { result: await fn(), sql: statements };
    } finally {
      recording = false;
    }
  }

  const dineIn = (comment: string) => orderBody(ids, { type: 'dine_in', tableId, comment });

  it("places a dine-in order in two statements on a warm venue: its table's read, then the order with its key", async () => {
    const { result, sql } = await recorded(() => placeOrder(t.app, v.slug, dineIn('two statements'), 'dine-in-1'));
    expectStatus(result, 201);
    assert.equal(result.body.tableName, 'Window');
    assert.equal(sql.length, 2, sql.join(' | '));
    assert.match(sql[0], /from venue_tables/);
    assert.match(sql[1], /insert into order_idempotency_keys/);
  });

  it('refuses without a write: no statement at all without a key, one look-up of the key with one', async () => {
    const unknown = orderBody(ids, { items: [{ productId: '00000000-0000-7000-8000-000000000000', quantity: 1 }] });
    const bare = await recorded(() => placeOrder(t.app, v.slug, unknown));
    expectStatus(bare.result, 400);
    assert.deepEqual(bare.sql, []);

    const keyed = await recorded(() => placeOrder(t.app, v.slug, unknown, 'refused-1'));
    expectStatus(keyed.result, 400);
    assert.equal(keyed.sql.length, 1, keyed.sql.join(' | '));
    assert.match(keyed.sql[0], /from order_idempotency_keys/);
  });

  it('answers a retry refused now (its table deleted since) with the order its key made, writing nothing', async () => {
    expectStatus(await placeOrder(t.app, v.slug, dineIn('retried'), 'dine-in-2'), 201);
    expectStatus(await call(t.app, 'DELETE', `/v1/tables/${tableId}`, { key: v.key }), 200);
    const { result, sql } = await recorded(() => placeOrder(t.app, v.slug, dineIn('retried'), 'dine-in-2'));
    expectStatus(result, 200);
    assert.equal(result.headers['idempotent-replayed'], 'true');
    assert.equal(result.body.tableName, 'Window', 'the order as it was made');
    assert.ok(!sql.some((s) => /^\s*(with|insert|update|delete)\b/i.test(s)), `no write: ${sql.join(' | ')}`);
  });
});
