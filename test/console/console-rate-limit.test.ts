import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { App } from '../../src/http/types.js';
import { sessionCsrf } from '../../src/modules/console/csrf.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { whenRedisCounts } from '../helpers/rate-limits.js';
import { signedIn } from './console-client.js';

// The console acts under the same limits as /v1 (docs/rate-limits.md): a change made
// on the board takes a slot in the venue's `general` bucket, the one its /v1 twin draws from, and
// is refused with 429 when that bucket is full. Limits are on here (startApp turns them off), on
// Redis when REDIS_URL is set; every request comes from an address of its own, so the per-IP
// buckets stay out of the way.

let ipCounter = 0;
const freshIp = () => {
  ipCounter += 1;
  return `10.77.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};

/** The app as the helpers see it, each request from a fresh client address. */
function fromFreshAddresses(app: App): App {
  return new Proxy(app, {
    get(target, prop) {
      if (prop === 'inject') return (options: InjectOptions) => target.inject({ ...options, remoteAddress: freshIp() });
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const generalOf = (headers: Record<string, unknown>) => ({
  limit: headers['x-ratelimit-limit-general'] === undefined ? undefined : Number(headers['x-ratelimit-limit-general']),
  remaining: headers['x-ratelimit-remaining-general'] === undefined ? undefined : Number(headers['x-ratelimit-remaining-general']),
});

describe("the console's changes and the venue's rate limits", () => {
  let t: TestApp;
  let app: App;
  let v: VenueFixture;
  let session = '';
  const prefix = `carta:test:console-rl:${process.pid}:${randomBytes(4).toString('hex')}:`;

  before(async () => {
    t = await startApp({ rateLimits: true, redisKeyPrefix: prefix });
    app = fromFreshAddresses(t.app);
    await whenRedisCounts(t.app, prefix);
    v = await createVenue(app, { plan: 'free' });
    session = (await signedIn(app, v.id, 'manager@example.com', 'manager')).client.jar.get('carta_session')!;
  });
  after(async () => {
    await t.close();
    if (process.env.REDIS_URL) {
      const redis = new Redis(process.env.REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  const board = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    app.inject({
      method,
      url: `/console/api${path}`,
      headers: { cookie: `carta_session=${session}`, ...(method === 'GET' ? {} : { 'x-csrf-token': sessionCsrf(session) }) },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  it("takes a console change from the venue's general bucket, as /v1 does, and leaves the board's reads out of it", async () => {
    const first = await call(app, 'GET', '/v1/settings', { key: v.key });
    assert.deepEqual(generalOf(first.headers), { limit: 30, remaining: 29 });

    const pause = await board('POST', '/pause', { minutes: 0 });
    assert.equal(pause.statusCode, 200, pause.body);
    assert.deepEqual(generalOf(pause.headers), { limit: 30, remaining: 28 });

    const read = await board('GET', '/board');
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(generalOf(read.headers), { limit: undefined, remaining: undefined });

    const next = await call(app, 'GET', '/v1/settings', { key: v.key });
    assert.deepEqual(generalOf(next.headers), { limit: 30, remaining: 27 });
  });

  it('refuses a console change with 429 naming general once the bucket is full, and writes nothing', async () => {
    let remaining = 27;
    while (remaining > 0) {
      const res = await call(app, 'GET', '/v1/reference', { key: v.key });
      assert.equal(res.status, 200);
      remaining = generalOf(res.headers).remaining!;
    }
    const refused = await board('POST', '/pause', { minutes: 30 });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().code, 'RATE_LIMITED');
    assert.match(refused.json().message, /'general'/);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // The board's reads still answer (no venue slot), and show the venue still open.
    const after = await board('GET', '/board');
    assert.equal(after.statusCode, 200, after.body);
    assert.equal(after.json().ordering.open, true);
  });
});
