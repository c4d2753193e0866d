// `npm run bench -- --instructions`: the hot reads counted in instructions instead of seconds
// (docs/performance.md, "Running the bench"). On a shared machine the CPU time of one request moves
// by a third between runs; an instruction count does not move with the machine's load. Each server runs
// under valgrind's callgrind with counting off, is warmed up, and counts only a window of requests
// (callgrind_control -i on/off). Kernel time is not counted, so these ratios are lower than the CPU
// ratios of the main run and are not its targets: they compare builds, processes and paths.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  api,
  autocannonRun,
  cartaEnv,
  freePort,
  informational,
  LOCALES,
  log,
  newVenue,
  prepareEngine,
  printReport,
  root,
  round,
  stop,
  waitFor,
  type EngineEnv,
} from './harness.js';
import { availabilityVenues } from './availability.js';
import { menuFixture } from './workload.js';

// Node's optimising compiler takes its time with Fastify's larger functions (Reply.send was first
// optimised after about 8,000 304s), and each new batch of connections costs some functions a
// deoptimisation and a second compile; counts after a warm-up of 3,000 requests ran 25% above
// the settled ones (110,000 instructions per 304 against 86,500). Under valgrind 30,000 requests
// take about 13 s. No --quick form: shorter runs had not settled.
const WARM_UP = 30_000;
const COUNTED = 2_000;
// Background compilation and collection add to a window and never take away: the fewest of
// several windows is the path's own cost. The first two windows after a warm-up still carry the
// recompiles of the new connections (170,000-190,000 instructions per request, 66,000-87,000
// from the third on).
const WINDOWS = 5;

interface Counted {
  child: ChildProcess;
  url: string;
  outDir: string;
}

/** A server process under callgrind, counting nothing until told to. */
async function startCounted(args: string[], env: Record<string, string>, readyPath: string): Promise<Counted> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-callgrind-'));
  const port = await freePort();
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outDir}/callgrind.out`, process.execPath, ...args],
    {
      env: { ...process.env, ...env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'ignore'],
      cwd: root,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}${readyPath}`, 300_000);
  return { child, url, outDir };
}

function callgrindControl(pid: number, ...args: string[]): void {
  const run = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`callgrind_control ${args.join(' ')}: ${run.stderr}`);
}

/** Instructions per request to `url`: the fewest over WINDOWS windows of COUNTED requests, after WARM_UP. */
async function instructionsPerRequest(server: Counted, url: string, headers: Record<string, string>): Promise<number> {
  await autocannonRun(url, headers, { amount: WARM_UP });
  const windows: number[] = [];
  for (let i = 0; i < WINDOWS; i += 1) windows.push(await countWindow(server, url, headers));
  return Math.min(...windows);
}

async function countWindow(server: Counted, url: string, headers: Record<string, string>): Promise<number> {
  const pid = server.child.pid as number;
  callgrindControl(pid, '-z');
  callgrindControl(pid, '-i', 'on');
  await autocannonRun(url, headers, { amount: COUNTED });
  callgrindControl(pid, '-d');
  callgrindControl(pid, '-i', 'off');
  // Each dump is a file of its own (callgrind.out.<n>); the newest holds this window.
  const dumps = fs
    .readdirSync(server.outDir)
    .map((f) => path.join(server.outDir, f))
    .sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
  const text = fs.readFileSync(dumps[dumps.length - 1], 'utf8');
  const total = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (!total) throw new Error('no instruction total in the callgrind dump');
  return Number(total[1]) / COUNTED;
}

function startCarta(e: EngineEnv, env: Record<string, string> = {}): Promise<Counted> {
  return startCounted([path.join(root, 'bin/carta.js'), 'serve'], cartaEnv(e, env), '/ready');
}

export async function instructionBench(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    log('--instructions needs valgrind (and its callgrind_control) on the PATH; not measured.');
    return;
  }
  log(
    `carta instruction counts: node ${process.version}, per path ${WARM_UP} warm-up requests, then the fewest of ${WINDOWS} windows of ${COUNTED}, 10 connections`,
  );
  const e = await prepareEngine();
  const servers: Counted[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-bench-bare-'));
  try {
    // Carta as the main run has it when it measures the reads: it has run syncs first.
    const carta = await startCarta(e);
    servers.push(carta);
    const venue = await newVenue(carta.url);
    const fixture = JSON.stringify(menuFixture({ seed: 1, locales: LOCALES }));
    for (let i = 0; i < 3; i += 1) await api(carta.url, 'POST', '/v1/sync', (await newVenue(carta.url)).key, fixture);
    await api(carta.url, 'POST', '/v1/sync', venue.key, fixture);
    await api(carta.url, 'POST', '/v1/publish', venue.key);
    const auth = { authorization: `Bearer ${venue.key}` };
    const etag = (await api(carta.url, 'GET', '/v1/menu', venue.key)).headers.get('etag') ?? '';
    const since = encodeURIComponent(new Date().toISOString());

    fs.writeFileSync(path.join(tmp, 'menu.json'), '{}');
    fs.writeFileSync(path.join(tmp, 'image.webp'), randomBytes(16));
    const bare = await startCounted(
      ['--import', 'tsx', path.join(root, 'bench/bare-server.ts')],
      { MENU_FILE: path.join(tmp, 'menu.json'), IMAGE_FILE: path.join(tmp, 'image.webp') },
      '/tiny',
    );
    servers.push(bare);

    // Each path against the bare tiny route sent the same headers, as the main run compares them.
    const paths: [string, string, Record<string, string>][] = [
      ['304 on If-None-Match', `${carta.url}/v1/menu`, { ...auth, 'if-none-match': etag }],
      ['GET /v1/reference', `${carta.url}/v1/reference`, auth],
      ['idle poll', `${carta.url}/v1/orders?updatedSince=${since}`, auth],
    ];
    for (const [name, url, headers] of paths) {
      const tiny = await instructionsPerRequest(bare, `${bare.url}/tiny`, headers);
      const counted = await instructionsPerRequest(carta, url, headers);
      log(`${name}: ${round(counted / 1000)} thousand instructions per request, bare tiny ${round(tiny / 1000)} thousand`);
      informational.push({
        name: `${name} (LOG_LEVEL=warn): instructions per request, bare tiny / Carta`,
        value: Math.round(counted),
        unit: 'instructions',
        baseline: Math.round(tiny),
        ratio: round(tiny / counted, 3),
      });
    }

    // The guest menu's 304 with 50 sold-out marks and opening hours (closed now) against the same
    // menu without them (bench/availability.ts), each venue sent its own ETag. Both are warmed up,
    // then their windows alternate (plain first, then marked first, ...), so a drift of the heap
    // (scavenges came in 0 to 13 thousand instructions a request from one window to the next) falls on both.
    const guest = await availabilityVenues(carta.url);
    const sides = [
      [guest.plainUrl, { 'if-none-match': guest.plain.etag }],
      [guest.markedUrl, { 'if-none-match': guest.marked.etag }],
    ] as const;
    for (const [url, headers] of sides) await autocannonRun(url, headers, { amount: WARM_UP });
    const windows: [number[], number[]] = [[], []];
    for (let i = 0; i < WINDOWS; i += 1) {
      for (const side of i % 2 === 0 ? [0, 1] : [1, 0]) windows[side].push(await countWindow(carta, sides[side][0], sides[side][1]));
    }
    const [plain, marked] = windows.map((w) => Math.min(...w));
    log(
      `guest menu 304: ${round(marked / 1000)} thousand instructions per request with marks and hours, ${round(plain / 1000)} thousand without`,
    );
    informational.push({
      name: 'guest menu 304 with 50 sold-out marks and opening hours: instructions per request, without / with',
      value: Math.round(marked),
      unit: 'instructions',
      baseline: Math.round(plain),
      ratio: round(plain / marked, 3),
    });

    // The default configuration on a server of its own, as the main run measures it.
    await stop(carta.child);
    const defaults = await startCarta(e, { LOG_LEVEL: 'info', METRICS: 'on' });
    servers.push(defaults);
    for (const [name, pathName, headers] of [
      ['304 on If-None-Match', '/v1/menu', { ...auth, 'if-none-match': etag }],
      ['GET /v1/reference', '/v1/reference', auth],
    ] as const) {
      const tiny = await instructionsPerRequest(bare, `${bare.url}/tiny`, headers);
      const counted = await instructionsPerRequest(defaults, `${defaults.url}${pathName}`, headers);
      log(`default config, ${name}: ${round(counted / 1000)} thousand instructions per request, bare tiny ${round(tiny / 1000)} thousand`);
      informational.push({
        name: `${name} (default config): instructions per request, bare tiny / Carta`,
        value: Math.round(counted),
        unit: 'instructions',
        baseline: Math.round(tiny),
        ratio: round(tiny / counted, 3),
      });
    }
  } finally {
    for (const server of servers) {
      await stop(server.child);
      fs.rmSync(server.outDir, { recursive: true, force: true });
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    await e.dispose();
  }
  printReport();
}
