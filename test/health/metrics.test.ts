import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';

// GET /metrics (docs/deployment.md): Prometheus text behind the operator token, with
// bounded labels only.

/**
 * GET /metrics from the scraper's own address: it counts against the per-IP limits,
 * and the rest of a test's requests come from inject's default one.
 */
const asScraper = (t: TestApp, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '192.0.2.250', headers });

const scrape = async (t: TestApp) => {
  const res = await asScraper(t, { authorization: `Bearer ${ADMIN_TOKEN}` });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return res.body;
};

/** The value of one sample line, e.g. `carta_http_requests_in_flight 0`. */
const sample = (text: string, prefix: string) => {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('GET /metrics', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ rateLimits: true });
  });
  after(() => t.close());

  it('needs the operator token', async () => {
    const none = await asScraper(t);
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().statusCode, 401);
    const wrong = await asScraper(t, { authorization: 'Bearer not-the-token-not-the-token-not-the-token' });
    assert.equal(wrong.statusCode, 401);
  });

  it('counts requests by route pattern and status class, never by venue or path', async () => {
    const v = await createVenue(t.app);
    await call(t.app, 'GET', '/v1/products/no-such-product', { key: v.key });
    await call(t.app, 'GET', '/v1/reference', { key: v.key });
    await call(t.app, 'GET', `/no/such/path/${v.id}`);
    const text = await scrape(t);
    assert.match(text, /carta_http_request_duration_seconds_count\{method="GET",route="\/v1\/products\/:ref",status_class="4xx"\} [1-9]/);
    assert.match(text, /carta_http_request_duration_seconds_count\{method="GET",route="\/v1\/reference",status_class="2xx"\} [1-9]/);
    assert.match(text, /route="unmatched"/);
    assert.equal(text.includes(v.id), false, 'no venue id');
    assert.equal(text.includes('no-such-product'), false, 'no path values');
    assert.equal(text.includes(v.key), false);
    assert.equal(sample(text, 'carta_http_requests_in_flight'), 1, 'the scrape itself is the one in flight');
    // The process's own metrics come along.
    assert.match(text, /^process_cpu_seconds_total /m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
  });

  it('times syncs and counts their items by section', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'POST', '/v1/sync', {
      key: v.key,
      body: {
        categories: [{ externalId: 'c', name: 'C' }],
        products: [
          { externalId: 'p1', name: 'P1', priceMinor: 100, categoryExternalId: 'c' },
          { externalId: 'p2', name: 'P2', priceMinor: 100, categoryExternalId: 'c' },
        ],
      },
    });
    assert.equal(res.status, 201);
    const text = await scrape(t);
    assert.match(text, /carta_sync_duration_seconds_count\{dry_run="false"\} [1-9]/);
    assert.match(text, /carta_sync_items_sum\{section="products"\} [2-9]/);
    if (process.env.DATABASE_URL) {
      assert.match(text, /carta_db_pool_connections\{state="total"\} \d/);
      assert.match(text, /carta_db_pool_checkouts_total [1-9]/);
    }
  });

  it('counts 429s by the bucket that was full', async () => {
    // Last in this file: it fills this client's per-IP bucket.
    let limited = 0;
    for (let i = 0; i < 15; i += 1) if ((await call(t.app, 'GET', '/v1/reference')).status === 429) limited += 1;
    assert.ok(limited > 0, 'the short bucket filled');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const text = await scrape(t);
    assert.ok(
      (sample(text, 'carta_rate_limit_rejections_total{bucket="short"}') ?? 0) >= limited,
      text
        .split('\n')
        .filter((l) => l.includes('rate_limit'))
        .join('\n'),
    );
  });
});

describe('GET /metrics with METRICS=off', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ metrics: false });
  });
  after(() => t.close());

  it('is not served', async () => {
    const res = await call(t.app, 'GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(res.status, 404);
  });
});

describe('GET /metrics, strict reads', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('counts strict reads that waited for a catch-up, and the round trips they shared (PostgreSQL)', { skip: !onPostgres }, async () => {
    const v = await createVenue(t.app);
    const before = await scrape(t);
    const waitsBefore = sample(before, 'carta_change_feed_catch_up_waits_total') ?? 0;
    const tripsBefore = sample(before, 'carta_change_feed_catch_up_seconds_count') ?? 0;
    // Twenty reads at once: they arrive in one turn of the event loop and share round trips.
    const reads = await Promise.all(Array.from({ length: 20 }, () => call(t.app, 'GET', '/v1/reference', { key: v.key })));
    assert.ok(reads.every((r) => r.status === 200));
    const text = await scrape(t);
    const waits = (sample(text, 'carta_change_feed_catch_up_waits_total') ?? 0) - waitsBefore;
    const trips = (sample(text, 'carta_change_feed_catch_up_seconds_count') ?? 0) - tripsBefore;
    assert.ok(waits >= 20, `every read waited: ${waits}`);
    assert.ok(trips >= 1 && trips < waits, `round trips were shared: ${trips} for ${waits} waits`);
  });
});
