import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { CHANGE_FEED_APPLICATION } from '../../src/db/change-feed.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/port.js';
import { openPostgres, POOL_APPLICATION } from '../../src/db/postgres.js';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, call, createVenue, type Call, type VenueFixture } from '../helpers/app.js';
import { throwawayDatabase, type ThrowawayDatabase } from '../helpers/db.js';
import { loopbackResolver, sleep } from '../helpers/net.js';
import { orderBody, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

// PostgreSQL connections cut under load. The app runs on a database of this file's
// own, reached through a TCP proxy the test controls, so that cutting connections touches nothing
// else on the shared server: `pg_terminate_backend` on that database's sessions only, and the
// proxy closed (the database unreachable) and opened again. Never a server restart.
// Every request must end in a success or a 503 in the error envelope with Retry-After, within
// bounded time; afterwards the pool and the change feed are back and `/ready` says so.

const DATABASE_URL = process.env.DATABASE_URL;
const skip = DATABASE_URL ? false : 'needs DATABASE_URL (PGlite has no connections to cut)';

/** No request may take longer than this, whatever happens to its connection. */
const REQUEST_BOUND_MS = 15_000;
const ENVELOPE_KEYS = ['code', 'message', 'path', 'requestId', 'statusCode', 'timestamp'];

/** A TCP proxy on 127.0.0.1 to the PostgreSQL server: closed, the database is unreachable. */
class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.sockets.delete(a);
          b.destroy();
        });
        a.pipe(b);
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // The same port again on a reopen: the app's URL does not change.
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Refuses new connections and resets every open one, as a vanished server would. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.resetAndDestroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

type Outcome = { op: string; status: number; body: any; headers: Call['headers']; ms: number } | { op: string; hang: true };

/** Races one request against the bound: a request that does not end is an outcome too. */
async function bounded(op: string, request: Promise<Call>): Promise<Outcome> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ op, hang: true }), REQUEST_BOUND_MS);
  });
  const done = request.then((res): Outcome => ({
    op,
    status: res.status,
    body: res.body,
    headers: res.headers,
    ms: performance.now() - started,
  }));
  try {
    return await Promise.race([done, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why an outcome breaks the guarantee (success, or 503 in the envelope with Retry-After), or null. */
function violation(outcome: Outcome, success: number[]): string | null {
  if ('hang' in outcome) return `${outcome.op}: no answer within ${REQUEST_BOUND_MS} ms`;
  if (success.includes(outcome.status)) return null;
  const describe = `${outcome.op}: ${outcome.status} ${JSON.stringify(outcome.body)}`;
  if (outcome.status !== 503) return describe;
  if (JSON.stringify(Object.keys(outcome.body ?? {}).sort()) !== JSON.stringify(ENVELOPE_KEYS)) return `${describe} (not the envelope)`;
  if (!['DATABASE_UNAVAILABLE', 'LOCK_TIMEOUT'].includes(outcome.body.code)) return `${describe} (unexpected code)`;
  if (!(Number(outcome.headers['retry-after']) >= 1)) return `${describe} (no Retry-After)`;
  return null;
}

describe('PostgreSQL connections cut under load', { skip }, () => {
  let database: string;
  let server: pg.Client;
  let throwaway: ThrowawayDatabase | undefined;
  let proxy: TcpProxy;
  let db: Database;
  let app: App;
  let v: VenueFixture;
  let ids: MenuIds;

  /** Terminates every session of this file's database (and of no other): returns how many. */
  async function terminateAll(): Promise<number> {
    // CASE, not AND: PostgreSQL may evaluate the conditions of a WHERE in any order, and
    // pg_terminate_backend must never run for a session of another database.
    const { rows } = await server.query<{ n: number }>(
      `select count(*)::int as n from (
         select case when datname = $1 and pid <> pg_backend_pid() then pg_terminate_backend(pid) else false end as cut
         from pg_stat_activity
       ) s where cut`,
      [database],
    );
    return rows[0].n;
  }

  async function backends(application: string): Promise<number> {
    const { rows } = await server.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = $2',
      [database, application],
    );
    return rows[0].n;
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await sleep(50);
    }
  }

  let syncs = 0;
  // The operations of the load, each with the statuses that count as success.
  const ops: Record<string, { success: number[]; run: () => Promise<Call> }> = {
    'GET /v1/menu': { success: [200], run: () => call(app, 'GET', '/v1/menu', { key: v.key }) },
    'GET /v1/orders': { success: [200], run: () => call(app, 'GET', '/v1/orders?limit=5', { key: v.key }) },
    'GET guest menu': { success: [200], run: () => call(app, 'GET', `/guest/v1/venues/${v.slug}/menu`) },
    'POST /v1/sync': {
      success: [201],
      run: () => {
        syncs += 1;
        const product = { externalId: `load-${syncs % 4}`, name: `Load ${syncs % 4}`, priceMinor: 100 + (syncs % 50) };
        return call(app, 'POST', '/v1/sync', { key: v.key, body: { products: [product] } });
      },
    },
  };

  /** The idempotency keys of guest orders that ended in a success (after retries of 503s). */
  const placed = new Set<string>();

  /**
   * A guest order as a careful client places it: on a 503 it retries with the same Idempotency-Key,
   * so an order whose commit was cut is made once, whether that commit landed or not.
   */
  async function guestOrder(outcomes: Outcome[]): Promise<void> {
    const key = randomUUID();
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const outcome = await bounded(
        'POST guest order',
        call(app, 'POST', `/guest/v1/venues/${v.slug}/orders`, {
          body: orderBody(ids),
          headers: { 'idempotency-key': key },
        }),
      );
      outcomes.push(outcome);
      if ('hang' in outcome || outcome.status !== 503) {
        if (!('hang' in outcome) && [200, 201].includes(outcome.status)) placed.add(key);
        return;
      }
      await sleep(50);
    }
  }

  async function worker(index: number, stop: () => boolean, outcomes: Outcome[]): Promise<void> {
    const names = Object.keys(ops);
    for (let i = index; !stop(); i += 1) {
      if (i % (names.length + 1) === names.length) {
        await guestOrder(outcomes);
        continue;
      }
      const name = names[i % (names.length + 1)];
      outcomes.push(await bounded(name, ops[name].run()));
    }
  }

  function violations(outcomes: Outcome[]): string[] {
    return outcomes
      .map((o) => violation(o, o.op === 'POST guest order' ? [200, 201] : ops[o.op].success))
      .filter((v): v is string => v !== null);
  }

  before(async () => {
    throwaway = await throwawayDatabase('carta_faults');
    ({ server, name: database } = throwaway);
    const url = new URL(throwaway.url);
    proxy = new TcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.open();
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);

    db = await openPostgres({ url: url.href, poolSize: 8, listen: true, lockTimeoutMs: 5000 });
    await migrate(db);
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'silent', ADMIN_TOKEN, DATA_DIR: '/nonexistent', DATABASE_URL: url.href });
    ({ app } = await buildApp({ config, db, resolve: loopbackResolver }));
    await app.ready();
    v = await createVenue(app);
    ids = await setUpOrderMenu(app, v);
  });

  after(async () => {
    await app?.close();
    await db?.close();
    await proxy?.close();
    await throwaway?.drop();
  });

  function summary(outcomes: Outcome[]): string {
    const answered = outcomes.filter((o): o is Extract<Outcome, { status: number }> => !('hang' in o));
    const slowest = Math.max(0, ...answered.map((o) => o.ms));
    return `${outcomes.length} requests, ${answered.filter((o) => o.status === 503).length} answered 503, slowest ${Math.round(slowest)} ms`;
  }

  it('answers every request under pg_terminate_backend with a success or a 503 DATABASE_UNAVAILABLE, then recovers', async (t) => {
    await until('change feed listening', () => db.coherent());
    const outcomes: Outcome[] = [];
    let stopped = false;
    const load = Promise.all(Array.from({ length: 12 }, (_, i) => worker(i, () => stopped, outcomes)));

    let terminated = 0;
    const started = Date.now();
    while (Date.now() - started < 4000) {
      await sleep(150);
      terminated += await terminateAll();
    }
    stopped = true;
    await load;
    t.diagnostic(`${terminated} sessions terminated; ${summary(outcomes)}; ${placed.size} guest orders placed`);

    const cut = outcomes.filter((o) => !('hang' in o) && o.status === 503);
    assert.ok(terminated > 20, `sessions terminated: ${terminated}`);
    assert.ok(outcomes.length > 100, `requests made: ${outcomes.length}`);
    assert.deepEqual(violations(outcomes), []);
    assert.ok(cut.length > 0, 'some requests lost their connection (else the test cut nothing)');
    assert.ok(
      cut.every((o) => 'body' in o && o.body.code === 'DATABASE_UNAVAILABLE'),
      'a cut is DATABASE_UNAVAILABLE, not a lock timeout',
    );

    // Back: the pool opens new connections, the feed listens again (on a new backend).
    await until('change feed listening again', () => db.coherent());
    await until('change feed backend', async () => (await backends(CHANGE_FEED_APPLICATION)) === 1);
    for (const [name, op] of Object.entries(ops)) {
      const res = await op.run();
      assert.ok(op.success.includes(res.status), `${name} after the cuts: ${res.status} ${JSON.stringify(res.body)}`);
    }
    assert.ok((await backends(POOL_APPLICATION)) >= 1, 'the pool connected again');
    const ready = await call(app, 'GET', '/ready');
    assert.equal(ready.status, 200);

    // Each order a client was told about exists once, however often its commit was cut and retried.
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from orders where venue_id = $1', [v.id]);
    assert.equal(rows[0].n, placed.size);
  });

  it('reports not ready while the database is unreachable, answers 503 in bounded time, and recovers when it is back', async (t) => {
    await until('change feed listening', () => db.coherent());
    const outcomes: Outcome[] = [];
    let stopped = false;
    const load = Promise.all(Array.from({ length: 8 }, (_, i) => worker(i, () => stopped, outcomes)));
    await sleep(300);
    await proxy.close();

    const started = performance.now();
    const ready = await call(app, 'GET', '/ready');
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, { status: 'unavailable' });
    assert.ok(performance.now() - started < 5000, 'the readiness check does not wait out the connect timeout');
    await until('change feed down', () => !db.coherent());

    const menu = await call(app, 'GET', '/v1/menu', { key: v.key });
    assert.equal(menu.status, 503, JSON.stringify(menu.body));
    assert.equal(menu.body.code, 'DATABASE_UNAVAILABLE');
    assert.deepEqual(Object.keys(menu.body).sort(), ENVELOPE_KEYS);
    assert.ok(Number(menu.headers['retry-after']) >= 1);
    assert.equal(menu.body.message.includes('ECONN'), false, 'nothing internal in the message');
    await sleep(1000);

    await proxy.open();
    await until('ready again', async () => (await call(app, 'GET', '/ready')).status === 200);
    await sleep(500);
    stopped = true;
    await load;
    t.diagnostic(summary(outcomes));
    assert.deepEqual(violations(outcomes), []);
    assert.ok(
      outcomes.some((o) => !('hang' in o) && o.status === 503),
      'the outage was seen',
    );

    await until('change feed listening again', () => db.coherent());
    for (const [name, op] of Object.entries(ops)) {
      const res = await op.run();
      assert.ok(op.success.includes(res.status), `${name} after the outage: ${res.status} ${JSON.stringify(res.body)}`);
    }
  });
});
