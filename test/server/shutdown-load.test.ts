import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { bin, spawnServer, type ServerProcess } from '../helpers/cli.js';
import { sleep } from '../helpers/net.js';
import { DEFAULT_TEST_ORDER_CONFIG, ORDER_MENU } from '../helpers/orders.js';

// SIGTERM under load: a real server process (src/main.ts, what `carta serve` runs) on
// the engine of this run (embedded PGlite, or PostgreSQL when DATABASE_URL is set) takes a steady
// load on 20 keep-alive connections, reads and writes, and is sent SIGTERM in the middle of it.
// Every request the server accepted is answered in full: the ones written to the socket before the
// signal and every one the server logged as received. A request on a connection the server had
// already let go is refused or reset, never half answered; the process exits 0 in time.

const DATABASE_URL = process.env.DATABASE_URL;
const TEMPLATE = process.env.CARTA_TEST_TEMPLATE;
const skip = DATABASE_URL || TEMPLATE ? false : 'needs DATABASE_URL, or the PGlite template of scripts/test.mjs';

const CONNECTIONS = 20;
const SHUTDOWN_TIMEOUT_MS = 10_000;

type Server = ServerProcess;

/** `carta serve` as `npm start` runs it (bin/carta.js; scripts/test.mjs rebuilds it when src changed). */
const startServer = (env: NodeJS.ProcessEnv): Promise<Server> =>
  spawnServer([bin, 'serve'], env, { readyPath: '/ready', timeoutMs: 60_000 });

interface Sent {
  id: string;
  op: string;
  /** When the whole request had been handed to the OS (performance.now()); undefined if never. */
  writtenAt?: number;
  status?: number;
  /** The error of a request without a complete response (ECONNREFUSED, ECONNRESET, ...). */
  error?: string;
}

/** One request on the shared keep-alive agent; resolves with its outcome, never rejects. */
function send(
  agent: http.Agent,
  url: string,
  op: { name: string; method: string; path: string; key?: string; body?: unknown },
): Promise<Sent> {
  const sent: Sent = { id: `load-${randomUUID()}`, op: op.name };
  const body = op.body === undefined ? undefined : JSON.stringify(op.body);
  return new Promise((resolve) => {
    const req = http.request(`${url}${op.path}`, {
      agent,
      method: op.method,
      headers: {
        'x-request-id': sent.id,
        ...(op.key ? { authorization: `Bearer ${op.key}` } : {}),
        ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
      },
    });
    req.on('finish', () => (sent.writtenAt = performance.now()));
    req.on('response', (res) => {
      res.on('data', () => {});
      // 'end' only for a body received in full; a cut body is an 'aborted' / 'error' instead.
      res.on('end', () => {
        sent.status = res.statusCode;
        resolve(sent);
      });
      res.on('error', (err: NodeJS.ErrnoException) => {
        sent.error = err.code ?? err.message;
        resolve(sent);
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      sent.error = err.code ?? err.message;
      resolve(sent);
    });
    req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('no answer within 30 s'), { code: 'TIMEOUT' })));
    req.end(body);
  });
}

async function json(url: string, method: string, pathname: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

describe(`SIGTERM under load (${DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'})`, { skip }, () => {
  const database = `carta_shutdown_${randomBytes(5).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-shutdown-'));
  let admin: pg.Client | null = null;
  let env: NodeJS.ProcessEnv;
  let server: Server | null = null;

  before(async () => {
    env = {
      ...process.env,
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: 'debug',
      RATE_LIMITS: 'off',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    };
    for (const name of ['REDIS_URL', 'DATABASE_URL', 'PORT', 'HOST', 'TRUST_PROXY', 'PUBLIC_BASE_URL', 'DATABASE_POOL_SIZE'])
      delete env[name];
    if (DATABASE_URL) {
      const serverUrl = new URL(DATABASE_URL);
      serverUrl.pathname = '/postgres';
      admin = new pg.Client({ connectionString: serverUrl.href });
      await admin.connect();
      await admin.query(`create database ${database}`);
      const url = new URL(DATABASE_URL);
      url.pathname = `/${database}`;
      env.DATABASE_URL = url.href;
    } else {
      fs.cpSync(TEMPLATE as string, path.join(dataDir, 'pglite'), { recursive: true });
    }
  });

  after(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await server?.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  });

  it('answers every request it accepted before the signal in full, and exits 0', async (t) => {
    const s = (server = await startServer(env));
    const venue = await json(s.url, 'POST', '/admin/v1/venues', ADMIN_TOKEN, { name: 'Shutdown Cafe', currency: 'EUR', plan: 'standard' });
    const { key } = await json(s.url, 'POST', `/admin/v1/venues/${venue.id}/api-keys`, ADMIN_TOKEN, { mode: 'live' });
    await json(s.url, 'POST', '/v1/sync', key, ORDER_MENU);
    await json(s.url, 'PATCH', '/v1/settings', key, { orderConfig: DEFAULT_TEST_ORDER_CONFIG });
    await json(s.url, 'POST', '/v1/publish', key);
    const published = await json(s.url, 'GET', '/v1/menu?version=published', key);
    const fries = published.products.find((p: { externalId: string }) => p.externalId === 'fries').id;

    let n = 0;
    const ops = [
      () => ({ name: 'GET /v1/menu', method: 'GET', path: '/v1/menu', key }),
      () => ({ name: 'GET guest menu', method: 'GET', path: `/guest/v1/venues/${venue.slug}/menu` }),
      () => ({ name: 'GET /v1/orders', method: 'GET', path: '/v1/orders?limit=5', key }),
      () => ({
        name: 'POST guest order',
        method: 'POST',
        path: `/guest/v1/venues/${venue.slug}/orders`,
        body: {
          type: 'pickup',
          paymentMethod: 'cash',
          items: [{ productId: fries, quantity: 1 }],
          customerName: 'Ada',
          customerPhone: '+380501234567',
        },
      }),
      () => ({ name: 'GET /v1/menu', method: 'GET', path: '/v1/menu', key }),
      () => ({
        name: 'POST /v1/sync',
        method: 'POST',
        path: '/v1/sync',
        key,
        body: { products: [{ externalId: `load-${n % 3}`, name: 'Load', priceMinor: 100 + (n % 50) }] },
      }),
    ];

    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const results: Sent[] = [];
    let stopAt = Infinity;
    const worker = async (index: number) => {
      for (let i = index; performance.now() < stopAt; i += 1) {
        n += 1;
        const result = await send(agent, s.url, ops[i % ops.length]());
        results.push(result);
        // The server is gone: nothing more to learn from this worker.
        if (result.error === 'ECONNREFUSED') return;
        // Half the clients pause between requests, so at the signal some connections are idle
        // with a request about to be written (the keep-alive race a shutdown must not lose).
        if (index % 2 === 1) await sleep(Math.random() * 20);
      }
    };
    const load = Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => worker(i)));

    // The signal comes once the load runs (every connection answered twice at least), however slow
    // the machine: a fixed pause left only 6 answers before it on a loaded CI machine.
    const loadBy = performance.now() + 30_000;
    while (results.length < CONNECTIONS * 2 && performance.now() < loadBy) await sleep(50);
    await sleep(200);
    const before = results.length;
    const signalAt = performance.now();
    s.child.kill('SIGTERM');
    stopAt = signalAt + SHUTDOWN_TIMEOUT_MS + 5000;
    const code = await Promise.race([s.exited, sleep(SHUTDOWN_TIMEOUT_MS + 5000).then(() => 'timeout' as const)]);
    const exitMs = performance.now() - signalAt;
    await load;
    agent.destroy();

    // What the server read: every request it logged as received.
    const received = new Set<string>();
    for (const line of s.output().split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { msg?: string; requestId?: string };
      if (entry.msg === 'incoming request' && entry.requestId) received.add(entry.requestId);
    }

    const written = results.filter((r) => r.writtenAt !== undefined && r.writtenAt < signalAt);
    const unanswered = results.filter((r) => r.status === undefined);
    t.diagnostic(
      `${results.length} requests (${before} answered before the signal, ${written.length - before} in flight at it, ` +
        `${results.length - written.length} sent after); ${unanswered.length} refused or reset: ` +
        `${JSON.stringify(Object.fromEntries([...new Set(unanswered.map((r) => r.error))].map((e) => [e, unanswered.filter((r) => r.error === e).length])))}; ` +
        `exit ${code} ${Math.round(exitMs)} ms after the signal`,
    );

    assert.equal(code, 0, `exit code (output: ${s.output().slice(-2000)})`);
    assert.ok(exitMs < SHUTDOWN_TIMEOUT_MS, `exited ${Math.round(exitMs)} ms after the signal`);
    assert.ok(before >= CONNECTIONS * 2, `a load was running: ${before} requests before the signal`);
    assert.ok(written.length > before, 'some requests were in flight at the signal');

    const problems: string[] = [];
    for (const r of results) {
      // Accepted: the server read it (its log says so). A request still in the socket's buffer when
      // the connection closed was never read: the HTTP/1.1 keep-alive race every server has, which a
      // client retries; on a loaded machine one written just before the signal can be such a request.
      const accepted = received.has(r.id);
      if (r.status !== undefined) {
        // Answered: in full, and a success (a request the server reads while draining is served).
        if (r.status >= 300) problems.push(`${r.op} ${r.id}: ${r.status}`);
      } else if (accepted) {
        problems.push(`${r.op} ${r.id}: accepted${received.has(r.id) ? ' (logged)' : ''} but ${r.error}`);
      } else if (!['ECONNREFUSED', 'ECONNRESET'].includes(r.error ?? '')) {
        problems.push(`${r.op} ${r.id}: ${r.error}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('lets a download that began before the signal finish, then lets its keep-alive connection go and exits 0', async (t) => {
    const s = (server = await startServer(env));
    const venue = await json(s.url, 'POST', '/admin/v1/venues', ADMIN_TOKEN, { name: 'Big Menu Cafe', currency: 'EUR', plan: 'standard' });
    const { key } = await json(s.url, 'POST', `/admin/v1/venues/${venue.id}/api-keys`, ADMIN_TOKEN, { mode: 'live' });
    // A menu of about 7 MB: more than the socket buffers hold (a few MB on loopback) while the client does not read.
    const ingredients = Array.from({ length: 30 }, (_, i) => ({ externalId: `i${i}`, name: `Ingredient ${i} ${'y'.repeat(150)}` }));
    const products = Array.from({ length: 1000 }, (_, i) => ({
      externalId: `p${i}`,
      name: `Product ${i}`,
      priceMinor: 100 + i,
      description: 'x'.repeat(1000),
      ingredientExternalIds: ingredients.map((g) => g.externalId),
    }));
    await json(s.url, 'POST', '/v1/sync', key, { ingredients });
    for (let i = 0; i < products.length; i += 500) await json(s.url, 'POST', '/v1/sync', key, { products: products.slice(i, i + 500) });

    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let signalAt = 0;
    let exitedAt = 0;
    void s.exited.then(() => (exitedAt = performance.now()));
    const download = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = http.request(`${s.url}/v1/menu`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        // A slow client: nothing read until after the signal, so the response is still being written.
        res.pause();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
        res.on('error', reject);
        setTimeout(() => {
          signalAt = performance.now();
          s.child.kill('SIGTERM');
          setTimeout(() => res.resume(), 500);
        }, 300);
      });
      req.on('error', reject);
      req.end();
    });
    const res = await download;
    const answeredAt = performance.now();
    assert.equal(res.status, 200);
    assert.equal(res.connection, 'keep-alive', 'the response began before the signal');
    assert.equal(JSON.parse(res.body).products.length, 1000, 'the body arrived in full');
    assert.ok(res.body.length > 6_000_000, `a body of ${res.body.length} bytes`);
    // The client still holds the connection open (keep-alive), as browsers and agents do.
    const code = await Promise.race([s.exited, sleep(SHUTDOWN_TIMEOUT_MS + 5000).then(() => 'timeout' as const)]);
    const exitMs = performance.now() - answeredAt;
    t.diagnostic(
      `download ended ${Math.round(answeredAt - signalAt)} ms after the signal; exit ${code} ${Math.round(exitedAt - signalAt)} ms after the signal`,
    );
    agent.destroy();
    assert.equal(code, 0, `exit code (output: ${s.output().slice(-2000)})`);
    assert.ok(exitMs < 3000, `exited ${Math.round(exitMs)} ms after the last response, not at a timeout`);
  });
});
