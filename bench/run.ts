// `npm run bench`: Carta as a real process on a free port, load from this process (autocannon),
// every target a ratio against a baseline measured in the same run. Writes bench/results/latest.json.
// `npm run bench -- --scale`: the same venue alone and among 1,000 (bench/scale.ts).
// `npm run bench -- --webhooks`: only the webhook figures (bench/webhooks.ts).
// `npm run bench -- --instructions`: the hot reads in instructions per request (bench/instructions.ts).
// `npm run bench -- --availability`: only the guest menu with sold-out marks and opening hours (bench/availability.ts).
// `npm run bench -- --publications`: only the diff and restore of a 2,000-product menu (bench/publications.ts).
// `npm run bench -- --boards`: only guest orders with 50 console boards open (bench/boards.ts).
// `npm run bench -- --guest-streams`: only guest orders with 500 guest status pages open (bench/guest-streams.ts).
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Database } from '../src/db/port.js';
import { ImageProcessor } from '../src/modules/media/image-processor.js';
import {
  absoluteMetric,
  ADMIN_TOKEN,
  api,
  cpuRatio,
  engine,
  freePort,
  informational,
  interleaved,
  load,
  LOAD_SECONDS,
  LOCALES,
  log,
  measured,
  median,
  metrics,
  newVenue,
  peakRssMb,
  PIN,
  prepareEngine,
  printReport,
  quick,
  ratioMetric,
  root,
  ROUNDS,
  round,
  rssMb,
  startCarta,
  startAccount,
  stop,
  versusTiny,
  waitFor,
  SERVER_CPU,
  LOAD_CPU,
  type EngineEnv,
  type Server,
} from './harness.js';
import { availabilityBench, availabilityBenchAlone } from './availability.js';
import { boardsBench, boardsBenchAlone } from './boards.js';
import { guestStreamsBench, guestStreamsBenchAlone } from './guest-streams.js';
import { makeBenchImage } from './images.js';
import { publicationsBench, publicationsBenchAlone } from './publications.js';
import { guestOrderVenue, placeOrders, rawOrderWrites, ORDER_GUESTS } from './orders.js';
import { rawSqlWrite } from './raw-sql.js';
import { instructionBench } from './instructions.js';
import { scaleBench } from './scale.js';
import { webhookBench, webhookBenchAlone } from './webhooks.js';
import { menuFixture, type SyncBody } from './workload.js';

// Syncs: medians of SYNC_RUNS after SYNC_WARMUPS unmeasured rounds (the sync code is only
// optimised by the JIT after a few runs; a running service has long been past that).
const SYNC_RUNS = 5;
const SYNC_WARMUPS = 3;

// On PostgreSQL a strict read (READ_CONSISTENCY=strict, the default) asks the database once per
// batch; the bare baseline asks nothing, so its hot reads are held to latencies, not ratios.
const POSTGRES = engine === 'postgres';
/** A strict hot read's p99 on PostgreSQL at 10 connections (autocannon reports whole ms). */
const STRICT_P99_MS = 2;

// ---- heavy variants: the largest syncs that fit the 5 MB body cap with the nested caps ------------

function heavyVariant(products: number, groups: number, options: number): SyncBody {
  const body = menuFixture({
    seed: 7,
    products,
    categories: 200,
    ingredients: 200,
    groupsPerProduct: groups,
    optionsPerGroup: options,
    ingredientRefsPerProduct: 6,
    locales: LOCALES,
  });
  return body;
}

// ---- statements per sync, counted in this process on the same engine ----------------------------

async function statementCounts(e: EngineEnv): Promise<{ small: number; fixture: number }> {
  const local = await e.openLocal();
  let counting = false;
  let count = 0;
  const counted: Database = {
    ...local.db,
    engine: local.db.engine,
    query: (text, params) => {
      if (counting) count += 1;
      return local.db.query(text, params);
    },
    transaction: (fn, options) =>
      local.db.transaction(
        (tx) =>
          fn({
            exec: tx.exec,
            query: (text, params) => {
              if (counting) count += 1;
              return tx.query(text, params);
            },
          }),
        options,
      ),
    exec: (sql) => local.db.exec(sql),
    close: () => local.db.close(),
  };
  const { app, services } = await buildApp({
    config: loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent' }),
    db: counted,
  });
  await app.ready();
  const run = async (body: SyncBody) => {
    const venue = await services.venues.create({ name: `Count ${randomBytes(3).toString('hex')}`, currency: 'EUR', plan: 'standard' });
    const key = await services.apiKeys.create(venue.id, { mode: 'live' });
    await app.inject({
      method: 'PATCH',
      url: '/v1/settings',
      headers: { authorization: `Bearer ${key.key}` },
      payload: { enabledLanguages: ['en', ...LOCALES] },
    });
    count = 0;
    counting = true;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${key.key}` },
      payload: body as object,
    });
    counting = false;
    if (res.statusCode !== 201) throw new Error(`count sync: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return count;
  };
  const small = await run(menuFixture({ seed: 3, products: 10, categories: 10, ingredients: 20, locales: LOCALES }));
  const fixture = await run(menuFixture({ seed: 1, locales: LOCALES }));
  await app.close();
  await local.dispose();
  return { small, fixture };
}

// ---- media: upload vs the pipeline alone, and memory under 20 concurrent 15 MB uploads ------------

/** Files the bare baseline serves (the image, the menu, the reference), removed when the run ends. */
const scratch: string[] = [];
function scratchFile(name: string): string {
  const file = path.join(os.tmpdir(), `carta-bench-${name}`);
  scratch.push(file);
  return file;
}

const UPLOAD_RUNS = 7;
const UPLOAD_WARMUPS = 2;

/**
 * The upload against the pipeline alone. Returns the 1024 variant of the 2000x2000 upload
 * (about 60 KB), which the bare baseline then serves for the GET /media target.
 */
async function mediaUploads(url: string): Promise<{ file: string; path: string; bytes: number }> {
  const venue = await newVenue(url);
  await api(url, 'POST', '/v1/sync', venue.key, {
    products: [{ externalId: 'photo', name: 'Photo', priceMinor: 100 }],
  });

  // A 2000x2000 JPEG through the API (base64), against ImageProcessor called in this process.
  const jpeg = await makeBenchImage(2000, 13, 90);
  const body = JSON.stringify({ base64: jpeg.toString('base64') });
  const processor = new ImageProcessor();
  const direct: number[] = [];
  const viaApi: number[] = [];
  let last: { imageUrl: string; variants: { url: string; bytes: number }[] } | null = null;
  for (let run = 0; run < UPLOAD_WARMUPS + UPLOAD_RUNS; run += 1) {
    const started = performance.now();
    await processor.process('product', jpeg);
    const directMs = performance.now() - started;
    const res = await api(url, 'POST', '/v1/products/photo/image', venue.key, body);
    last = res.body;
    if (run >= UPLOAD_WARMUPS) {
      direct.push(directMs);
      viaApi.push(res.ms);
    }
  }
  log(
    `upload 2000x2000 JPEG (${round(jpeg.length / 1024 / 1024, 2)} MB): API ${round(median(viaApi))} ms, pipeline alone ${round(median(direct))} ms`,
  );
  ratioMetric(
    'image upload, 2000x2000 JPEG as base64: wall time vs the sharp pipeline alone',
    median(viaApi),
    median(direct),
    'ms',
    '<=',
    1.3,
  );
  const variant = last!.variants[0];
  const file = scratchFile(`image-${process.pid}.webp`);
  const bytes = Buffer.from(await (await fetch(variant.url)).arrayBuffer());
  fs.writeFileSync(file, bytes);

  return { file, path: new URL(variant.url).pathname, bytes: bytes.length };
}

/**
 * Peak RSS while 20 clients each upload a 15 MB image at once: nothing but 201 or MEDIA_BUSY. Run on
 * a server restarted on its data directory: a first start's PGlite initialisation, and the big syncs'
 * garbage, leave hundreds of MB in the heap for a while, which is not what uploads cost.
 */
async function uploadMemory(url: string, pid: number): Promise<void> {
  const venue = await newVenue(url);
  await api(url, 'POST', '/v1/sync', venue.key, { products: [{ externalId: 'poster', name: 'Poster', priceMinor: 100 }] });
  const big = await makeBenchImage(4000, 50, 95);
  const bigBody = JSON.stringify({ base64: big.toString('base64') });
  const statuses: number[] = [];
  const before = rssMb(pid);
  informational.push({
    name: 'server RSS before the 20 concurrent uploads',
    value: round(before),
    unit: 'MB',
    baseline: null,
    ratio: null,
  });
  const peak = await peakRssMb(pid, async () => {
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await fetch(`${url}/v1/products/poster/image`, {
          method: 'POST',
          headers: { authorization: `Bearer ${venue.key}`, 'content-type': 'application/json' },
          body: bigBody,
        }).catch(() => null);
        const text = res ? await res.text() : '';
        statuses.push(res === null ? 0 : res.status === 503 && !text.includes('MEDIA_BUSY') ? 599 : res.status);
      }),
    );
  });
  const tally = Object.entries(statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {}))
    .map(([s, n]) => `${n} x ${s === '503' ? '503 MEDIA_BUSY' : s}`)
    .join(', ');
  const clean = statuses.every((s) => s === 201 || s === 503);
  log(`20 concurrent ${round(big.length / 1024 / 1024, 1)} MB uploads: peak RSS ${round(peak)} MB; ${tally}`);
  absoluteMetric(
    `peak RSS under 20 concurrent ${round(big.length / 1024 / 1024, 1)} MB uploads (${tally})`,
    peak,
    'MB',
    '<=',
    600,
    peak <= 600 && clean,
  );
}

// ---- orders: 100,000 across 100 venues, 10,000 in one ---------------------------------------------

async function seedOrders(db: Database, venueIds: string[]): Promise<void> {
  const [big, ...rest] = venueIds;
  const plan = [[big, 10_000], ...rest.map((v) => [v, Math.floor(90_000 / rest.length)] as const)] as [string, number][];
  for (const [venueId, n] of plan) {
    await db.query(
      `insert into orders (venue_id, id, order_number, status, type, payment_method, currency, subtotal_amount, delivery_fee,
         discount_amount, total_amount, created_at, updated_at)
       select $1, gen_random_uuid(), g::text, (array['new','confirmed','preparing','completed','cancelled'])[1 + g % 5], 'pickup', 'cash', 'EUR',
              1000 + g % 500, 0, 0, 1000 + g % 500,
              now() - interval '30 days' + g * interval '200 milliseconds',
              now() - interval '30 days' + g * interval '200 milliseconds' + (g % 7) * interval '1 second'
       from generate_series(1, $2::int) g`,
      [venueId, n],
    );
    await db.query(
      `insert into order_items (venue_id, order_id, position, product_external_id, product_name, quantity, unit_price, total_price)
       select venue_id, id, 0, 'p1', 'Margherita', 1, subtotal_amount, subtotal_amount from orders where venue_id = $1`,
      [venueId],
    );
    await db.query(
      `insert into order_clocks (venue_id, last_number, last_ts) select $1, $2, max(updated_at) from orders where venue_id = $1`,
      [venueId, n],
    );
  }
  await db.query('analyze orders');
}

// ---- the order write path ---------------------------------------------------------------------------

/**
 * Guest orders at ORDER_GUESTS concurrent guests against raw SQL writing the same rows; then every
 * acknowledged order must be listed exactly once and seen by a poll following the cursor.
 */
async function orderWritePath(url: string, e: EngineEnv): Promise<void> {
  const { slug, body, ...venue } = await guestOrderVenue(url);
  await placeOrders(url, slug, body, 1); // warm-up
  const carta = await placeOrders(url, slug, body, LOAD_SECONDS);

  const local = await e.openLocal();
  const venueId = '00000000-0000-7000-8000-00000000a0a0';
  await local.db.query(`insert into venues (id, slug, name, currency) values ($1, $2, 'raw orders', 'EUR')`, [
    venueId,
    `raw-${randomBytes(3).toString('hex')}`,
  ]);
  await rawOrderWrites(local.db, venueId, 1);
  const raw = await rawOrderWrites(local.db, venueId, LOAD_SECONDS);
  await local.dispose();
  log(
    `guest orders ${round(carta.rps)} req/s p99 ${carta.p99} ms (${carta.non2xx} non-2xx) vs raw SQL ${round(raw.rps)}/s p99 ${round(raw.p99)} ms`,
  );
  ratioMetric(
    `POST /guest/v1/venues/:slug/orders (3 items with modifiers, Idempotency-Key), ${ORDER_GUESTS} guests: req/s vs raw SQL`,
    carta.rps,
    raw.rps,
    'req/s',
    '>=',
    0.5,
  );
  absoluteMetric(`guest order placement, ${ORDER_GUESTS} guests: p99`, carta.p99, 'ms', '<=', 25, carta.p99 <= 25);

  // Every acknowledged order (warm-up included) listed once, and seen by the poll cursor.
  const listed = new Set<string>();
  let total = 0;
  for (let page = 1; ; page += 1) {
    const res = await api(url, 'GET', `/v1/orders?limit=100&page=${page}`, venue.key);
    total = res.body.total;
    for (const o of res.body.items as { id: string }[]) listed.add(o.id);
    if (res.body.items.length < 100) break;
  }
  const polled = new Set<string>();
  let cursor = '1970-01-01T00:00:00.000Z';
  for (;;) {
    const res = await api(url, 'GET', `/v1/orders?updatedSince=${encodeURIComponent(cursor)}&limit=100`, venue.key);
    const items = res.body.items as { id: string; updatedAt: string }[];
    const fresh = items.filter((o) => !polled.has(o.id));
    for (const o of fresh) polled.add(o.id);
    if (fresh.length === 0) break;
    cursor = items[items.length - 1].updatedAt;
  }
  const stored = listed.size;
  const exact = total === stored && polled.size === stored && stored >= carta.acknowledged;
  log(`orders: ${stored} listed (total ${total}), ${polled.size} seen by the poll, ${carta.acknowledged} acknowledged in the measured run`);
  absoluteMetric(
    'every acknowledged guest order listed exactly once and seen by the updatedSince cursor',
    stored,
    'orders',
    '==',
    'all',
    exact,
  );
}

/** Strict reads that waited for a catch-up, and the round trips they shared, from GET /metrics. */
async function catchUpCounts(url: string): Promise<{ waits: number; roundTrips: number }> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { waits: value('carta_change_feed_catch_up_waits_total'), roundTrips: value('carta_change_feed_catch_up_seconds_count') };
}

// ---- restart after kill -9 (PGlite) ------------------------------------------------------------------

const KILLS = 3;
const KILL_RESTART_TARGET_MS = 2000;

/**
 * A server killed with -9 halfway through a 500-product sync, KILLS times, each restart timed from
 * spawn to the first 200 from /ready on the same data directory (PGlite replays its WAL and runs
 * crash recovery first). Returns the last server, running.
 */
async function restartAfterKill(e: EngineEnv, port: number): Promise<Server> {
  let server = (await startCarta(e, port)).server;
  const venue = await newVenue(server.url, 'pro');
  const catalogue = (n: number) => ({
    products: Array.from({ length: 500 }, (_, i) => ({ externalId: `p${i}`, name: `Product ${i} v${n}`, priceMinor: 1000 + n })),
  });
  const first = await api(server.url, 'POST', '/v1/sync', venue.key, catalogue(0));
  const readyMs: number[] = [];
  for (let n = 1; n <= KILLS; n += 1) {
    const sync = api(server.url, 'POST', '/v1/sync', venue.key, catalogue(n)).catch(() => null);
    await new Promise((r) => setTimeout(r, first.ms / 2));
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGKILL');
    await exited;
    await sync;
    const restarted = await startCarta(e, port, {}, { startLine: true });
    readyMs.push(restarted.readyMs);
    if (restarted.startMs) log(`restart after kill -9 ${n}: ${round(restarted.readyMs)} ms to /ready; ${startAccount(restarted.startMs)}`);
    server = restarted.server;
  }
  const worst = Math.max(...readyMs);
  absoluteMetric(
    `restart after kill -9 during a 500-product sync to first served request (slowest of ${KILLS})`,
    worst,
    'ms',
    '<=',
    KILL_RESTART_TARGET_MS,
    worst <= KILL_RESTART_TARGET_MS,
  );
  return server;
}

/** `--restart`: the two restart figures alone, on a fresh PGlite data directory. */
async function restartBenchAlone(): Promise<void> {
  log(`carta bench --restart: engine ${engine}, node ${process.version}`);
  const e = await prepareEngine();
  try {
    const port = await freePort();
    const first = await startCarta(e, port);
    await stop(first.server.child);
    const restarted = await startCarta(e, port, {}, { startLine: true });
    absoluteMetric(
      'restart on an existing PGlite data dir to first served request',
      restarted.readyMs,
      'ms',
      '<=',
      1000,
      restarted.readyMs <= 1000,
    );
    if (restarted.startMs) log(`restart: ${round(restarted.readyMs)} ms to /ready; ${startAccount(restarted.startMs)}`);
    await stop(restarted.server.child);
    const last = await restartAfterKill(e, port);
    await stop(last.child);
  } finally {
    await e.dispose();
  }
  printReport();
}

// ---- the run ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(root, 'dist/bundle/carta.js'))) execSync('npm run build', { cwd: root, stdio: 'inherit' });
  if (process.argv.includes('--scale')) return scaleBench();
  if (process.argv.includes('--webhooks')) return webhookBenchAlone();
  if (process.argv.includes('--instructions')) return instructionBench();
  if (process.argv.includes('--availability')) return availabilityBenchAlone();
  if (process.argv.includes('--publications')) return publicationsBenchAlone();
  if (process.argv.includes('--boards')) return boardsBenchAlone();
  if (process.argv.includes('--guest-streams')) return guestStreamsBenchAlone();
  if (process.argv.includes('--restart')) {
    if (engine !== 'pglite') throw new Error('--restart measures PGlite restarts: run it without DATABASE_URL');
    return restartBenchAlone();
  }
  log(
    `carta bench: engine ${engine}${quick ? ' (quick)' : ''}, node ${process.version}, ${PIN ? `HTTP loads pinned: servers on core ${SERVER_CPU}, autocannon on core ${LOAD_CPU}` : 'unpinned (no taskset or one core)'}`,
  );
  const e = await prepareEngine();
  const startedAt = new Date().toISOString();
  let carta: Server | null = null;
  let bare: ChildProcess | null = null;
  try {
    const port = await freePort();
    carta = (await startCarta(e, port)).server;
    const url = carta.url;

    const imageFile = await mediaUploads(url);

    // Sync: the fixture (create, then all skipped) against the raw-SQL baseline. Each is the
    // median of SYNC_RUNS runs after SYNC_WARMUPS warm-up rounds, every create into a fresh venue.
    const fixture = menuFixture({ seed: 1, locales: LOCALES });
    const local = await e.openLocal();
    const rawRuns: number[] = [];
    for (let run = 0; run < SYNC_WARMUPS + SYNC_RUNS; run += 1) {
      const venueId = `00000000-0000-7000-8000-${String(run + 1).padStart(12, '0')}`;
      await local.db.query(`insert into venues (id, slug, name, currency) values ($1, $2, 'raw', 'EUR')`, [
        venueId,
        `raw-${randomBytes(3).toString('hex')}`,
      ]);
      const ms = await rawSqlWrite(local.db, venueId, fixture);
      if (run >= SYNC_WARMUPS) rawRuns.push(ms);
    }
    await local.dispose();
    const createRuns: number[] = [];
    const skippedRuns: number[] = [];
    // The client's own JSON.stringify of 1.2 MB is not the server's time: serialised once.
    const fixtureJson = JSON.stringify(fixture);
    for (let run = 0; run < SYNC_WARMUPS + SYNC_RUNS; run += 1) {
      const venue = await newVenue(url);
      const create = await api(url, 'POST', '/v1/sync', venue.key, fixtureJson);
      const skipped = await api(url, 'POST', '/v1/sync', venue.key, fixtureJson);
      if (skipped.body.products.skipped !== fixture.products?.length)
        throw new Error(`re-sync skipped ${skipped.body.products.skipped} products`);
      if (run >= SYNC_WARMUPS) {
        createRuns.push(create.ms);
        skippedRuns.push(skipped.ms);
      }
    }
    const [raw, create, skipped] = [median(rawRuns), median(createRuns), median(skippedRuns)];
    const venue = await newVenue(url);
    await api(url, 'POST', '/v1/sync', venue.key, fixture);
    // Published, for the guest reads the memory target counts (the menu in each locale).
    await api(url, 'POST', '/v1/publish', venue.key);
    const venueSlug: string = (await api(url, 'GET', `/admin/v1/venues/${venue.id}`, ADMIN_TOKEN)).body.slug;
    log(
      `sync create ${round(create)} ms (raw SQL ${round(raw)} ms), all skipped ${round(skipped)} ms (medians of ${SYNC_RUNS} after ${SYNC_WARMUPS} warm-ups)`,
    );
    ratioMetric('sync fixture create: wall time vs raw SQL', create, raw, 'ms', '<=', 2.0);
    ratioMetric('sync fixture all skipped: wall time vs create', skipped, create, 'ms', '<=', 0.3);

    const variants: [string, SyncBody][] = [
      ['sync heavy: 40 products x 20 groups x 50 options', heavyVariant(quick ? 20 : 40, 20, 50)],
      ['sync heavy: 500 products x 20 groups x 4 options', heavyVariant(quick ? 250 : 500, 20, 4)],
    ];
    for (const [name, body] of variants) {
      const json = JSON.stringify(body);
      const bytes = Buffer.byteLength(json);
      const v = await newVenue(url);
      let ms = Number.NaN;
      let ok = false;
      try {
        const res = await api(url, 'POST', '/v1/sync', v.key, json);
        ms = res.ms;
        ok = res.status === 201 && ms < 30_000;
      } catch (err) {
        log(`${name}: ${(err as Error).message}`);
      }
      log(`${name}: ${round(ms)} ms, body ${round(bytes / 1024 / 1024, 2)} MB`);
      absoluteMetric(`${name} (${round(bytes / 1024 / 1024, 2)} MB)`, ms, 'ms', '<=', 30_000, ok);
    }

    const counts = await statementCounts(e);
    absoluteMetric(
      `SQL statements per sync: fixture vs 10 products (${counts.small})`,
      counts.fixture,
      'statements',
      '==',
      counts.small,
      counts.fixture === counts.small,
    );

    // HTTP reads against the bare baseline serving the same bytes.
    const menu = await fetch(`${url}/v1/menu`, { headers: { authorization: `Bearer ${venue.key}` } });
    const menuBytes = Buffer.from(await menu.arrayBuffer());
    const etag = menu.headers.get('etag') ?? '';
    const menuFile = scratchFile(`menu-${process.pid}.json`);
    fs.writeFileSync(menuFile, menuBytes);
    const reference = await fetch(`${url}/v1/reference`, { headers: { authorization: `Bearer ${venue.key}` } });
    const referenceFile = scratchFile(`reference-${process.pid}.json`);
    fs.writeFileSync(referenceFile, Buffer.from(await reference.arrayBuffer()));
    const barePort = await freePort();
    bare = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/bare-server.ts')], {
      env: { ...process.env, MENU_FILE: menuFile, IMAGE_FILE: imageFile.file, REFERENCE_FILE: referenceFile, PORT: String(barePort) },
      stdio: ['ignore', 'ignore', 'inherit'],
      cwd: root,
    });
    await waitFor(`http://127.0.0.1:${barePort}/tiny`);
    measured.bare = bare.pid as number;
    const bareUrl = `http://127.0.0.1:${barePort}`;
    const auth = { authorization: `Bearer ${venue.key}` };

    const bareMenu = await load(`${bareUrl}/menu`, auth, measured.bare);
    const cartaMenu = await load(`${url}/v1/menu`, auth);
    const feedBefore = await catchUpCounts(url);
    const [carta304, bareTiny] = await versusTiny(`${url}/v1/menu`, bareUrl, { ...auth, 'if-none-match': etag });
    const feedAfter = await catchUpCounts(url);
    if (feedAfter.roundTrips > feedBefore.roundTrips) {
      const perTrip = (feedAfter.waits - feedBefore.waits) / (feedAfter.roundTrips - feedBefore.roundTrips);
      informational.push({
        name: 'strict reads: 304s per catch-up round trip during the 304 load',
        value: round(perTrip, 2),
        unit: 'reads',
        baseline: null,
        ratio: null,
      });
    }
    const [cartaReference, bareTinyReference] = await versusTiny(`${url}/v1/reference`, bareUrl, auth);
    log(
      `menu ${round(cartaMenu.rps)} req/s vs bare ${round(bareMenu.rps)}; 304 ${round(carta304.rps)} vs tiny ${round(bareTiny.rps)}; reference ${round(cartaReference.rps)} vs tiny ${round(bareTinyReference.rps)}`,
    );
    ratioMetric(
      `GET /v1/menu (${round(menuBytes.length / 1024)} KB), 10 connections: req/s vs bare Fastify`,
      cartaMenu.rps,
      bareMenu.rps,
      'req/s',
      '>=',
      0.8,
    );
    if (POSTGRES) {
      for (const [name, read, tiny] of [
        ['GET /v1/menu 304', carta304, bareTiny],
        ['GET /v1/reference', cartaReference, bareTinyReference],
      ] as const) {
        absoluteMetric(
          `${name} (READ_CONSISTENCY=strict), 10 connections: p99`,
          read.p99,
          'ms',
          '<=',
          STRICT_P99_MS,
          read.p99 <= STRICT_P99_MS,
        );
        informational.push({
          name: `${name} (READ_CONSISTENCY=strict), 10 connections: p50`,
          value: read.p50,
          unit: 'ms',
          baseline: null,
          ratio: null,
        });
        informational.push({
          name: `${name} (READ_CONSISTENCY=strict): req/s vs bare tiny JSON`,
          value: round(read.rps),
          unit: 'req/s',
          baseline: round(tiny.rps),
          ratio: round(read.rps / tiny.rps, 3),
        });
      }
    } else {
      ratioMetric('GET /v1/menu If-None-Match (304): req/s vs bare tiny JSON', carta304.rps, bareTiny.rps, 'req/s', '>=', 0.9);
      ratioMetric('GET /v1/reference: req/s vs bare tiny JSON', cartaReference.rps, bareTinyReference.rps, 'req/s', '>=', 0.6);
    }
    cpuRatio('GET /v1/menu (LOG_LEVEL=warn)', cartaMenu, bareMenu);
    cpuRatio('304 (LOG_LEVEL=warn)', carta304, bareTiny);
    cpuRatio('GET /v1/reference (LOG_LEVEL=warn)', cartaReference, bareTinyReference);
    // The reference sends 4 KB where the tiny route sends 15 bytes. Against a bare server sending
    // the same bytes, what is left is what Carta adds (reported beside the target, which is set
    // against the tiny route).
    const [cartaReferenceAgain, bareReference] = await versusTiny(`${url}/v1/reference`, bareUrl, auth, '/reference');
    informational.push({
      name: 'GET /v1/reference (LOG_LEVEL=warn): req/s vs bare Fastify sending the same bytes',
      value: round(cartaReferenceAgain.rps),
      unit: 'req/s',
      baseline: round(bareReference.rps),
      ratio: round(cartaReferenceAgain.rps / bareReference.rps, 3),
    });
    cpuRatio('GET /v1/reference vs bare Fastify sending the same bytes', cartaReferenceAgain, bareReference);

    // The default configuration: LOG_LEVEL=info (the access log on) and METRICS on,
    // against the same baseline; then what metrics cost, the same 304 with METRICS on and off.
    await stop(carta.child);
    carta = (await startCarta(e, port, { LOG_LEVEL: 'info' })).server;
    const [default304, defaultTiny] = await versusTiny(`${url}/v1/menu`, bareUrl, { ...auth, 'if-none-match': etag });
    const [defaultReference, defaultTinyReference] = await versusTiny(`${url}/v1/reference`, bareUrl, auth);
    if (POSTGRES) {
      for (const [name, read, tiny] of [
        ['304', default304, defaultTiny],
        ['GET /v1/reference', defaultReference, defaultTinyReference],
      ] as const) {
        absoluteMetric(
          `default config (LOG_LEVEL=info, METRICS=on): ${name}, strict, 10 connections: p99`,
          read.p99,
          'ms',
          '<=',
          STRICT_P99_MS,
          read.p99 <= STRICT_P99_MS,
        );
        informational.push({
          name: `default config (LOG_LEVEL=info, METRICS=on): ${name}, strict, 10 connections: p50`,
          value: read.p50,
          unit: 'ms',
          baseline: null,
          ratio: null,
        });
        informational.push({
          name: `default config (LOG_LEVEL=info, METRICS=on): ${name} req/s vs bare tiny JSON`,
          value: round(read.rps),
          unit: 'req/s',
          baseline: round(tiny.rps),
          ratio: round(read.rps / tiny.rps, 3),
        });
      }
    } else {
      ratioMetric(
        'default config (LOG_LEVEL=info, METRICS=on): 304 req/s vs bare tiny JSON',
        default304.rps,
        defaultTiny.rps,
        'req/s',
        '>=',
        0.8,
      );
      ratioMetric(
        'default config (LOG_LEVEL=info, METRICS=on): GET /v1/reference req/s vs bare tiny JSON',
        defaultReference.rps,
        defaultTinyReference.rps,
        'req/s',
        '>=',
        0.7,
      );
    }
    cpuRatio('304 (default config)', default304, defaultTiny);
    cpuRatio('GET /v1/reference (default config)', defaultReference, defaultTinyReference);
    // Two fresh servers, one with metrics off, loaded in interleaved rounds (on PGlite the second
    // opens a copy of the data directory: one directory serves one process).
    await stop(carta.child);
    const offDir = e.env.DATA_DIR ? `${e.env.DATA_DIR}-metrics-off` : undefined;
    if (offDir && e.env.DATA_DIR) fs.cpSync(e.env.DATA_DIR, offDir, { recursive: true });
    const withoutMetrics = (await startCarta(e, await freePort(), { METRICS: 'off', ...(offDir ? { DATA_DIR: offDir } : {}) })).server;
    const offPid = measured.carta;
    carta = (await startCarta(e, port)).server;
    const [metricsOn, metricsOff] = await interleaved(
      { url: `${url}/v1/menu`, pid: measured.carta },
      { url: `${withoutMetrics.url}/v1/menu`, pid: offPid },
      { ...auth, 'if-none-match': etag },
    );
    await stop(withoutMetrics.child);
    if (offDir) fs.rmSync(offDir, { recursive: true, force: true });
    log(
      `default config: 304 ${round(default304.rps)} vs tiny ${round(defaultTiny.rps)}, reference ${round(defaultReference.rps)} vs tiny ${round(defaultTinyReference.rps)}; 304 METRICS on ${round(metricsOn.rps)} vs off ${round(metricsOff.rps)}`,
    );
    ratioMetric(
      'GET /v1/menu 304 with METRICS=on vs METRICS=off (LOG_LEVEL=warn): req/s',
      metricsOn.rps,
      metricsOff.rps,
      'req/s',
      '>=',
      0.95,
    );
    if (metricsOn.cpuUs && metricsOff.cpuUs) {
      informational.push({
        name: '304 (LOG_LEVEL=warn): CPU per request, METRICS off / on',
        value: round(metricsOn.cpuUs, 2),
        unit: 'µs',
        baseline: round(metricsOff.cpuUs, 2),
        ratio: round(metricsOff.cpuUs / metricsOn.cpuUs, 3),
      });
    }

    const bareImage = await load(`${bareUrl}/image`, {}, measured.bare);
    const cartaImage = await load(`${url}${imageFile.path}`);
    log(`image ${round(cartaImage.rps)} req/s vs bare ${round(bareImage.rps)}`);
    ratioMetric(
      `GET /media/... (${round(imageFile.bytes / 1024)} KB WebP), 10 connections: req/s vs bare Fastify`,
      cartaImage.rps,
      bareImage.rps,
      'req/s',
      '>=',
      0.8,
    );

    // The guest menu with 50 sold-out marks and opening hours (closed now) against the same menu
    // without them: the fixture venue's (published above).
    await availabilityBench(url, { key: venue.key, slug: venueSlug });
    // The diff and restore of a 2,000-product menu, on venues of their own.
    await publicationsBench(url);

    await orderWritePath(url, e);
    await webhookBench(url);
    // 50 console boards on one venue while guests order, on a venue of its own.
    await boardsBench(url);
    // 500 guest status pages on one venue while guests order there, on a venue of its own.
    await guestStreamsBench(url);

    // Orders: seed 100,000 orders, then poll the 10,000-order venue.
    const orderVenues: { id: string; key: string }[] = [];
    for (let i = 0; i < 100; i += 1) orderVenues.push(await newVenue(url));
    if (engine === 'pglite') {
      // PGlite is one process's database: stop the server, seed, and measure the restart.
      await stop(carta.child);
      const db = await e.openServerDb();
      await seedOrders(
        db,
        orderVenues.map((v) => v.id),
      );
      await db.close();
      // The first served request after a restart on an existing data directory, logged at info
      // for the start's own account of its time; then started again as every measured server is.
      const restarted = await startCarta(e, port, {}, { startLine: true });
      absoluteMetric(
        'restart on an existing PGlite data dir to first served request',
        restarted.readyMs,
        'ms',
        '<=',
        1000,
        restarted.readyMs <= 1000,
      );
      const s = restarted.startMs;
      if (s) log(`restart: ${round(restarted.readyMs)} ms to /ready; the server's own account: ${startAccount(s)}`);
      await stop(restarted.server.child);
      carta = await restartAfterKill(e, port);
    } else {
      const db = await e.openServerDb();
      await seedOrders(
        db,
        orderVenues.map((v) => v.id),
      );
      await db.close();
    }
    const big = orderVenues[0];
    const tail = await api(url, 'GET', '/v1/orders?limit=100', big.key);
    const newest = tail.body.items.map((o: { updatedAt: string }) => o.updatedAt).sort();
    const cursor = newest[Math.max(0, newest.length - 10)];
    const last = newest[newest.length - 1];
    const poll = await load(`${url}/v1/orders?updatedSince=${encodeURIComponent(cursor)}`, { authorization: `Bearer ${big.key}` });
    const [idle, tiny2] = await versusTiny(`${url}/v1/orders?updatedSince=${encodeURIComponent(last)}`, bareUrl, {
      authorization: `Bearer ${big.key}`,
    });
    const p99Target = engine === 'pglite' ? 20 : 5;
    log(`poll p99 ${poll.p99} ms (${round(poll.rps)} req/s); idle poll ${round(idle.rps)} req/s vs tiny ${round(tiny2.rps)}`);
    absoluteMetric(
      'GET /v1/orders?updatedSince polling, 10,000-order venue, 10 connections: p99',
      poll.p99,
      'ms',
      '<=',
      p99Target,
      poll.p99 <= p99Target,
    );
    ratioMetric(
      'idle poll (nothing new since the cursor): req/s vs bare tiny JSON',
      idle.rps,
      tiny2.rps,
      'req/s',
      '>=',
      POSTGRES ? 0.7 : 0.5,
    );
    cpuRatio('idle poll', idle, tiny2);

    if (engine === 'pglite') {
      // The guest menu JSON and the guest page of the fixture in each of its languages, then the RSS.
      for (const locale of ['en', ...LOCALES]) {
        await api(url, 'GET', `/guest/v1/venues/${venueSlug}/menu?locale=${locale}`, '');
        await fetch(`${url}/m/${venueSlug}?lang=${locale}`).then((res) => res.arrayBuffer());
      }
      const rss = rssMb(carta.child.pid as number);
      absoluteMetric(
        `server RSS after the fixture in ${LOCALES.length} locales, the guest menu and page read in each, and the load (PGlite)`,
        rss,
        'MB',
        '<=',
        300,
        rss <= 300,
      );
      // Last: the memory image processing takes is not all handed back to the system at once.
      await uploadMemory(url, carta.child.pid as number);
    } else {
      // Not targets: what the per-request catch-up (READ_CONSISTENCY=strict, the default) costs,
      // measured against the same server with READ_CONSISTENCY=eventual.
      await stop(carta.child);
      carta = (await startCarta(e, port, { READ_CONSISTENCY: 'eventual' })).server;
      const ifNoneMatch = { ...auth, 'if-none-match': etag };
      for (const [name, cartaUrl, headers] of [
        ['304', `${url}/v1/menu`, ifNoneMatch],
        ['reference', `${url}/v1/reference`, auth],
        ['idle poll', `${url}/v1/orders?updatedSince=${encodeURIComponent(last)}`, { authorization: `Bearer ${big.key}` }],
      ] as const) {
        const [eventual, tiny] = await versusTiny(cartaUrl, bareUrl, headers);
        informational.push({
          name: `READ_CONSISTENCY=eventual: ${name} vs bare tiny JSON`,
          value: round(eventual.rps),
          unit: 'req/s',
          baseline: round(tiny.rps),
          ratio: round(eventual.rps / tiny.rps, 3),
        });
        cpuRatio(`READ_CONSISTENCY=eventual: ${name}`, eventual, tiny);
      }
    }
  } finally {
    if (bare) await stop(bare);
    if (carta) await stop(carta.child);
    await e.dispose();
    for (const file of scratch) fs.rmSync(file, { force: true });
  }

  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { cwd: root }).toString().trim();
    } catch {
      return 'unknown';
    }
  })();
  const report = { engine, node: process.version, commit, startedAt, quick, pinned: PIN, rounds: ROUNDS, metrics, informational };
  fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bench/results/latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(root, `bench/results/latest-${engine}.json`), `${JSON.stringify(report, null, 2)}\n`);

  printReport();
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
  process.exit(2);
});
