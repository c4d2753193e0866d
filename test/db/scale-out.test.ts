import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadMigrations } from '../../src/db/migrate.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { throwawayDatabase, type ThrowawayDatabase } from '../helpers/db.js';
import { bin, compiled, notBuilt, root } from '../helpers/cli.js';
import { freePort, sleep } from '../helpers/net.js';

// Scale-out (DATABASE_URL + REDIS_URL to run more than one instance): two real
// `carta serve` processes on one fresh PostgreSQL database and one Redis, started together.
// Both migrate safely, share each venue's rate budget, read each other's writes at once, and
// honour each other's ETags.

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const skip = !DATABASE_URL || !REDIS_URL ? 'needs DATABASE_URL and REDIS_URL' : !fs.existsSync(compiled) ? notBuilt : false;

interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startInstance(name: string, port: number, env: NodeJS.ProcessEnv): Instance {
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...env, PORT: String(port) },
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, url: `http://127.0.0.1:${port}`, child, output: () => out, exited };
}

async function waitReady(instance: Instance): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (instance.child.exitCode !== null) throw new Error(`${instance.name} exited with ${instance.child.exitCode}: ${instance.output()}`);
    try {
      if ((await fetch(`${instance.url}/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${instance.name} did not become ready: ${instance.output()}`);
    await sleep(100);
  }
}

interface Res {
  status: number;
  body: any;
  headers: Headers;
}

// Every request comes from 127.0.0.1, whose per-IP buckets (10/1 s, 50/10 s) are shared by both
// instances too: requests are paced so that only the venue buckets under test can trip.
const PACE_MS = 150;
let lastRequest = 0;

async function request(
  instance: Instance,
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Res> {
  const wait = lastRequest + PACE_MS - Date.now();
  if (wait > 0) await sleep(wait);
  lastRequest = Date.now();
  const res = await fetch(`${instance.url}${url}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

describe('two instances on one PostgreSQL and one Redis', { skip }, () => {
  const prefix = `carta:test:scale:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-scale-'));
  let database: ThrowawayDatabase | undefined;
  let databaseUrl: string;
  let a: Instance;
  let b: Instance;

  async function createVenue(plan: 'free' | 'standard'): Promise<{ id: string; key: string }> {
    const venue = await request(a, 'POST', '/admin/v1/venues', {
      token: ADMIN_TOKEN,
      body: { name: `Scale ${plan}`, currency: 'EUR', plan },
    });
    assert.equal(venue.status, 201, JSON.stringify(venue.body));
    const key = await request(a, 'POST', `/admin/v1/venues/${venue.body.id}/api-keys`, { token: ADMIN_TOKEN, body: { mode: 'live' } });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    return { id: venue.body.id, key: key.body.key };
  }

  before(async () => {
    database = await throwawayDatabase('carta_scale');
    databaseUrl = database.url.href;

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      ADMIN_TOKEN,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'on',
      DATA_DIR: dataDir,
    };
    for (const name of ['TRUST_PROXY', 'SYNC_TIMEOUT_MS', 'DATABASE_POOL_SIZE', 'PUBLIC_BASE_URL']) delete env[name];
    const [portA, portB] = [await freePort(), await freePort()];
    // Both at the same moment, on an empty database: each runs the migrations on start.
    a = startInstance('A', portA, env);
    b = startInstance('B', portB, env);
    await Promise.all([waitReady(a), waitReady(b)]);
  });

  after(async () => {
    const stopped = await Promise.all(
      [a, b].filter(Boolean).map(async (instance) => {
        if (instance.child.exitCode === null) instance.child.kill('SIGTERM');
        const timeout = sleep(15_000).then(() => 'timeout' as const);
        const code = await Promise.race([instance.exited, timeout]);
        if (code === 'timeout') instance.child.kill('SIGKILL');
        return code;
      }),
    );
    fs.rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
    const redis = new Redis(REDIS_URL as string);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    assert.deepEqual(stopped, [0, 0], 'both instances shut down cleanly on SIGTERM');
  });

  it('starts both instances on an empty database and applies each migration once', async () => {
    assert.equal(a.child.exitCode, null);
    assert.equal(b.child.exitCode, null);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ version: number; n: number }>(
        'select version, count(*)::int as n from schema_migrations group by version order by version',
      );
      assert.deepEqual(
        rows,
        loadMigrations().map((m) => ({ version: m.version, n: 1 })),
      );
    } finally {
      await db.end();
    }
  });

  it('reads a menu change made through one instance fresh through the other (new ETag)', async () => {
    const venue = await createVenue('standard');
    const before = await request(b, 'GET', '/v1/menu', { token: venue.key });
    assert.equal(before.status, 200);
    assert.deepEqual(before.body.products, []);
    const etagBefore = before.headers.get('etag');
    assert.ok(etagBefore);

    const sync = await request(a, 'POST', '/v1/sync', {
      token: venue.key,
      body: { products: [{ externalId: 'p1', name: 'Flat white', priceMinor: 420 }] },
    });
    assert.equal(sync.status, 201, JSON.stringify(sync.body));

    const afterSync = await request(b, 'GET', '/v1/menu', { token: venue.key });
    assert.deepEqual(
      afterSync.body.products.map((p: any) => [p.externalId, p.priceMinor]),
      [['p1', 420]],
    );
    assert.notEqual(afterSync.headers.get('etag'), etagBefore);
    const cached = await request(b, 'GET', '/v1/menu', { token: venue.key, headers: { 'if-none-match': etagBefore as string } });
    assert.equal(cached.status, 200, 'the old ETag no longer matches on B');

    // If-Match across instances: an ETag read on A goes stale when B writes.
    const read = await request(a, 'GET', '/v1/products/p1', { token: venue.key });
    const etag = read.headers.get('etag') as string;
    assert.ok(etag);
    const first = await request(b, 'PATCH', '/v1/products/p1', {
      token: venue.key,
      body: { priceMinor: 450 },
      headers: { 'if-match': etag },
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await request(a, 'PATCH', '/v1/products/p1', {
      token: venue.key,
      body: { priceMinor: 470 },
      headers: { 'if-match': etag },
    });
    assert.equal(second.status, 412, JSON.stringify(second.body));
    assert.equal(second.body.code, 'STALE_RESOURCE');
    const final = await request(a, 'GET', '/v1/products/p1', { token: venue.key });
    assert.equal(final.body.priceMinor, 450);
  });

  it("shares a free venue's 30-a-minute budget: the 31st request spread across both instances is 429", async () => {
    const venue = await createVenue('free');
    for (let i = 0; i < 30; i += 1) {
      const instance = i % 2 === 0 ? a : b;
      const res = await request(instance, 'GET', '/v1/reference', { token: venue.key });
      assert.equal(res.status, 200, `request ${i + 1} on ${instance.name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.headers.get('x-ratelimit-remaining-general'), String(29 - i), `request ${i + 1} on ${instance.name}`);
    }
    for (const instance of [a, b]) {
      const refused = await request(instance, 'GET', '/v1/reference', { token: venue.key });
      assert.equal(refused.status, 429, `on ${instance.name}`);
      assert.equal(refused.body.code, 'RATE_LIMITED');
      assert.match(refused.body.message, /'general'/);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    }
    const redis = new Redis(REDIS_URL as string);
    try {
      assert.equal(await redis.zcard(`${prefix}venue:general:${venue.id}`), 30, 'one log in Redis for both');
    } finally {
      redis.disconnect();
    }
  });
});
