import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { expectStatus } from '../helpers/orders.js';

const ORDERS = 100_000;
const BASE = '2030-01-01T00:00:00.000Z';

/** The statements the last request sent that read the orders table (list page and count). */
function orderReads(statements: string[]): string[] {
  return statements.filter((s) => /from orders where/.test(s) && !/\bfor update\b/.test(s));
}

// The orders indexes of migration 0003: every list shape is an index range scan,
// whatever the size of the venue's history.
describe('orders at scale (100,000 orders in one venue)', () => {
  let t: TestApp;
  let statements: string[] = [];
  let recording = false;
  before(async () => {
    t = await startApp({}, (text) => {
      if (recording) statements.push(text);
    });
  });
  after(() => t.close());

  /** Sends one API request and returns the order-table statements it issued. */
  async function capture(url: string, key: string): Promise<{ res: Awaited<ReturnType<typeof call>>; sql: string[] }> {
    statements = [];
    recording = true;
    try {
      const res = await call(t.app, 'GET', url, { key });
      return { res, sql: orderReads(statements) };
    } finally {
      recording = false;
    }
  }

  async function plan(sql: string, params: unknown[]): Promise<string> {
    const { rows } = await t.database.db.query<Record<string, string>>(`explain ${sql}`, params);
    return rows.map((r) => Object.values(r)[0]).join('\n');
  }

  function assertIndexPlan(text: string, label: string) {
    assert.match(
      text,
      /(Index Scan|Index Only Scan|Bitmap Index Scan)( Backward)? (using|on) orders_\w+/,
      `${label}: no orders index in\n${text}`,
    );
    assert.doesNotMatch(text, /Seq Scan on orders/, `${label}: sequential scan in\n${text}`);
  }

  it('serves every list query shape from an index, and a tail poll quickly', async (ctx) => {
    const v = await createVenue(t.app);
    const db = t.database.db;

    // Loading 100,000 rows through the secondary indexes costs PGlite ~15 s; building them
    // afterwards ~3 s. They are dropped and rebuilt from their own definitions (pg_indexes), so
    // the plans below are those of the migration's indexes.
    let started = performance.now();
    const { rows: indexes } = await db.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes
       where schemaname = current_schema() and tablename = 'orders' and indexname <> 'orders_pkey' order by indexname`,
    );
    assert.deepEqual(
      indexes.map((i) => i.indexname),
      ['orders_created_idx', 'orders_guest_token_idx', 'orders_status_created_idx', 'orders_status_updated_idx', 'orders_updated_idx'],
    );
    for (const index of indexes) await db.query(`drop index ${index.indexname}`);

    // Created one second apart; updated at a permutation of those seconds (7919 is prime to
    // 100000), plus 500 ms: distinct values, and an update order unlike the creation order.
    // Ids ascend with creation, as the service's UUIDv7 ids do.
    await db.query(
      `insert into orders (venue_id, id, order_number, status, type, payment_method, currency, subtotal_amount,
         delivery_fee, discount_amount, total_amount, created_at, updated_at)
       select $1, ('00000000-0000-7000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, i::text,
              (array['new','confirmed','preparing','delivering','completed','cancelled'])[1 + i % 6],
              (array['delivery','pickup','dine_in'])[1 + i % 3],
              'cash', 'EUR', 1000, 0, 0, 1000,
              $2::timestamptz + i * interval '1 second',
              $2::timestamptz + ((i * 7919) % $3) * interval '1 second' + interval '500 milliseconds'
       from generate_series(1, $3::int) as i`,
      [v.id, BASE, ORDERS],
    );
    const inserted = performance.now();
    for (const index of indexes) await db.query(index.indexdef);
    const indexed = performance.now();
    // Statistics for the planner, and the visibility map that autovacuum keeps on a live table
    // (without it the planner never picks an index-only scan for a count).
    await db.query('vacuum analyze orders');
    ctx.diagnostic(
      `loaded ${ORDERS} orders: insert ${Math.round(inserted - started)} ms, indexes ${Math.round(indexed - inserted)} ms, ` +
        `vacuum analyze ${Math.round(performance.now() - indexed)} ms`,
    );

    const { rows } = await db.query<{ n: number; max: Date }>(
      'select count(*)::int as n, max(updated_at) as max from orders where venue_id = $1',
      [v.id],
    );
    assert.equal(rows[0].n, ORDERS);
    const tail = new Date(rows[0].max.getTime() - 9_999).toISOString(); // the last 10 changes

    // The requests a client makes, with the statements each issues and the parameters the
    // repository binds for them (venue id first, then the filters in where() order).
    // wholeVenue: the count covers (nearly) every order of the venue, which here is the whole
    // table, so a sequential scan is the right plan for it; it is reported, not asserted.
    // rangeSort: a status list (= any) cannot walk the index in updated_at order, so the few rows
    // of the range are sorted.
    const shapes: { label: string; url: string; params: unknown[]; wholeVenue?: boolean; rangeSort?: boolean }[] = [
      { label: 'poll (updatedSince, ascending)', url: `/v1/orders?updatedSince=${tail}&limit=100`, params: [v.id, tail] },
      { label: 'poll from the start, first page', url: `/v1/orders?updatedSince=${BASE}&limit=20`, params: [v.id, BASE], wholeVenue: true },
      { label: 'newest first', url: '/v1/orders?limit=20', params: [v.id], wholeVenue: true },
      { label: 'newest first, deep page', url: '/v1/orders?limit=20&page=50', params: [v.id], wholeVenue: true },
      { label: 'status filter', url: '/v1/orders?status=new&limit=20', params: [v.id, ['new']] },
      { label: 'status list filter', url: '/v1/orders?status=new,confirmed&limit=20', params: [v.id, ['new', 'confirmed']] },
      { label: 'type filter', url: '/v1/orders?type=pickup&limit=20', params: [v.id, 'pickup'], wholeVenue: true },
      {
        label: 'status filter and poll',
        url: `/v1/orders?status=preparing&updatedSince=${tail}`,
        params: [v.id, ['preparing'], tail],
        rangeSort: true,
      },
    ];
    for (const shape of shapes) {
      const { res, sql } = await capture(shape.url, v.key);
      expectStatus(res, 200);
      assert.ok(sql.length >= 1, `${shape.label}: no orders statement captured`);
      for (const statement of sql) {
        const text = await plan(statement, shape.params);
        const kind = /count\(\*\)/.test(statement) ? 'count' : 'page';
        ctx.diagnostic(
          `${shape.label} [${kind}]: ${text
            .split('\n')
            .filter((l) => /Scan|Sort|Limit/.test(l))
            .map((l) => l.trim())
            .join(' | ')}`,
        );
        if (kind === 'page' || !shape.wholeVenue) assertIndexPlan(text, `${shape.label} [${kind}]`);
        if (kind === 'page' && !shape.rangeSort) {
          assert.doesNotMatch(text, /\bSort\b/, `${shape.label}: the page is sorted instead of read in index order\n${text}`);
        }
      }
    }

    // A tail poll through the whole API (auth, query, view, serialisation): reported, not asserted.
    // Each request differs (limit) so none is answered from the embedded engine's page memo.
    const times: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      started = performance.now();
      const res = await call(t.app, 'GET', `/v1/orders?updatedSince=${tail}&limit=${90 + i}`, { key: v.key });
      times.push(performance.now() - started);
      expectStatus(res, 200);
      assert.equal(res.body.items.length, 10);
      assert.equal(res.body.total, 10);
      assert.ok(res.body.items.every((o: any) => o.updatedAt >= tail));
    }
    ctx.diagnostic(`tail poll through the API: ${times.map((ms) => ms.toFixed(1)).join(', ')} ms on ${t.database.db.engine}`);
  });
});
