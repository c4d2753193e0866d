// What every bench shares: the engine (a data directory, or a throwaway PostgreSQL database), the
// Carta server as a real process, autocannon loads pinned apart from the servers, and the report
// of targets (each a ratio against a baseline measured in the same run).
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { openPostgres } from '../src/db/postgres.js';
import type { Database } from '../src/db/port.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
// --scale measures how PostgreSQL holds 1,000 venues: it implies --engine postgres.
export const engine = (
  args.includes('--scale') ? 'postgres' : args.includes('--engine') ? args[args.indexOf('--engine') + 1] : 'pglite'
) as 'pglite' | 'postgres';
export const quick = args.includes('--quick');
export const LOAD_SECONDS = quick ? 2 : 5;
export const ADMIN_TOKEN = `bench_${randomBytes(24).toString('hex')}`;
export const LOCALES = ['uk', 'es'];

interface Metric {
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  target: string;
  pass: boolean;
}
export const metrics: Metric[] = [];
/** Measurements that explain a target without being one (printed and saved apart). */
export const informational: Omit<Metric, 'target' | 'pass'>[] = [];
export const log = (msg: string) => process.stdout.write(`${msg}\n`);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * The webhook bench's receiver (bench/webhooks.ts): its port is chosen before any server starts, so
 * every server of the run lets it through the outbound guard (SSRF_TEST_ALLOW) without a restart.
 */
export const WEBHOOK_RECEIVER_PORT = await freePort();

export async function waitFor(url: string, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

// Pinning: during an HTTP load, the measured servers (every thread) on one core and
// the load generator on the other, where taskset exists and there are two cores. Unpinned, one
// ratio moved by 0.2 between runs here: the scheduler put the server and autocannon on one core,
// or not. Only the loads are pinned: syncs, uploads and restarts keep both cores, as in production.
export const PIN =
  os.availableParallelism() >= 2 &&
  (() => {
    try {
      execSync('taskset -p ' + process.pid, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
export const SERVER_CPU = '0';
export const LOAD_CPU = '1';
const ALL_CPUS = `0-${os.availableParallelism() - 1}`;

function setAffinity(pid: number, cpus: string): void {
  if (!PIN || !pid) return;
  try {
    execSync(`taskset -a -p -c ${cpus} ${pid}`, { stdio: 'ignore' });
  } catch {
    // A server already stopped: nothing to pin.
  }
}

/**
 * Runs a load with the servers on SERVER_CPU (autocannon runs on LOAD_CPU), then frees them. With
 * `here`, this process goes on LOAD_CPU as well: a load generated in it (and a receiver it runs).
 * `servers` are the measured processes, Carta's and the bare baseline's unless named.
 */
export async function pinned<T>(work: () => Promise<T>, here = false, servers = [measured.carta, measured.bare]): Promise<T> {
  for (const pid of servers) setAffinity(pid, SERVER_CPU);
  if (here) setAffinity(process.pid, LOAD_CPU);
  try {
    return await work();
  } finally {
    for (const pid of servers) setAffinity(pid, ALL_CPUS);
    if (here) setAffinity(process.pid, ALL_CPUS);
  }
}

/** CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After the command: state is field 3; utime and stime are fields 14 and 15.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The servers whose CPU a load run charges: the Carta server and the bare baseline. */
export const measured = { carta: 0, bare: 0 };

export function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

/**
 * The peak RSS of `pid` while `work` runs: the kernel's high-water mark, reset first (clear_refs 5),
 * with a 10 ms sampler as the fallback where the reset is not allowed.
 */
export async function peakRssMb(pid: number, work: () => Promise<void>): Promise<number> {
  let resettable = true;
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resettable = false;
  }
  let sampled = rssMb(pid);
  const sampler = setInterval(() => (sampled = Math.max(sampled, rssMb(pid))), 10);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(sampled, resettable ? rssMb(pid, 'VmHWM') : 0);
}

// ---- the engine: a data directory, or a throwaway PostgreSQL database ---------------------------

export interface EngineEnv {
  env: Record<string, string>;
  /** A database handle in this process on the same engine (PGlite: a separate data directory). */
  openLocal(): Promise<{ db: Database; dispose(): Promise<void> }>;
  /** Direct access to the server's own data (PGlite: only while the server is stopped). */
  openServerDb(): Promise<Database>;
  dispose(): Promise<void>;
}

export async function prepareEngine(): Promise<EngineEnv> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-bench-'));
  if (engine === 'pglite') {
    const dataDir = path.join(tmp, 'data');
    return {
      env: { DATA_DIR: dataDir },
      async openLocal() {
        const dir = path.join(tmp, `local-${randomBytes(4).toString('hex')}`);
        const db = await openPglite(dir);
        await migrate(db);
        return {
          db,
          dispose: async () => {
            await db.close();
            fs.rmSync(dir, { recursive: true, force: true });
          },
        };
      },
      openServerDb: () => openPglite(path.join(dataDir, 'pglite')),
      async dispose() {
        fs.rmSync(tmp, { recursive: true, force: true });
      },
    };
  }
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `carta_bench_${randomBytes(4).toString('hex')}`;
  const adminUrl = new URL(base);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: tmp },
    async openLocal() {
      const schema = `bench_${randomBytes(4).toString('hex')}`;
      const setup = await openPostgres({ url: url.toString(), poolSize: 1 });
      await setup.query(`create schema ${schema}`);
      await setup.close();
      const db = await openPostgres({ url: url.toString(), poolSize: 4, schema });
      await migrate(db);
      return { db, dispose: () => db.close() };
    },
    openServerDb: () => openPostgres({ url: url.toString(), poolSize: 2 }),
    async dispose() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

// ---- the Carta server ----------------------------------------------------------------------------

export interface Server {
  child: ChildProcess;
  url: string;
}

/** What every measured Carta server runs with: rate limits off, `warn`, the bench's operator token; `env` over it. */
export function cartaEnv(e: EngineEnv, env: Record<string, string> = {}): Record<string, string> {
  return {
    ...e.env,
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN,
    REDIS_URL: '',
    SSRF_TEST_ALLOW: `127.0.0.1:${WEBHOOK_RECEIVER_PORT}`,
    ...env,
  };
}

/**
 * Where a start's time went, as the server logs it ('carta is serving', src/server/serve.ts): each
 * mark in ms since the process began (the app is built while the database opens and migrates).
 */
export type StartMs = Record<'loaded' | 'built' | 'migrated' | 'listening', number>;

/** A start's own account, for the report's lines. */
export const startAccount = (s: StartMs) =>
  `code loaded at ${s.loaded} ms, app built at ${s.built}, database opened and migrated at ${s.migrated}, listening at ${s.listening}`;

/**
 * Starts a server and waits for /ready. With `startLine`, the server logs at info and its
 * 'carta is serving' line is read for `startMs` (its other lines are discarded).
 */
export async function startCarta(
  e: EngineEnv,
  port: number,
  env: Record<string, string> = {},
  options: { startLine?: boolean } = {},
): Promise<{ server: Server; readyMs: number; startMs?: StartMs }> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(root, 'bin/carta.js'), 'serve'], {
    env: { ...process.env, ...cartaEnv(e, options.startLine ? { ...env, LOG_LEVEL: 'info' } : env), PORT: String(port) },
    // At LOG_LEVEL=info the access log writes a line per request: to /dev/null, as a log shipper
    // would take it, not through this terminal.
    stdio: ['ignore', options.startLine ? 'pipe' : env.LOG_LEVEL === 'info' ? 'ignore' : 'inherit', 'inherit'],
  });
  // The line may come after /ready answers: the log is flushed every 100 ms (src/server/log-buffer.ts).
  const startLine = new Promise<StartMs | undefined>((resolve) => {
    if (!child.stdout) return resolve(undefined);
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const line = lines.find((l) => l.includes('"carta is serving"'));
      if (line) resolve((JSON.parse(line) as { startMs: StartMs }).startMs);
    });
    child.once('exit', () => resolve(undefined));
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/ready`);
  const readyMs = performance.now() - started;
  measured.carta = child.pid as number;
  return { server: { child, url }, readyMs, startMs: options.startLine ? await startLine : undefined };
}

/** One request, timed from send to the last byte; a string body is sent as is (already JSON). */
export async function api(
  url: string,
  method: string,
  pathName: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const started = performance.now();
  const res = await fetch(`${url}${pathName}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: payload,
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status >= 400) throw new Error(`${method} ${pathName}: ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, body: text ? JSON.parse(text) : null, ms, headers: res.headers };
}

export async function newVenue(url: string, plan = 'standard'): Promise<{ id: string; key: string }> {
  const venue = await api(url, 'POST', '/admin/v1/venues', ADMIN_TOKEN, {
    name: `Bench ${randomBytes(3).toString('hex')}`,
    currency: 'EUR',
    plan,
  });
  const key = await api(url, 'POST', `/admin/v1/venues/${venue.body.id}/api-keys`, ADMIN_TOKEN, { mode: 'live' });
  await api(url, 'PATCH', '/v1/settings', key.body.key, { enabledLanguages: ['en', ...LOCALES] });
  return { id: venue.body.id, key: key.body.key };
}

/** One autocannon run in a process of its own, so the load generator never shares this heap. */
export function autocannonRun(url: string, headers: Record<string, string>, limit: { duration: number } | { amount: number }) {
  const args = [path.join(root, 'node_modules/autocannon/autocannon.js'), '-c', '10', '-j', '-n'];
  if ('duration' in limit) args.push('-d', String(limit.duration));
  else args.push('-a', String(limit.amount));
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  return new Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number }>((resolve, reject) => {
    const child = PIN
      ? spawn('taskset', ['-c', LOAD_CPU, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited with ${code}`))));
  });
}

export interface Load {
  rps: number;
  /** Latency percentiles in ms, as autocannon reports them (whole milliseconds). */
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU the serving process spent per request, in µs (null when its pid is unknown). */
  cpuUs: number | null;
}

/** One timed run, charging the serving process's CPU to its requests. */
async function timedRun(url: string, headers: Record<string, string>, pid: number): Promise<Load> {
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const result = await autocannonRun(url, headers, { duration: LOAD_SECONDS });
  const requests = result.requests.average * LOAD_SECONDS;
  const cpuUs = pid && requests > 0 ? ((cpuMs(pid) - cpuBefore) * 1000) / requests : null;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, cpuUs };
}

/**
 * req/s, p99 and CPU per request under 10 connections: the better of two runs after a short
 * warm-up (the machine is shared: 2 cores run the server and the load).
 */
export async function load(url: string, headers: Record<string, string> = {}, pid = measured.carta): Promise<Load> {
  return pinned(() => loadPinned(url, headers, pid));
}

async function loadPinned(url: string, headers: Record<string, string>, pid: number): Promise<Load> {
  await autocannonRun(url, headers, { amount: 500 });
  const runs = [await timedRun(url, headers, pid), await timedRun(url, headers, pid)];
  return {
    rps: Math.max(...runs.map((r) => r.rps)),
    p50: Math.min(...runs.map((r) => r.p50)),
    p99: Math.min(...runs.map((r) => r.p99)),
    non2xx: Math.max(...runs.map((r) => r.non2xx)),
    cpuUs: runs.every((r) => r.cpuUs !== null) ? Math.min(...runs.map((r) => r.cpuUs as number)) : null,
  };
}

export const ROUNDS = 3;

/** A server under load: the URL loaded, the process its CPU time is read from, and its own request headers if any. */
export interface Side {
  url: string;
  pid: number;
  /** Sent instead of the shared headers (two venues' reads, each with its own ETag). */
  headers?: Record<string, string>;
}

/**
 * Two servers (or two routes of one) loaded in ROUNDS interleaved rounds (a, b, a, b, ...), both pinned
 * and sent the same headers unless a side names its own, so a drift of the machine falls on both; the round with the median req/s ratio is
 * reported, with its CPU per request.
 */
export async function interleaved(a: Side, b: Side, headers: Record<string, string>): Promise<readonly [Load, Load]> {
  return pinned(
    async () => {
      const [aHeaders, bHeaders] = [a.headers ?? headers, b.headers ?? headers];
      await autocannonRun(a.url, aHeaders, { amount: 500 });
      await autocannonRun(b.url, bHeaders, { amount: 500 });
      const rounds: [Load, Load][] = [];
      for (let round = 0; round < ROUNDS; round += 1)
        rounds.push([await timedRun(a.url, aHeaders, a.pid), await timedRun(b.url, bHeaders, b.pid)]);
      rounds.sort(([a1, b1], [a2, b2]) => a1.rps / b1.rps - a2.rps / b2.rps);
      return rounds[Math.floor(ROUNDS / 2)];
    },
    false,
    [a.pid, b.pid],
  );
}

/**
 * A Carta route against the bare tiny route, both sent the same request headers (an API key, an
 * ETag): the ratio is the server's work, not the bytes the load generator writes and the kernel
 * carries, taken in interleaved rounds. `barePath` names another route of the bare server (its
 * `/reference`: the same body as Carta's).
 */
export async function versusTiny(cartaUrl: string, bareUrl: string, headers: Record<string, string>, barePath = '/tiny') {
  return interleaved({ url: cartaUrl, pid: measured.carta }, { url: `${bareUrl}${barePath}`, pid: measured.bare }, headers);
}

/** CPU per request, bare over Carta (1.0 = as cheap as bare Fastify), beside a req/s ratio. */
export function cpuRatio(name: string, carta: Load, bare: Load): void {
  if (carta.cpuUs === null || bare.cpuUs === null || carta.cpuUs === 0) return;
  informational.push({
    name: `${name}: CPU per request, bare / Carta`,
    value: round(carta.cpuUs, 2),
    unit: 'µs',
    baseline: round(bare.cpuUs, 2),
    ratio: round(bare.cpuUs / carta.cpuUs, 3),
  });
}

/** `valid` false: the measurement itself did not hold (the name says why), a miss whatever the ratio. */
export function ratioMetric(
  name: string,
  value: number,
  baseline: number,
  unit: string,
  op: '>=' | '<=',
  target: number,
  valid = true,
): void {
  const ratio = baseline > 0 ? value / baseline : 0;
  metrics.push({
    name,
    value: round(value),
    unit,
    baseline: round(baseline),
    ratio: round(ratio, 3),
    target: `${op} ${target}`,
    pass: valid && (op === '>=' ? ratio >= target : ratio <= target),
  });
}

export function absoluteMetric(name: string, value: number, unit: string, op: '<=' | '==', target: number | string, pass: boolean): void {
  metrics.push({ name, value: round(value), unit, baseline: null, ratio: null, target: `${op} ${target}`, pass });
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The targets as a table (and what explains them), and a failing exit code when one is missed. */
export function printReport(): void {
  const rows = metrics.map(
    (m) => `| ${m.name} | ${m.value} ${m.unit} | ${m.baseline ?? ''} | ${m.ratio ?? ''} | ${m.target} | ${m.pass ? 'pass' : 'MISS'} |`,
  );
  if (rows.length > 0)
    log(['', '| metric | value | baseline | ratio | target | result |', '|---|---|---|---|---|---|', ...rows].join('\n'));
  if (informational.length > 0) {
    log(
      [
        '',
        '| not a target | value | baseline | ratio |',
        '|---|---|---|---|',
        ...informational.map((m) => `| ${m.name} | ${m.value} ${m.unit} | ${m.baseline} | ${m.ratio} |`),
      ].join('\n'),
    );
  }
  const missed = metrics.filter((m) => !m.pass);
  if (missed.length > 0) {
    log(`\n${missed.length} target(s) missed: ${missed.map((m) => m.name).join('; ')}`);
    process.exitCode = 1;
  }
}

/** A `--<part>` run: that part's figures alone, against a fresh server on a fresh engine, then the report. */
export async function benchAlone(bench: (url: string) => Promise<void>): Promise<void> {
  const e = await prepareEngine();
  try {
    const carta = (await startCarta(e, await freePort())).server;
    try {
      await bench(carta.url);
    } finally {
      await stop(carta.child);
    }
  } finally {
    await e.dispose();
  }
  printReport();
}
