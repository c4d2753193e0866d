import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { lockDataDir } from '../../src/server/data-dir-lock.js';
import { bin, carta, cartaEnv, cliSkipReason, dataDirFromTemplate, root } from '../helpers/cli.js';
import { freePort, sleep } from '../helpers/net.js';

// A server on the embedded database may die by kill -9 at any moment; the next start on the same
// DATA_DIR must never be refused for it, two live processes must never open the same PGlite files,
// and what a killed sync left behind must be all of it or none of it.

const skip = cliSkipReason();

/**
 * How long a restart may take here: long enough for a start on two cores shared with the rest of
 * `npm test` (3-13 s seen), short of a start that waits for a holder (5 s) and then gives up. How
 * fast a restart after kill -9 is, is the bench's figure (`npm run bench -- --restart`, 2 s).
 */
const RESTART_MS = 30_000;

interface Server {
  pid: number;
  url: string;
  /** The wrapper that started it (see startServer); killing it lets the server be reaped. */
  wrapper: ChildProcess;
}

/**
 * `carta serve` started through `sh -c 'carta serve & exec sleep'`: its parent becomes a `sleep`
 * that never reaps it, so a killed server stays a zombie, still answering kill(pid, 0), as it does
 * under a parent that has not reaped it yet (or a pid 1 that never does). Resolves once /ready is 200.
 */
async function startServer(dataDir: string, timeoutMs = 30_000): Promise<Server> {
  const startedAt = Date.now();
  const port = await freePort();
  const env = cartaEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1' });
  const wrapper = spawn('sh', ['-c', '"$0" "$1" serve & echo "carta-pid=$!"; exec sleep 600', process.execPath, bin], {
    env,
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  wrapper.stdout?.on('data', (d) => (out += d));
  wrapper.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  let pid = 0;
  for (;;) {
    pid ||= Number(/carta-pid=(\d+)/.exec(out)?.[1] ?? 0);
    if (pid && !running(pid)) {
      wrapper.kill('SIGKILL');
      throw new Error(`carta serve exited: ${out}`);
    }
    try {
      if ((await fetch(`${url}/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - startedAt > timeoutMs) {
      if (pid) process.kill(pid, 'SIGKILL');
      wrapper.kill('SIGKILL');
      throw new Error(`carta serve was not ready within ${timeoutMs} ms: ${out}`);
    }
    await sleep(50);
  }
  return { pid, url, wrapper };
}

/** /proc/<pid>/stat of a process that has exited but is not reaped yet. */
const isZombie = (stat: string) => /^\d+ \(.*\) Z/.test(stat);

/** Alive and not a zombie (a zombie shows only on Linux, in /proc). */
function running(pid: number): boolean {
  if (process.platform === 'linux') {
    try {
      return !isZombie(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A rival `carta serve`: its exit code and stderr once it gives up, or 'serving' if it starts after all. */
async function rivalServe(dataDir: string): Promise<{ code: number | 'serving'; stderr: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: cartaEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1' }),
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const code = await Promise.race([exited, sleep(100).then(() => null)]);
    if (code !== null) return { code, stderr };
    const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready || Date.now() > deadline) {
      child.kill('SIGKILL');
      return { code: 'serving', stderr };
    }
  }
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** SIGKILL, and wait until the kernel has finished it (a zombie or gone). */
async function killHard(server: Server): Promise<void> {
  process.kill(server.pid, 'SIGKILL');
  await waitFor(`pid ${server.pid} to die`, () => !running(server.pid));
}

/** SIGTERM, and wait for the graceful exit (the note goes with it). */
async function stop(server: Server, dataDir: string): Promise<void> {
  process.kill(server.pid, 'SIGTERM');
  await waitFor(`pid ${server.pid} to exit`, () => !running(server.pid), 20_000);
  assert.equal(fs.existsSync(path.join(dataDir, 'server.json')), false, 'a graceful stop removes the note');
}

async function api(url: string, method: string, route: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('restart after kill -9 on the embedded database', { skip }, () => {
  const wrappers: ChildProcess[] = [];
  const serverPids: number[] = [];
  const dataDirs: string[] = [];
  const newDataDir = () => {
    const dir = dataDirFromTemplate();
    dataDirs.push(dir);
    return dir;
  };
  const track = (server: Server) => {
    wrappers.push(server.wrapper);
    serverPids.push(server.pid);
    return server;
  };

  after(() => {
    // A server a failed test left running, then the wrappers (now `sleep`s): killing one hands its
    // zombie to a reaper.
    for (const pid of serverPids) if (running(pid)) process.kill(pid, 'SIGKILL');
    for (const w of wrappers) if (w.exitCode === null) w.kill('SIGKILL');
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts at once on the DATA_DIR of a killed server that is still an unreaped zombie', async () => {
    const dataDir = newDataDir();
    const first = track(await startServer(dataDir));
    await killHard(first);
    if (process.platform === 'linux')
      assert.ok(isZombie(fs.readFileSync(`/proc/${first.pid}/stat`, 'utf8')), 'the killed server is a zombie');
    assert.doesNotThrow(() => process.kill(first.pid, 0), 'a zombie still answers kill(pid, 0)');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).pid, first.pid, 'the dead server left its note');

    const startedAt = Date.now();
    const second = track(await startServer(dataDir, RESTART_MS));
    assert.ok(Date.now() - startedAt < RESTART_MS);
    assert.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).pid, second.pid);
    await stop(second, dataDir);
  });

  it('starts on a DATA_DIR whose note names a live, unrelated process', async () => {
    const dataDir = newDataDir();
    // A pid a container restart could hand to anything: here a `sleep` of the test's own.
    const stranger = spawn('sleep', ['600'], { stdio: 'ignore' });
    wrappers.push(stranger);
    fs.writeFileSync(path.join(dataDir, 'server.json'), JSON.stringify({ pid: stranger.pid, url: 'http://127.0.0.1:9' }));
    const server = track(await startServer(dataDir, RESTART_MS));
    assert.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).pid, server.pid);

    // The CLI finds the new server, not the stale address.
    const venue = await carta(dataDir, ['venue', 'create', '--name', 'After Crash', '--currency', 'EUR', '--json']);
    assert.equal(venue.code, 0, venue.stderr);
    await stop(server, dataDir);
  });

  it('refuses a second live server on one DATA_DIR and keeps the first serving', async () => {
    const dataDir = newDataDir();
    const first = track(await startServer(dataDir));
    const rival = await rivalServe(dataDir);
    assert.equal(rival.code, 1, rival.stderr);
    assert.ok(rival.stderr.includes(`Another Carta server (pid ${first.pid}, ${first.url}) is using ${dataDir}`), rival.stderr);
    assert.equal((await fetch(`${first.url}/ready`)).status, 200);
    assert.equal(JSON.parse(fs.readFileSync(path.join(dataDir, 'server.json'), 'utf8')).pid, first.pid);
    const venue = await carta(dataDir, ['venue', 'create', '--name', 'Still Serving', '--currency', 'EUR', '--json']);
    assert.equal(venue.code, 0, venue.stderr);
    await stop(first, dataDir);
  });

  it('keeps a server out while a carta command has the database open, and lets commands take turns', async () => {
    const dataDir = newDataDir();
    // This test process stands in for a carta command holding PGlite open.
    const held = await lockDataDir(dataDir);
    assert.ok(held);
    try {
      const rival = await rivalServe(dataDir);
      assert.equal(rival.code, 1, rival.stderr);
      assert.match(rival.stderr, /Another Carta process is using /);

      // A command started meanwhile waits for the lock (longer than it takes to run), then runs in-process.
      const waiting = carta(dataDir, ['venue', 'create', '--name', 'Waited', '--currency', 'EUR', '--json']).then((run) => ({
        run,
        at: Date.now(),
      }));
      await sleep(3_000);
      const releasedAt = Date.now();
      await held.release();
      const { run, at } = await waiting;
      assert.ok(at >= releasedAt, 'the command did not open the database while it was held');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(JSON.parse(run.stdout).name, 'Waited');
    } finally {
      await held.release();
    }
  });

  it('comes back ready after every kill -9 during 500-product syncs, each sync all or nothing', { timeout: 600_000 }, async (t) => {
    const dataDir = newDataDir();
    // Six kills by default (a minute of the suite, three anywhere and three at the boundary);
    // CARTA_CRASH_KILLS=20 repeats the review's run of twenty.
    const iterations = Number(process.env.CARTA_CRASH_KILLS ?? 6);
    const count = 500;
    let server = track(await startServer(dataDir));
    const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const venue = await api(server.url, 'POST', '/admin/v1/venues', token, { name: 'Crash Cafe', currency: 'EUR', plan: 'pro' });
    assert.equal(venue.status, 201, JSON.stringify(venue.body));
    const key = await api(server.url, 'POST', `/admin/v1/venues/${venue.body.id}/api-keys`, token, { mode: 'live' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const apiKey: string = key.body.key;

    // Iteration n writes every product with its own name suffix and price, so a half-applied sync shows.
    const catalogue = (n: number) => ({
      products: Array.from({ length: count }, (_, i) => ({ externalId: `p${i}`, name: `Product ${i} v${n}`, priceMinor: 1000 + n })),
    });
    const menuIteration = async (url: string): Promise<number> => {
      const menu = await api(url, 'GET', '/v1/menu', apiKey);
      assert.equal(menu.status, 200, JSON.stringify(menu.body));
      const products = menu.body.products as { externalId: string; name: string; priceMinor: number }[];
      assert.equal(products.length, count);
      const seen = new Set(products.map((p) => `${p.priceMinor}:${/ v(\d+)$/.exec(p.name)?.[1]}`));
      assert.equal(seen.size, 1, `a sync was applied in part: ${[...seen].slice(0, 5).join(', ')}`);
      const n = products[0].priceMinor - 1000;
      assert.equal(products[0].name.endsWith(` v${n}`), true);
      return n;
    };

    // A first kill with the server at rest, then a timed sync on the restarted (cold) server: the
    // kills below are spread over about that long.
    await killHard(server);
    server = track(await startServer(dataDir, RESTART_MS));
    const firstAt = Date.now();
    const first = await api(server.url, 'POST', '/v1/sync', apiKey, catalogue(0));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const syncMs = Date.now() - firstAt;
    let state = await menuIteration(server.url);
    assert.equal(state, 0);

    // Half the kills anywhere from before the request arrives to after the reply; the other half
    // around the last kill that lost its sync and the last that kept it, where the write
    // transaction is in flight (the boundary moves with the load, so it is followed, not fixed).
    let lost = 0;
    let kept = Math.ceil(syncMs * 1.25);
    const margin = Math.ceil(syncMs * 0.1);
    const restartMs: number[] = [];
    const trace: string[] = [];
    for (let n = 1; n <= iterations; n += 1) {
      const [from, to] =
        n % 2 === 1 ? [0, Math.ceil(syncMs * 1.25)] : [Math.max(0, Math.min(lost, kept) - margin), Math.max(lost, kept) + margin];
      const killAfter = from + Math.floor(Math.random() * (to - from + 1));
      let replied = false;
      const sync = api(server.url, 'POST', '/v1/sync', apiKey, catalogue(n)).then(
        (res) => {
          assert.equal(res.status, 201, JSON.stringify(res.body));
          replied = true;
        },
        () => {},
      );
      await sleep(killAfter);
      await killHard(server);
      await sync;

      const startedAt = Date.now();
      server = track(await startServer(dataDir, RESTART_MS));
      restartMs.push(Date.now() - startedAt);

      const now = await menuIteration(server.url);
      if (replied) assert.equal(now, n, `iteration ${n}: an acknowledged sync was lost`);
      else assert.ok(now === state || now === n, `iteration ${n}: the menu holds iteration ${now}, expected ${state} or ${n}`);
      if (now === n) kept = killAfter;
      else lost = killAfter;
      trace.push(`${killAfter}${now !== n ? '-' : replied ? 'R' : 'C'}`);
      state = now;
    }

    // The data dir is still whole: a last sync applies and the server stops cleanly.
    const last = await api(server.url, 'POST', '/v1/sync', apiKey, catalogue(iterations + 1));
    assert.equal(last.status, 201, JSON.stringify(last.body));
    assert.equal(await menuIteration(server.url), iterations + 1);
    await stop(server, dataDir);
    const slowest = Math.max(...restartMs);
    const mean = Math.round(restartMs.reduce((a, b) => a + b, 0) / restartMs.length);
    // Kill times in ms: - lost the sync, C kept it unacknowledged, R kept it after the reply.
    t.diagnostic(`cold sync ${syncMs} ms; restart to ready mean ${mean} ms, max ${slowest} ms; kills: ${trace.join(' ')}`);
  });
});
