import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { AppError } from '../../src/errors.js';
import { ipChecks, RateLimiter, venueChecks } from '../../src/http/rate-limit/limiter.js';
import { MemoryRateStore } from '../../src/http/rate-limit/memory-store.js';
import type { BucketCheck } from '../../src/http/rate-limit/store.js';
import type { App } from '../../src/http/types.js';
import type { Config } from '../../src/config.js';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { whenRedisCounts } from '../helpers/rate-limits.js';

// Rate limits (docs/rate-limits.md): the 429 and the order of checks. Every app here has
// its limiters on (startApp turns them off by default) and its own Redis key prefix, so the
// file runs the same on the in-memory store and, with REDIS_URL set, on Redis. Each request
// names its client IP (inject's remoteAddress): a fresh IP per request keeps the per-IP
// buckets out of the way of the per-venue tests, and one fixed IP pins them in the per-IP tests.

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

interface Res {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

interface BucketHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

let ipCounter = 0;
/** A client address no other request in this file has used. */
function freshIp(): string {
  ipCounter += 1;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

async function hit(
  app: App,
  method: Method,
  url: string,
  options: { ip?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Res> {
  const res = await app.inject({
    method,
    url,
    remoteAddress: options.ip ?? freshIp(),
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, headers: res.headers };
}

/** The X-RateLimit-*-<bucket> headers of a response, by bucket name. */
function buckets(res: Res): Record<string, BucketHeaders> {
  const out: Record<string, BucketHeaders> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    const m = /^x-ratelimit-(limit|remaining|reset)-(.+)$/.exec(name);
    if (!m) continue;
    assert.match(String(value), /^\d+$/, `${name} is a whole number`);
    out[m[2]] ??= { limit: NaN, remaining: NaN, reset: NaN };
    out[m[2]][m[1] as keyof BucketHeaders] = Number(value);
  }
  return out;
}

function bucketNames(res: Res): string[] {
  return Object.keys(buckets(res)).sort();
}

function assertRateLimited(res: Res, bucket: string): number {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.code, 'RATE_LIMITED');
  assert.equal(res.body.statusCode, 429);
  assert.match(res.body.message, new RegExp(`'${bucket}'`));
  assert.ok(res.body.requestId);
  const retryAfter = res.headers['retry-after'];
  assert.match(String(retryAfter), /^\d+$/, 'Retry-After is whole seconds');
  assert.ok(Number(retryAfter) >= 1);
  assert.equal(buckets(res)[bucket].remaining, 0);
  return Number(retryAfter);
}

interface Venue {
  id: string;
  slug: string;
  key: string;
}

/** A venue and a live key through the operator API, each call from an address of its own. */
async function createVenue(app: App, plan: 'free' | 'standard' = 'free'): Promise<Venue> {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const venue = await hit(app, 'POST', '/admin/v1/venues', {
    body: { name: `RL ${randomBytes(4).toString('hex')}`, currency: 'EUR', plan },
    headers: auth,
  });
  assert.equal(venue.status, 201, JSON.stringify(venue.body));
  const key = await hit(app, 'POST', `/admin/v1/venues/${venue.body.id}/api-keys`, { body: { mode: 'live' }, headers: auth });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  return { id: venue.body.id, slug: venue.body.slug, key: key.body.key };
}

const prefixes: string[] = [];
function uniquePrefix(): string {
  const prefix = `carta:test:rl:${process.pid}:${randomBytes(4).toString('hex')}:`;
  prefixes.push(prefix);
  return prefix;
}

/**
 * An app with every limiter on (Redis when REDIS_URL is set), under a key prefix of its own. On
 * Redis it returns once requests are counted there: until the store's connection is up, requests
 * are counted in its in-memory fallback, which would split a test's counts between the two.
 */
async function limitedApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const prefix = uniquePrefix();
  const t = await startApp({ rateLimits: true, redisKeyPrefix: prefix, ...overrides });
  await whenRedisCounts(t.app, prefix);
  return t;
}

after(async () => {
  if (!process.env.REDIS_URL) return;
  const redis = new Redis(process.env.REDIS_URL);
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

/**
 * Sends `burst` from one client at once, then each of `probes` in turn, all within the short
 * bucket's 1 s window. When the machine is too slow to fit them in it (the window would have
 * moved on), the round is repeated from a fresh client; the last attempt is returned as is.
 */
async function withinOneSecond(
  burst: (ip: string) => Promise<Res>[],
  probes: ((ip: string) => Promise<Res>)[],
  ipFor: () => string = freshIp,
): Promise<{ burst: Res[]; probes: Res[] }> {
  for (let attempt = 1; ; attempt += 1) {
    const ip = ipFor();
    const started = performance.now();
    const sent = await Promise.all(burst(ip));
    const answers: Res[] = [];
    for (const probe of probes) answers.push(await probe(ip));
    if (performance.now() - started < 900 || attempt === 5) return { burst: sent, probes: answers };
  }
}

const times = <T>(n: number, fn: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => fn(i));

/** A /media URL of a venue id and key nobody stored: a fresh one each time, so no miss is a recent one. */
const missingMedia = () => `/media/${randomUUID()}/${randomBytes(32).toString('hex')}.webp`;

describe('per-IP buckets', () => {
  let t: TestApp;
  before(async () => {
    t = await limitedApp();
  });
  after(() => t.close());

  it('allows 10 requests a second from one IP and refuses the 11th with 429 RATE_LIMITED naming the short bucket', async () => {
    const { burst, probes } = await withinOneSecond(
      (ip) => times(10, () => hit(t.app, 'GET', '/v1/openapi.json', { ip })),
      [(ip) => hit(t.app, 'GET', '/v1/openapi.json', { ip })],
    );
    assert.deepEqual(
      burst.map((r) => r.status),
      Array(10).fill(200),
    );
    assert.deepEqual(
      burst.map((r) => buckets(r).short.remaining).sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    for (const r of burst) {
      assert.deepEqual(bucketNames(r), ['long', 'medium', 'short']);
      assert.deepEqual([buckets(r).short.limit, buckets(r).medium.limit, buckets(r).long.limit], [10, 50, 300]);
    }

    const [refused] = probes;
    assert.equal(assertRateLimited(refused, 'short'), 1);
    assert.equal(refused.body.path, '/v1/openapi.json');
    // The buckets are checked in order and the first full one refuses: medium and long were not reached.
    assert.deepEqual(bucketNames(refused), ['short']);

    // Another client is not affected.
    assert.equal((await hit(t.app, 'GET', '/v1/openapi.json')).status, 200);
  });

  it('checks the IP before authentication: a bad key from an exhausted IP gets 429, not 401', async () => {
    const badKey = `carta_live_${'x'.repeat(32)}`;
    const { burst, probes } = await withinOneSecond(
      (ip) => times(10, () => hit(t.app, 'GET', '/v1/reference', { ip, key: badKey })),
      [(ip) => hit(t.app, 'GET', '/v1/reference', { ip, key: badKey }), (ip) => hit(t.app, 'GET', '/v1/reference', { ip })],
    );
    assert.deepEqual(
      burst.map((r) => r.status),
      Array(10).fill(401),
    );
    // Even a 401 reports the per-IP buckets it was counted in.
    assert.ok(burst.every((r) => bucketNames(r).join() === 'long,medium,short'));
    assertRateLimited(probes[0], 'short');
    assertRateLimited(probes[1], 'short');
  });

  it('limits guest and operator routes by IP only, and shares the IP budget across every route', async () => {
    const venue = await createVenue(t.app);
    const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const { burst, probes } = await withinOneSecond(
      (ip) =>
        times(10, (i) =>
          i % 2 === 0
            ? hit(t.app, 'GET', `/guest/v1/venues/${venue.slug}/menu`, { ip })
            : hit(t.app, 'GET', `/admin/v1/venues/${venue.id}`, { ip, headers: operator }),
        ),
      [
        (ip) => hit(t.app, 'GET', `/admin/v1/venues/${venue.id}`, { ip, headers: operator }),
        (ip) => hit(t.app, 'POST', `/guest/v1/venues/${venue.slug}/orders`, { ip, body: {} }),
      ],
    );
    // Guest menu: 404 (nothing published); operator: 200. Neither has a per-venue bucket.
    assert.deepEqual(
      burst.map((r) => r.status),
      times(10, (i) => (i % 2 === 0 ? 404 : 200)),
    );
    assert.ok(burst.every((r) => bucketNames(r).join() === 'long,medium,short'));
    assertRateLimited(probes[0], 'short');
    assertRateLimited(probes[1], 'short');
  });

  it('counts requests to unknown paths, those whose body is refused before routing included', async () => {
    const raw = (ip: string, contentType: string, payload: string): Promise<Res> =>
      t.app
        .inject({ method: 'POST', url: '/nope', remoteAddress: ip, headers: { 'content-type': contentType }, payload })
        .then((r) => ({ status: r.statusCode, body: JSON.parse(r.body), headers: r.headers }));
    const { burst, probes } = await withinOneSecond(
      (ip) =>
        times(10, (i) =>
          i % 3 === 0
            ? raw(ip, 'text/plain', 'hello')
            : i % 3 === 1
              ? raw(ip, 'application/json', '{"broken":')
              : hit(t.app, 'GET', '/nope', { ip }),
        ),
      [(ip) => raw(ip, 'application/json', '{"broken":'), (ip) => hit(t.app, 'GET', '/nope', { ip })],
    );
    // Broken JSON fails in the body parser (400) before the 404 handler runs; the rest are 404.
    assert.deepEqual(
      burst.map((r) => r.status),
      times(10, (i) => (i % 3 === 1 ? 400 : 404)),
    );
    assert.ok(
      burst.every((r) => bucketNames(r).join() === 'long,medium,short'),
      'each was counted',
    );
    assertRateLimited(probes[0], 'short');
    assertRateLimited(probes[1], 'short');
  });

  it('counts GET /metrics before its token: an IP guessing the operator token gets 429 after 10 a second', async () => {
    const wrong = { authorization: `Bearer carta_admin_${'x'.repeat(40)}` };
    const { burst, probes } = await withinOneSecond(
      (ip) => times(10, () => hit(t.app, 'GET', '/metrics', { ip, headers: wrong })),
      [
        (ip) => hit(t.app, 'GET', '/metrics', { ip, headers: wrong }),
        (ip) => hit(t.app, 'GET', '/metrics', { ip, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      ],
    );
    assert.deepEqual(
      burst.map((r) => r.status),
      Array(10).fill(401),
    );
    assert.ok(
      burst.every((r) => bucketNames(r).join() === 'long,medium,short'),
      'each was counted',
    );
    assertRateLimited(probes[0], 'short');
    // From an exhausted IP even the right token waits: the limit is checked first.
    assertRateLimited(probes[1], 'short');

    // A scrape is one request of the scraper's budget.
    const scrape = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: freshIp(),
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(scrape.statusCode, 200);
    assert.equal(scrape.headers['x-ratelimit-remaining-short'], '9');
  });

  it('counts /media misses by IP: past the limit a miss is 429 without a look-up', async () => {
    const { burst, probes } = await withinOneSecond(
      (ip) => times(10, () => hit(t.app, 'GET', missingMedia(), { ip })),
      [(ip) => hit(t.app, 'GET', missingMedia(), { ip }), (ip) => hit(t.app, 'GET', `/media/not-a-venue/${'a'.repeat(64)}.webp`, { ip })],
    );
    assert.deepEqual(
      burst.map((r) => r.status),
      Array(10).fill(404),
    );
    assert.ok(
      burst.every((r) => bucketNames(r).join() === 'long,medium,short'),
      'each miss was counted',
    );
    assertRateLimited(probes[0], 'short');
    assertRateLimited(probes[1], 'short');
  });

  it('serves /media images that exist without taking a slot: a guest page loads one per product at once', async () => {
    const venue = await createVenue(t.app, 'free');
    assert.equal(
      (await hit(t.app, 'POST', '/v1/sync', { key: venue.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 300 }] } }))
        .status,
      201,
    );
    const upload = await hit(t.app, 'POST', '/v1/products/p1/image', {
      key: venue.key,
      body: { base64: toBase64(await makeImage(400, 400, 'png')) },
    });
    assert.equal(upload.status, 201, JSON.stringify(upload.body));
    const path = new URL(upload.body.imageUrl).pathname;
    const getImage = async (ip: string): Promise<Res> => {
      const res = await t.app.inject({ method: 'GET', url: path, remoteAddress: ip });
      return { status: res.statusCode, headers: res.headers, body: undefined };
    };

    // The first read is from the database, and takes no slot either.
    const ip = freshIp();
    const cold = await getImage(ip);
    assert.equal(cold.status, 200);
    assert.deepEqual(bucketNames(cold), [], 'a found image reports no buckets');
    // Then from memory, as many at once as a menu page asks for.
    const hot = await Promise.all(times(30, () => getImage(ip)));
    assert.deepEqual(
      hot.map((r) => r.status),
      Array(30).fill(200),
    );
    assert.ok(hot.every((r) => bucketNames(r).length === 0));
    const miss = await hit(t.app, 'GET', missingMedia(), { ip });
    assert.equal(miss.status, 404);
    assert.deepEqual([buckets(miss).short.remaining, buckets(miss).long.remaining], [9, 299], 'none of the 31 images took a slot');

    // An IP past its limits still gets an image this server holds in memory.
    const { probes } = await withinOneSecond(
      (other) => times(10, () => hit(t.app, 'GET', missingMedia(), { ip: other })),
      [(other) => hit(t.app, 'GET', missingMedia(), { ip: other }), getImage],
    );
    assertRateLimited(probes[0], 'short');
    assert.equal(probes[1].status, 200);
  });

  it('never limits /health and /ready, even for an exhausted IP', async () => {
    const { probes } = await withinOneSecond(
      (ip) => times(10, () => hit(t.app, 'GET', '/v1/openapi.json', { ip })),
      [
        (ip) => hit(t.app, 'GET', '/v1/openapi.json', { ip }),
        (ip) => hit(t.app, 'GET', '/health', { ip }),
        (ip) => hit(t.app, 'GET', '/ready', { ip }),
      ],
    );
    assertRateLimited(probes[0], 'short');
    for (const probe of probes.slice(1)) {
      assert.equal(probe.status, 200);
      assert.deepEqual(bucketNames(probe), [], 'probes carry no rate-limit headers');
    }
    const ip = freshIp();
    const many = await Promise.all(times(30, (i) => hit(t.app, 'GET', i % 2 === 0 ? '/health' : '/ready', { ip })));
    assert.deepEqual(
      many.map((r) => r.status),
      Array(30).fill(200),
    );
  });

  it('uses the socket address by default (TRUST_PROXY unset): a forged X-Forwarded-For never opens a new bucket', async () => {
    assert.equal(t.config.trustProxy, false);
    const forged = (ip: string, i: number) => ({ ip, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    const { burst, probes } = await withinOneSecond(
      (ip) => times(10, (i) => hit(t.app, 'GET', '/v1/openapi.json', forged(ip, i))),
      [
        (ip) => hit(t.app, 'GET', '/v1/openapi.json', forged(ip, 100)),
        (ip) => hit(t.app, 'GET', '/v1/openapi.json', { ip, headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.200' } }),
      ],
    );
    assert.ok(burst.every((r) => r.status === 200));
    assertRateLimited(probes[0], 'short');
    assertRateLimited(probes[1], 'short');
  });
});

describe('per-venue budgets by plan tier', () => {
  let t: TestApp;
  before(async () => {
    t = await limitedApp();
  });
  after(() => t.close());

  it('gives a free venue 30 requests per rolling minute over every /v1 route, then 429 naming general with an exact Retry-After', async () => {
    const venue = await createVenue(t.app, 'free');
    const routes = ['/v1/reference', '/v1/menu', '/v1/settings', '/v1/audit-log', '/v1/products/none'];
    const started = Date.now();
    for (let i = 0; i < 30; i += 1) {
      const res = await hit(t.app, 'GET', routes[i % routes.length], { key: venue.key });
      assert.ok(res.status === 200 || res.status === 404, `${res.status} ${JSON.stringify(res.body)}`);
      assert.deepEqual(bucketNames(res), ['general', 'long', 'medium', 'short']);
      const general = buckets(res).general;
      assert.deepEqual([general.limit, general.remaining], [30, 29 - i]);
      assert.ok(general.reset >= 1 && general.reset <= 60);
    }

    const refused = await hit(t.app, 'GET', '/v1/reference', { key: venue.key });
    const answered = Date.now();
    const retryAfter = assertRateLimited(refused, 'general');
    // A slot frees when the first of the 30 requests is 60 s old.
    const expected = (started + 60_000 - answered) / 1000;
    assert.ok(retryAfter >= expected && retryAfter - expected < 1.2, `Retry-After ${retryAfter}, expected about ${expected}`);
    assert.equal(buckets(refused).general.reset, retryAfter);
    // Other routes draw from the same budget.
    assertRateLimited(await hit(t.app, 'POST', '/v1/sync?dryRun=true', { key: venue.key, body: {} }), 'general');
  });

  it('gives a paid venue 120 general and 60 heavy', async () => {
    const venue = await createVenue(t.app, 'standard');
    const read = await hit(t.app, 'GET', '/v1/reference', { key: venue.key });
    assert.equal(read.status, 200);
    assert.deepEqual(buckets(read).general, { limit: 120, remaining: 119, reset: 60 });
    const sync = await hit(t.app, 'POST', '/v1/sync', { key: venue.key, body: {} });
    assert.equal(sync.status, 201);
    assert.deepEqual(bucketNames(sync), ['general', 'heavy', 'long', 'medium', 'short']);
    assert.deepEqual(buckets(sync).heavy, { limit: 60, remaining: 59, reset: 60 });
    assert.equal(buckets(sync).general.remaining, 118);
  });

  it('counts sync, publish, cleanup and PUT translations in heavy (10 on free); a request refused by heavy takes nothing from general', async () => {
    const venue = await createVenue(t.app, 'free');
    const heavy: [Method, string, unknown][] = [
      ['POST', '/v1/sync', { categories: [{ externalId: 'c1', name: 'Drinks' }] }],
      ['POST', '/v1/publish', undefined],
      ['POST', '/v1/cleanup', { items: [{ type: 'product', ref: 'gone' }] }],
      ['PUT', '/v1/translations', {}],
    ];
    let last: Res | null = null;
    for (let i = 0; i < 10; i += 1) {
      const [method, url, body] = heavy[i % heavy.length];
      last = await hit(t.app, method, url, { key: venue.key, body });
      assert.ok(last.status < 300, `${method} ${url}: ${last.status} ${JSON.stringify(last.body)}`);
      assert.deepEqual(buckets(last).heavy, { limit: 10, remaining: 9 - i, reset: buckets(last).heavy.reset });
    }
    assert.equal(buckets(last!).general.remaining, 20);

    for (const [method, url, body] of heavy) {
      const refused = await hit(t.app, method, url, { key: venue.key, body });
      assertRateLimited(refused, 'heavy');
      // general was checked first and reports its state unchanged: the refused request took nothing.
      assert.equal(buckets(refused).general.remaining, 20);
    }
    const read = await hit(t.app, 'GET', '/v1/menu', { key: venue.key });
    assert.equal(read.status, 200);
    assert.equal(buckets(read).general.remaining, 19);
    assert.equal(read.headers['x-ratelimit-limit-heavy'], undefined, 'a read does not check heavy');
  });

  it('counts image uploads in media (5 on free) and ?preoptimized=true ones in media-fast; a refused upload takes nothing', async () => {
    const venue = await createVenue(t.app, 'free');
    assert.equal(
      (await hit(t.app, 'POST', '/v1/sync', { key: venue.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 300 }] } }))
        .status,
      201,
    );
    const base64 = toBase64(await makeImage(400, 400, 'png'));
    let last: Res | null = null;
    for (let i = 0; i < 5; i += 1) {
      last = await hit(t.app, 'POST', i % 2 === 0 ? '/v1/products/p1/image' : '/v1/logo', { key: venue.key, body: { base64 } });
      assert.equal(last.status, 201, JSON.stringify(last.body));
      assert.deepEqual(bucketNames(last), ['general', 'long', 'media', 'medium', 'short']);
      assert.deepEqual([buckets(last).media.limit, buckets(last).media.remaining], [5, 4 - i]);
    }
    const general = buckets(last!).general.remaining;
    for (const url of ['/v1/products/p1/image', '/v1/logo']) {
      const refused = await hit(t.app, 'POST', url, { key: venue.key, body: { base64 } });
      assertRateLimited(refused, 'media');
      assert.equal(buckets(refused).general.remaining, general);
    }
    const webp = toBase64(await makeImage(1024, 1024, 'webp'));
    const fast = await hit(t.app, 'POST', '/v1/products/p1/image?preoptimized=true', { key: venue.key, body: { base64: webp } });
    assert.equal(fast.status, 201, JSON.stringify(fast.body));
    assert.deepEqual(bucketNames(fast), ['general', 'long', 'media-fast', 'medium', 'short']);
    assert.deepEqual([buckets(fast)['media-fast'].limit, buckets(fast)['media-fast'].remaining], [20, 19]);
    // Removing an image is an ordinary write.
    const removed = await hit(t.app, 'DELETE', '/v1/products/p1/image', { key: venue.key });
    assert.equal(removed.status, 200);
    assert.deepEqual(bucketNames(removed), ['general', 'long', 'medium', 'short']);
  });

  it('lets a dry-run sync draw from general but not heavy', async () => {
    const venue = await createVenue(t.app, 'free');
    const body = { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 300 }] };
    for (let i = 0; i < 11; i += 1) {
      const dry = await hit(t.app, 'POST', '/v1/sync?dryRun=true', { key: venue.key, body });
      assert.equal(dry.status, 201, JSON.stringify(dry.body));
      assert.equal(dry.body.dryRun, true);
      assert.deepEqual(bucketNames(dry), ['general', 'long', 'medium', 'short'], 'no heavy header on a dry run');
      assert.equal(buckets(dry).general.remaining, 29 - i);
    }
    const real = await hit(t.app, 'POST', '/v1/sync', { key: venue.key, body });
    assert.equal(real.status, 201);
    assert.equal(buckets(real).heavy.remaining, 9, 'eleven dry runs left heavy untouched');
    assert.equal(buckets(real).general.remaining, 18);
  });

  it('gives back the per-IP slots of a request that general refuses', async () => {
    const venue = await createVenue(t.app, 'free');
    for (let i = 0; i < 29; i += 1) assert.equal((await hit(t.app, 'GET', '/v1/reference', { key: venue.key })).status, 200);
    const ip = freshIp();
    const last = await hit(t.app, 'GET', '/v1/reference', { ip, key: venue.key });
    assert.equal(last.status, 200);
    assert.equal(buckets(last).general.remaining, 0);
    // (medium and long: their 10 s and 60 s windows cannot roll over during the test, as short's could.)
    const ipRemaining = (res: Res) => [buckets(res).medium.remaining, buckets(res).long.remaining];
    assert.deepEqual(ipRemaining(last), [49, 299]);

    for (let i = 0; i < 2; i += 1) {
      const refused = await hit(t.app, 'GET', '/v1/reference', { ip, key: venue.key });
      assertRateLimited(refused, 'general');
      assert.deepEqual(ipRemaining(refused), [49, 299], 'reported with its slot given back');
    }
    // The next request from that IP (to another venue) is its second one, not its fourth.
    const other = await createVenue(t.app, 'standard');
    const next = await hit(t.app, 'GET', '/v1/reference', { ip, key: other.key });
    assert.equal(next.status, 200);
    assert.deepEqual(ipRemaining(next), [48, 298]);
  });

  it('takes no venue slot for a request the plan gate refuses (plan gate, then rate limits)', async () => {
    const venue = await createVenue(t.app, 'free');
    const orders = await hit(t.app, 'GET', '/v1/orders', { key: venue.key });
    assert.equal(orders.status, 403);
    assert.equal(orders.body.code, 'PAID_PLAN_REQUIRED');
    assert.equal(orders.headers['x-ratelimit-limit-general'], undefined);
    const read = await hit(t.app, 'GET', '/v1/reference', { key: venue.key });
    assert.equal(buckets(read).general.remaining, 29);
  });
});

describe('client IP behind a trusted proxy (TRUST_PROXY)', () => {
  it('uses X-Forwarded-For from a trusted proxy, and only from it', async () => {
    const t = await limitedApp({ trustProxy: ['127.0.0.1'] });
    try {
      const viaProxy = (client: string) => ({ ip: '127.0.0.1', headers: { 'x-forwarded-for': client } });
      let client = 0;
      const { burst, probes } = await withinOneSecond(
        (c) => times(10, () => hit(t.app, 'GET', '/v1/openapi.json', viaProxy(c))),
        [(c) => hit(t.app, 'GET', '/v1/openapi.json', viaProxy(c))],
        () => `203.0.113.${(client += 1)}`,
      );
      assert.ok(burst.every((r) => r.status === 200));
      assertRateLimited(probes[0], 'short');

      // Another client behind the same proxy has a bucket of its own.
      const other = await hit(t.app, 'GET', '/v1/openapi.json', viaProxy('198.51.100.77'));
      assert.equal(other.status, 200);
      assert.equal(buckets(other).short.remaining, 9);

      // A peer that is not a trusted proxy is limited by its own address, whatever it claims.
      const spoof = await hit(t.app, 'GET', '/v1/openapi.json', { ip: freshIp(), headers: { 'x-forwarded-for': '198.51.100.77' } });
      assert.equal(spoof.status, 200);
      assert.equal(buckets(spoof).short.remaining, 9);
      assert.equal(buckets(spoof).long.remaining, 299);
    } finally {
      await t.close();
    }
  });
});

describe('IPv6 clients, keyed by their /64', () => {
  let t: TestApp;
  before(async () => {
    t = await limitedApp();
  });
  after(() => t.close());

  let prefixes64 = 0;
  /** The first 48 bits of a /64 no other test used: a client picks any address under the /64 ending in `:7`. */
  const fresh48 = () => `2001:db8:${(prefixes64 += 1).toString(16)}`;

  it('gives every address of one /64 one bucket, and another /64 its own', async () => {
    const { burst, probes } = await withinOneSecond(
      (p) => times(10, (i) => hit(t.app, 'GET', '/v1/openapi.json', { ip: `${p}:7::${(i + 1).toString(16)}` })),
      [
        (p) => hit(t.app, 'GET', '/v1/openapi.json', { ip: `${p}:7:ffff:ffff:ffff:ffff` }),
        (p) => hit(t.app, 'GET', '/v1/openapi.json', { ip: `${p.toUpperCase()}:7:0:0:0:abcd` }),
        (p) => hit(t.app, 'GET', '/v1/openapi.json', { ip: `${p}:8::1` }),
      ],
      fresh48,
    );
    assert.deepEqual(
      burst.map((r) => r.status),
      Array(10).fill(200),
    );
    assertRateLimited(probes[0], 'short');
    assertRateLimited(probes[1], 'short');
    assert.equal(probes[2].status, 200, 'the next /64 is another client');
    assert.equal(buckets(probes[2]).short.remaining, 9);

    if (process.env.REDIS_URL) {
      // The Redis store keys the same way: one key for the /64.
      const redis = new Redis(process.env.REDIS_URL);
      try {
        const keys = await redis.keys(`${t.config.redisKeyPrefix}ip:short:2001:db8:*`);
        assert.ok(keys.length > 0 && keys.every((k) => k.endsWith('::/64')), keys.join(', '));
      } finally {
        redis.disconnect();
      }
    }
  });

  it('counts an IPv4-mapped address (a dual-stack socket) as its IPv4 address', async () => {
    const { probes } = await withinOneSecond(
      (ip) => times(10, (i) => hit(t.app, 'GET', '/v1/openapi.json', { ip: i % 2 === 0 ? ip : `::ffff:${ip}` })),
      [(ip) => hit(t.app, 'GET', '/v1/openapi.json', { ip: `::ffff:${ip}` }), (ip) => hit(t.app, 'GET', '/v1/openapi.json', { ip })],
    );
    assertRateLimited(probes[0], 'short');
    assertRateLimited(probes[1], 'short');
  });

  it('keys the buckets by the /64 prefix, IPv4 addresses as they are', () => {
    const key = (ip: string) => ipChecks(ip)[0].key;
    assert.equal(key('2001:db8:1:2:3:4:5:6'), 'ip:short:2001:db8:1:2::/64');
    assert.equal(key('2001:DB8:1:2::9'), 'ip:short:2001:db8:1:2::/64');
    assert.equal(key('2001:db8:1:3::9'), 'ip:short:2001:db8:1:3::/64');
    assert.equal(key('::ffff:192.0.2.9'), 'ip:short:192.0.2.9');
    assert.equal(key('192.0.2.9'), 'ip:short:192.0.2.9');
    assert.equal(key('::1'), 'ip:short:::/64');
    assert.deepEqual(
      ipChecks('fe80::1:2:3:4%eth0').map((c) => c.key),
      ['ip:short:fe80::/64', 'ip:medium:fe80::/64', 'ip:long:fe80::/64'],
    );
  });
});

describe('RATE_LIMITS=off', () => {
  it('disables every limiter: no rate-limit headers and no 429 anywhere', async () => {
    const t = await startApp();
    try {
      assert.equal(t.config.rateLimits, false);
      const venue = await createVenue(t.app, 'free');
      const ip = freshIp();
      const responses = await Promise.all([
        ...Array.from({ length: 35 }, () => hit(t.app, 'GET', '/v1/reference', { ip, key: venue.key })),
        ...Array.from({ length: 12 }, () => hit(t.app, 'POST', '/v1/sync', { ip, key: venue.key, body: {} })),
        hit(t.app, 'GET', `/guest/v1/venues/${venue.slug}/menu`, { ip }),
        hit(t.app, 'GET', `/admin/v1/venues/${venue.id}`, { ip, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      ]);
      assert.ok(responses.every((r) => r.status !== 429));
      assert.ok(responses.every((r) => Object.keys(r.headers).every((h) => !h.startsWith('x-ratelimit-'))));
    } finally {
      await t.close();
    }
  });
});

// ---- the limiter itself, on a fake clock (windows of 60 s without waiting for them) ---------

class FakeReply {
  readonly headers: Record<string, string> = {};
  header(name: string, value: unknown): this {
    this.headers[name] = String(value);
    return this;
  }
}

function asReply(fake: FakeReply): Pick<FastifyReply, 'header'> {
  return fake as unknown as Pick<FastifyReply, 'header'>;
}

/** take() through a fake reply: the headers it set, and the 429 it threw, if any. */
async function take(
  limiter: RateLimiter,
  checks: BucketCheck[],
): Promise<{ ok: boolean; headers: Record<string, string>; error?: AppError }> {
  const reply = new FakeReply();
  try {
    await limiter.take(asReply(reply), checks);
    return { ok: true, headers: reply.headers };
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.statusCode, 429);
    assert.equal(err.code, 'RATE_LIMITED');
    return { ok: false, headers: reply.headers, error: err };
  }
}

describe('sliding-log limiter on a fake clock', () => {
  const MINUTE = 60_000;
  const general: BucketCheck = { name: 'general', key: 'venue:general:v1', limit: 30, windowMs: MINUTE };

  it('keeps a rolling window: 30 requests at the end of one minute still block the start of the next', async () => {
    let now = 100 * MINUTE;
    const limiter = new RateLimiter(new MemoryRateStore(), () => now);

    // 30 requests in the last 10 s of minute 100 (one every 1/3 s).
    const times: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      now = 100 * MINUTE + 50_000 + Math.round((i * 10_000) / 30);
      times.push(now);
      assert.ok((await take(limiter, [general])).ok);
    }

    // A fixed window would reset at 101:00 and allow 30 more; the sliding log refuses until the
    // oldest request is 60 s old (at 101:50), and then frees one slot per request that ages out.
    now = 101 * MINUTE;
    let refused = await take(limiter, [general]);
    assert.equal(refused.ok, false);
    assert.match(refused.error!.message, /'general'/);
    assert.equal(refused.error!.headers!['retry-after'], '50');
    assert.equal(refused.headers['x-ratelimit-reset-general'], '50');

    now = times[0] + MINUTE - 1;
    refused = await take(limiter, [general]);
    assert.equal(refused.ok, false);
    assert.equal(refused.error!.headers!['retry-after'], '1', 'Retry-After is at least 1 s');

    now = times[0] + MINUTE;
    const freed = await take(limiter, [general]);
    assert.ok(freed.ok, 'the oldest request left the window');
    assert.equal(freed.headers['x-ratelimit-remaining-general'], '0');
    assert.equal((await take(limiter, [general])).ok, false, 'only one slot freed');

    // Across any 60 s the bucket never admits more than its limit.
    let admitted = 1;
    for (now = times[0] + MINUTE + 1; now < times[0] + 2 * MINUTE; now += 250) {
      if ((await take(limiter, [general])).ok) admitted += 1;
    }
    assert.equal(admitted, 30);
  });

  it('gives Retry-After as the whole seconds until the oldest request leaves the window', async () => {
    let now = 5 * MINUTE;
    const limiter = new RateLimiter(new MemoryRateStore(), () => now);
    for (let i = 0; i < 30; i += 1) await take(limiter, [general]);
    for (const [elapsed, retryAfter] of [
      [1, '60'],
      [999, '60'],
      [1_000, '59'],
      [30_500, '30'],
      [59_999, '1'],
    ] as const) {
      now = 5 * MINUTE + elapsed;
      const refused = await take(limiter, [general]);
      assert.equal(refused.error?.headers?.['retry-after'], retryAfter, `after ${elapsed} ms`);
    }
  });

  it('consumes every bucket or none: a request one bucket refuses leaves the others as they were', async () => {
    const now = 7 * MINUTE;
    const limiter = new RateLimiter(new MemoryRateStore(), () => now);
    const heavy: BucketCheck = { name: 'heavy', key: 'venue:heavy:v1', limit: 2, windowMs: MINUTE };
    await take(limiter, [general, heavy]);
    await take(limiter, [general, heavy]);
    for (let i = 0; i < 3; i += 1) {
      const refused = await take(limiter, [general, heavy]);
      assert.equal(refused.ok, false);
      assert.match(refused.error!.message, /'heavy'/);
      assert.equal(refused.headers['x-ratelimit-remaining-general'], '28');
    }
    const read = await take(limiter, [general]);
    assert.equal(read.headers['x-ratelimit-remaining-general'], '27');
  });

  it('refunds the slots of a request by its token', async () => {
    const now = 9 * MINUTE;
    const limiter = new RateLimiter(new MemoryRateStore(), () => now);
    const checks = ipChecks('192.0.2.1');
    const { token } = await limiter.take(asReply(new FakeReply()), checks);
    await limiter.refund(checks, token);
    const again = await take(limiter, checks);
    assert.equal(again.headers['x-ratelimit-remaining-short'], '9');
  });

  it('applies the per-IP numbers: 10 per 1 s, then 50 per 10 s', async () => {
    let now = 11 * MINUTE;
    const limiter = new RateLimiter(new MemoryRateStore(), () => now);
    const checks = ipChecks('192.0.2.2');
    for (let i = 0; i < 10; i += 1) assert.ok((await take(limiter, checks)).ok);
    const burst = await take(limiter, checks);
    assert.match(burst.error!.message, /'short'/);
    assert.equal(burst.error!.headers!['retry-after'], '1');

    // 10 a second passes short; the 51st request within 10 s is refused by medium until the
    // first of them is 10 s old.
    const start = 12 * MINUTE;
    for (let i = 0; i < 50; i += 1) {
      now = start + i * 100;
      assert.ok((await take(limiter, checks)).ok, `request ${i + 1} at 10/s`);
    }
    now = start + 5_000;
    const refused = await take(limiter, checks);
    assert.match(refused.error!.message, /'medium'/);
    assert.equal(refused.error!.headers!['retry-after'], '5');
    now = start + 10_000;
    assert.ok((await take(limiter, checks)).ok);
  });

  it('refuses the 301st request of a minute in the long bucket', async () => {
    let now = 13 * MINUTE;
    const limiter = new RateLimiter(new MemoryRateStore(), () => now);
    // Alone: with 50 per 10 s in front of it, medium always refuses first (any 60 s holds at most 6 x 50).
    const long = ipChecks('192.0.2.4').filter((c) => c.name === 'long');
    for (let i = 0; i < 300; i += 1) {
      now = 13 * MINUTE + i * 100;
      assert.ok((await take(limiter, long)).ok);
    }
    const refused = await take(limiter, long);
    assert.match(refused.error!.message, /'long'/);
    assert.equal(refused.error!.headers!['retry-after'], '31');
  });

  it('keys venue buckets by venue and tier: general always, then the route buckets', () => {
    const free = venueChecks('v1', 'free', ['heavy']);
    assert.deepEqual(
      free.map((c) => [c.name, c.key, c.limit, c.windowMs]),
      [
        ['general', 'venue:general:v1', 30, 60_000],
        ['heavy', 'venue:heavy:v1', 10, 60_000],
      ],
    );
    const paid = venueChecks('v2', 'paid', ['media']);
    assert.deepEqual(
      paid.map((c) => [c.name, c.limit]),
      [
        ['general', 120],
        ['media', 30],
      ],
    );
    assert.deepEqual(
      ipChecks('192.0.2.3').map((c) => [c.name, c.limit, c.windowMs]),
      [
        ['short', 10, 1_000],
        ['medium', 50, 10_000],
        ['long', 300, 60_000],
      ],
    );
  });
});
