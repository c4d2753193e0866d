import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { RateLimiter } from '../../src/http/rate-limit/limiter.js';
import { RedisRateStore } from '../../src/http/rate-limit/redis-store.js';
import type { BucketCheck } from '../../src/http/rate-limit/store.js';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, startApp } from '../helpers/app.js';
import { testDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/net.js';

// The Redis rate-limit store: counters shared by every
// instance, the same rolling windows as in memory, and a fallback to in-memory limiting when
// Redis is down or slow (REDIS_TIMEOUT_MS). Needs REDIS_URL; the dead-Redis case needs no Redis.

const REDIS_URL = process.env.REDIS_URL;
const needsRedis = REDIS_URL ? false : 'REDIS_URL is not set';

const prefixes: string[] = [];
function uniquePrefix(): string {
  const prefix = `carta:test:rlr:${process.pid}:${randomBytes(4).toString('hex')}:`;
  prefixes.push(prefix);
  return prefix;
}

let redis: Redis | null = null;
function inspector(): Redis {
  redis ??= new Redis(REDIS_URL as string);
  return redis;
}

after(async () => {
  if (!redis) return;
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

let ipCounter = 0;
function freshIp(): string {
  ipCounter += 1;
  return `10.200.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

interface Res {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
  ms: number;
}

async function hit(
  app: App,
  method: 'GET' | 'POST',
  url: string,
  options: { ip?: string; key?: string; body?: unknown; admin?: boolean } = {},
): Promise<Res> {
  const started = performance.now();
  const token = options.admin ? ADMIN_TOKEN : options.key;
  const res = await app.inject({
    method,
    url,
    remoteAddress: options.ip ?? freshIp(),
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return {
    status: res.statusCode,
    body: res.body ? JSON.parse(res.body) : undefined,
    headers: res.headers,
    ms: performance.now() - started,
  };
}

async function createVenue(app: App, plan: 'free' | 'standard' = 'free'): Promise<{ id: string; key: string }> {
  const venue = await hit(app, 'POST', '/admin/v1/venues', {
    admin: true,
    body: { name: `RLR ${randomBytes(4).toString('hex')}`, currency: 'EUR', plan },
  });
  assert.equal(venue.status, 201, JSON.stringify(venue.body));
  const key = await hit(app, 'POST', `/admin/v1/venues/${venue.body.id}/api-keys`, { admin: true, body: { mode: 'live' } });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  return { id: venue.body.id, key: key.body.key };
}

/**
 * Returns once `app` counts requests in Redis under `prefix`: until its store's connection is up,
 * requests are counted in the in-memory fallback, which would split a test's counts.
 */
async function untilCountedInRedis(app: App, prefix: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const ip = freshIp();
    await app.inject({ method: 'GET', url: '/health/none', remoteAddress: ip });
    if ((await inspector().exists(`${prefix}ip:short:${ip}`)) === 1) return;
    await sleep(100);
  }
  throw new Error('the Redis rate-limit store never became ready');
}

const remaining = (res: Res, bucket: string) => Number(res.headers[`x-ratelimit-remaining-${bucket}`]);

/** An app with limiters on, on a database of its own, whose log lines the test can read. */
async function loggedApp(
  overrides: Partial<Config>,
): Promise<{ app: App; lines: string[]; database: TestDatabase; close(): Promise<void> }> {
  const database = await testDatabase();
  const lines: string[] = [];
  const config = loadConfig({ RATE_LIMITS: 'on', LOG_LEVEL: 'warn', ADMIN_TOKEN, DATA_DIR: '/nonexistent' }, overrides);
  const { app } = await buildApp({ config, db: database.db, logStream: { write: (line) => lines.push(line) } });
  await app.ready();
  return {
    app,
    lines,
    database,
    async close() {
      await app.close();
      await database.dispose();
    },
  };
}

/**
 * A TCP relay in front of the real Redis that can stop passing traffic both ways (and then
 * deliver what it held, in order), so one test can make Redis go silent without pausing the
 * server for every other test run that shares it (CLIENT PAUSE would).
 */
class StallingRelay {
  private stalled = false;
  private held: (() => void)[] = [];
  private readonly sockets = new Set<net.Socket>();
  private readonly server: net.Server;

  constructor(private readonly target: URL) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk) => this.pass(() => upstream.write(chunk)));
      upstream.on('data', (chunk) => this.pass(() => client.write(chunk)));
    });
  }

  private pass(send: () => void): void {
    if (this.stalled) this.held.push(send);
    else send();
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as net.AddressInfo;
    const url = new URL(this.target.href);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return url.href;
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const send of this.held.splice(0)) send();
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Redis store shared by instances', { skip: needsRedis }, () => {
  it('keeps the counters in Redis, shared by two instances: the 31st general request of a free venue across both is 429', async () => {
    const prefix = uniquePrefix();
    const a = await startApp({ rateLimits: true, redisKeyPrefix: prefix });
    // A second instance of the service: its own app and limiter, the same database and Redis prefix.
    const b = await buildApp({ config: a.config, db: a.database.db });
    try {
      await b.app.ready();
      await untilCountedInRedis(a.app, prefix);
      await untilCountedInRedis(b.app, prefix);
      const venue = await createVenue(a.app);
      for (let i = 0; i < 30; i += 1) {
        const app = i % 2 === 0 ? a.app : b.app;
        const res = await hit(app, 'GET', '/v1/reference', { key: venue.key });
        assert.equal(res.status, 200);
        assert.equal(remaining(res, 'general'), 29 - i, `request ${i + 1}`);
      }
      for (const app of [b.app, a.app]) {
        const refused = await hit(app, 'GET', '/v1/reference', { key: venue.key });
        assert.equal(refused.status, 429);
        assert.equal(refused.body.code, 'RATE_LIMITED');
        assert.match(refused.body.message, /'general'/);
      }
      const key = `${prefix}venue:general:${venue.id}`;
      assert.equal(await inspector().zcard(key), 30);
      const ttl = await inspector().pttl(key);
      assert.ok(ttl > 0 && ttl <= 60_000, 'each key expires with its window');
    } finally {
      await b.app.close();
      await a.close();
    }
  });
});

class FakeReply {
  readonly headers: Record<string, string> = {};
  header(name: string, value: unknown): this {
    this.headers[name] = String(value);
    return this;
  }
}

async function take(
  limiter: RateLimiter,
  checks: BucketCheck[],
): Promise<{ ok: boolean; headers: Record<string, string>; error?: AppError }> {
  const reply = new FakeReply();
  try {
    await limiter.take(reply as unknown as Pick<FastifyReply, 'header'>, checks);
    return { ok: true, headers: reply.headers };
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'RATE_LIMITED');
    return { ok: false, headers: reply.headers, error: err };
  }
}

describe('Redis store on a fake clock', { skip: needsRedis }, () => {
  const MINUTE = 60_000;
  const silent = pino({ enabled: false }) as unknown as FastifyBaseLogger;

  it('keeps a rolling window in Redis: a full bucket at the end of one minute still refuses at the start of the next', async () => {
    const prefix = uniquePrefix();
    const store = new RedisRateStore({ url: REDIS_URL as string, prefix, timeoutMs: 5_000, logger: silent });
    let now = 200 * MINUTE;
    const limiter = new RateLimiter(store, () => now);
    const general: BucketCheck = { name: 'general', key: 'venue:general:v1', limit: 30, windowMs: MINUTE };
    try {
      const times: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        now = 200 * MINUTE + 50_000 + Math.round((i * 10_000) / 30);
        times.push(now);
        assert.ok((await take(limiter, [general])).ok);
      }
      assert.equal(await inspector().zcard(`${prefix}venue:general:v1`), 30, 'the log lives in Redis');

      now = 201 * MINUTE;
      let refused = await take(limiter, [general]);
      assert.equal(refused.ok, false, 'a fixed window would have reset at the minute');
      assert.equal(refused.error!.headers!['retry-after'], '50');

      now = times[0] + MINUTE - 1;
      refused = await take(limiter, [general]);
      assert.equal(refused.error!.headers!['retry-after'], '1');

      now = times[0] + MINUTE;
      assert.ok((await take(limiter, [general])).ok, 'the oldest request left the window');
      assert.equal((await take(limiter, [general])).ok, false);

      let admitted = 1;
      for (now = times[0] + MINUTE + 1; now < times[0] + 2 * MINUTE; now += 250) {
        if ((await take(limiter, [general])).ok) admitted += 1;
      }
      assert.equal(admitted, 30, 'never more than the limit in any 60 s');
    } finally {
      await limiter.close();
    }
  });

  it('consumes every bucket or none, reports the unchanged ones on a 429, and refunds by token', async () => {
    const prefix = uniquePrefix();
    const store = new RedisRateStore({ url: REDIS_URL as string, prefix, timeoutMs: 5_000, logger: silent });
    const now = 300 * MINUTE;
    const limiter = new RateLimiter(store, () => now);
    const general: BucketCheck = { name: 'general', key: 'venue:general:v2', limit: 30, windowMs: MINUTE };
    const heavy: BucketCheck = { name: 'heavy', key: 'venue:heavy:v2', limit: 2, windowMs: MINUTE };
    try {
      await take(limiter, [general, heavy]);
      await take(limiter, [general, heavy]);
      for (let i = 0; i < 3; i += 1) {
        const refused = await take(limiter, [general, heavy]);
        assert.match(refused.error!.message, /'heavy'/);
        assert.equal(refused.headers['x-ratelimit-remaining-general'], '28');
        assert.equal(refused.headers['x-ratelimit-reset-general'], '60');
      }
      assert.equal(await inspector().zcard(`${prefix}venue:general:v2`), 2);

      const { token } = await limiter.take(new FakeReply() as unknown as Pick<FastifyReply, 'header'>, [general]);
      assert.equal(await inspector().zcard(`${prefix}venue:general:v2`), 3);
      await limiter.refund([general], token);
      assert.equal(await inspector().zcard(`${prefix}venue:general:v2`), 2);
    } finally {
      await limiter.close();
    }
  });
});

describe('Redis unavailable: in-memory fallback', () => {
  it('answers within a second with rate-limit headers when Redis is down, limits in memory, and logs a warning', async () => {
    const port = await freePort();
    const t = await loggedApp({ redisUrl: `redis://127.0.0.1:${port}`, redisKeyPrefix: 'carta:test:dead:' });
    try {
      const venue = await createVenue(t.app);
      for (let i = 0; i < 30; i += 1) {
        const res = await hit(t.app, 'GET', '/v1/reference', { key: venue.key });
        assert.equal(res.status, 200);
        assert.ok(res.ms < 1_000, `answered in ${Math.round(res.ms)} ms`);
        assert.equal(remaining(res, 'general'), 29 - i);
        assert.equal(remaining(res, 'short'), 9);
      }
      const refused = await hit(t.app, 'GET', '/v1/reference', { key: venue.key });
      assert.equal(refused.status, 429, 'the in-memory fallback still limits');
      assert.match(refused.body.message, /'general'/);
      const warnings = t.lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
      assert.ok(
        warnings.some((l) => /redis rate-limit store unavailable/.test(l.msg)),
        t.lines.join(''),
      );
      assert.equal(warnings.filter((l) => /unavailable/.test(l.msg)).length, 1, 'warned once, not per request');
    } finally {
      await t.close();
    }
  });

  it('falls back after REDIS_TIMEOUT_MS while Redis stops answering, and uses Redis again once it does', { skip: needsRedis }, async () => {
    const relay = new StallingRelay(new URL(REDIS_URL as string));
    const prefix = uniquePrefix();
    const t = await loggedApp({ redisUrl: await relay.listen(), redisKeyPrefix: prefix, redisTimeoutMs: 250 });
    try {
      await untilCountedInRedis(t.app, prefix);
      const venue = await createVenue(t.app, 'standard');
      const before = await hit(t.app, 'GET', '/v1/reference', { key: venue.key });
      assert.equal(before.status, 200);
      assert.equal(await inspector().zcard(`${prefix}venue:general:${venue.id}`), 1);

      relay.stall();
      const stalledAt = Date.now();
      for (let i = 0; i < 3; i += 1) {
        const res = await hit(t.app, 'GET', '/v1/reference', { key: venue.key });
        assert.equal(res.status, 200);
        assert.ok(res.ms < 1_000, `answered in ${Math.round(res.ms)} ms while Redis was silent`);
        assert.ok(res.headers['x-ratelimit-limit-general'], 'limited in memory meanwhile');
      }
      assert.ok(
        t.lines.some((l) => /redis rate-limit store unavailable/.test(l)),
        t.lines.join(''),
      );

      await sleep(Math.max(0, stalledAt + 3_000 - Date.now()));
      relay.resume();
      const ip = freshIp();
      let back = false;
      for (let i = 0; i < 20 && !back; i += 1) {
        const res = await hit(t.app, 'GET', '/v1/openapi.json', { ip });
        assert.equal(res.status, 200);
        back = (await inspector().exists(`${prefix}ip:short:${ip}`)) === 1;
        if (!back) await sleep(100);
      }
      assert.ok(back, 'requests after the stall are counted in Redis again');
      assert.ok((await inspector().keys(`${prefix}*`)).includes(`${prefix}ip:long:${ip}`));
      assert.ok(t.lines.some((l) => /redis rate-limit store is back/.test(l)));
    } finally {
      await t.close();
      await relay.close();
    }
  });
});
