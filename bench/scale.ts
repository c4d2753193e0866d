// `npm run bench -- --scale` (PostgreSQL): one venue's requests when it is the only venue of its
// database, and when it shares it with 999 others of 100 products each and 1,000,000 orders in all.
// Every ratio is crowded over alone (<= 1.25: what a request costs does not grow with the number
// of tenants). Both servers run at once on databases of their own and are measured in turns, so a
// drift of the machine falls on both. Writes bench/results/scale.json.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import {
  absoluteMetric,
  ADMIN_TOKEN,
  api,
  freePort,
  informational,
  load,
  LOAD_SECONDS,
  log,
  measured,
  median,
  metrics,
  newVenue,
  prepareEngine,
  printReport,
  ratioMetric,
  root,
  ROUNDS,
  round,
  startCarta,
  stop,
  type EngineEnv,
  type Load,
  type Server,
} from './harness.js';
import { ORDER_BENCH_MENU, orderBody, placeOrders } from './orders.js';
import { menuFixture, type SyncBody } from './workload.js';

const argv = process.argv.slice(2);
const VENUES = argv.includes('--venues') ? Number(argv[argv.indexOf('--venues') + 1]) : 1000;
const ORDERS_PER_VENUE = 1000;
const PRODUCTS = 100;
const SYNC_RUNS = 9;
/** Venues set up at once through the API (the crowded database's 999 others). */
const SETUP_CONCURRENCY = 4;

/** 97 products of the fixture and the 3 of the order bench (their modifier groups are what a guest order sends). */
function venueMenu(): SyncBody {
  const fixture = menuFixture({
    seed: 11,
    products: PRODUCTS - ORDER_BENCH_MENU.products.length,
    categories: 10,
    ingredients: 30,
    locales: ['uk', 'es'],
  });
  return {
    categories: [...(fixture.categories ?? []), ...ORDER_BENCH_MENU.categories],
    ingredients: [...(fixture.ingredients ?? []), ...ORDER_BENCH_MENU.ingredients],
    products: [...(fixture.products ?? []), ...ORDER_BENCH_MENU.products],
  } as SyncBody;
}

interface World {
  name: string;
  engine: EngineEnv;
  server: Server;
  venue: { id: string; key: string; slug: string };
  orderBody: string;
  /** The `updatedAt` of the venue's newest order after seeding, and of its tenth newest. */
  newest: string;
  tenthNewest: string;
}

async function setUpVenue(url: string, json: string): Promise<{ id: string; key: string; slug: string }> {
  const venue = await newVenue(url);
  await api(url, 'POST', '/v1/sync', venue.key, json);
  await api(url, 'POST', '/v1/publish', venue.key);
  const slug: string = (await api(url, 'GET', `/admin/v1/venues/${venue.id}`, ADMIN_TOKEN)).body.slug;
  return { ...venue, slug };
}

/** ORDERS_PER_VENUE orders (one line each) for every live venue, in one statement per table. */
async function seedOrders(e: EngineEnv): Promise<void> {
  const db = await e.openServerDb();
  try {
    await db.query(
      `insert into orders (venue_id, id, order_number, status, type, payment_method, currency, subtotal_amount, delivery_fee,
         discount_amount, total_amount, created_at, updated_at)
       select v.id, gen_random_uuid(), g::text, (array['new','confirmed','preparing','completed','cancelled'])[1 + g % 5], 'pickup', 'cash', 'EUR',
              1000 + g % 500, 0, 0, 1000 + g % 500,
              now() - interval '30 days' + g * interval '2 seconds',
              now() - interval '30 days' + g * interval '2 seconds' + (g % 7) * interval '1 second'
       from venues v cross join generate_series(1, $1::int) g
       where v.live_venue_id is null`,
      [ORDERS_PER_VENUE],
    );
    await db.query(
      `insert into order_items (venue_id, order_id, position, product_external_id, product_name, quantity, unit_price, total_price)
       select venue_id, id, 0, 'p1', 'Margherita', 1, subtotal_amount, subtotal_amount from orders`,
    );
    await db.query(
      `insert into order_clocks (venue_id, last_number, last_ts)
       select venue_id, count(*), max(updated_at) from orders group by venue_id
       on conflict (venue_id) do update set last_number = excluded.last_number, last_ts = excluded.last_ts`,
    );
    await db.query('analyze');
  } finally {
    await db.close();
  }
}

async function world(name: string, others: number, json: string): Promise<World> {
  const engine = await prepareEngine();
  const server = (await startCarta(engine, await freePort())).server;
  const started = performance.now();
  const venue = await setUpVenue(server.url, json);
  let next = 0;
  await Promise.all(
    Array.from({ length: SETUP_CONCURRENCY }, async () => {
      while (next < others) {
        next += 1;
        await setUpVenue(server.url, json);
        if (next % 100 === 0) log(`${name}: ${next} of ${others} other venues set up`);
      }
    }),
  );
  await seedOrders(engine);
  log(`${name}: ${others + 1} venue(s), ${(others + 1) * ORDERS_PER_VENUE} orders in ${round((performance.now() - started) / 1000)} s`);
  const menu = await api(server.url, 'GET', `/guest/v1/venues/${venue.slug}/menu`, '');
  const ordered = (menu.body.products as { name: string }[]).filter((p) => ORDER_BENCH_MENU.products.some((b) => b.name === p.name));
  const tail = await api(server.url, 'GET', '/v1/orders?limit=100', venue.key);
  const stamps = (tail.body.items as { updatedAt: string }[]).map((o) => o.updatedAt).sort();
  return {
    name,
    engine,
    server,
    venue,
    orderBody: orderBody(ordered as never),
    newest: stamps[stamps.length - 1],
    tenthNewest: stamps[Math.max(0, stamps.length - 10)],
  };
}

/** One measurement on a world's server (its process is the one pinned and charged). */
function on<T>(w: World, work: () => Promise<T>): Promise<T> {
  measured.carta = w.server.child.pid as number;
  return work();
}

async function databaseBytes(w: World): Promise<number> {
  const client = new pg.Client({ connectionString: w.engine.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>('select pg_database_size(current_database()) as bytes');
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}

interface Operation {
  name: string;
  /** A cost (ms per operation, or µs per request at the load's req/s): lower is better. */
  measure(w: World): Promise<{ cost: number; shown: string; p99?: number }>;
}

const OPERATIONS: Operation[] = [
  {
    name: 'no-op re-sync of 100 products (median wall time)',
    async measure(w) {
      const json = JSON.stringify(venueMenu());
      const runs: number[] = [];
      for (let i = 0; i < SYNC_RUNS; i += 1) runs.push((await api(w.server.url, 'POST', '/v1/sync', w.venue.key, json)).ms);
      const ms = median(runs);
      return { cost: ms, shown: `${round(ms)} ms` };
    },
  },
  {
    name: 'GET /v1/menu, 10 connections',
    async measure(w) {
      const r: Load = await on(w, () => load(`${w.server.url}/v1/menu`, { authorization: `Bearer ${w.venue.key}` }));
      return { cost: 1e6 / r.rps, shown: `${round(r.rps)} req/s` };
    },
  },
  {
    name: 'guest order (3 items with modifiers, Idempotency-Key), 20 guests',
    async measure(w) {
      const r = await on(w, () => placeOrders(w.server.url, w.venue.slug, w.orderBody, LOAD_SECONDS));
      return { cost: 1e6 / r.rps, shown: `${round(r.rps)} req/s, p99 ${r.p99} ms` };
    },
  },
  {
    name: 'GET /v1/orders?updatedSince (the ten newest), 10 connections',
    async measure(w) {
      const r = await on(w, () =>
        load(`${w.server.url}/v1/orders?updatedSince=${encodeURIComponent(w.tenthNewest)}`, { authorization: `Bearer ${w.venue.key}` }),
      );
      return { cost: 1e6 / r.rps, shown: `${round(r.rps)} req/s, p99 ${r.p99} ms`, p99: r.p99 };
    },
  },
];

export async function scaleBench(): Promise<void> {
  log(`carta bench --scale: ${VENUES} venues of ${PRODUCTS} products, ${VENUES * ORDERS_PER_VENUE} orders, on PostgreSQL`);
  const json = JSON.stringify(venueMenu());
  const worlds: World[] = [];
  try {
    worlds.push(await world('alone', 0, json));
    worlds.push(await world('crowded', VENUES - 1, json));
    const [alone, crowded] = worlds;

    // The poll target is measured before guest orders move the tail (both worlds alike).
    for (const op of [OPERATIONS[0], OPERATIONS[1], OPERATIONS[3], OPERATIONS[2]]) {
      const costs: Record<string, number[]> = { alone: [], crowded: [] };
      const p99s: number[] = [];
      for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
        for (const w of round_ % 2 === 0 ? [alone, crowded] : [crowded, alone]) {
          const r = await op.measure(w);
          costs[w.name].push(r.cost);
          if (w === crowded && r.p99 !== undefined) p99s.push(r.p99);
          log(`${op.name}, ${w.name}: ${r.shown}`);
        }
      }
      ratioMetric(
        `${op.name}: cost among ${VENUES} venues vs alone`,
        median(costs.crowded),
        median(costs.alone),
        op.name.includes('wall') ? 'ms' : 'µs/req',
        '<=',
        1.25,
      );
      if (p99s.length > 0) absoluteMetric(`${op.name}, among ${VENUES} venues: p99`, median(p99s), 'ms', '<=', 5, median(p99s) <= 5);
    }
    const bytes = await databaseBytes(crowded);
    const aloneBytes = await databaseBytes(alone);
    informational.push({
      name: `database size per venue (${VENUES} venues, ${PRODUCTS} products and ${ORDERS_PER_VENUE} orders each)`,
      value: round(bytes / VENUES / 1024),
      unit: 'KB',
      baseline: round(aloneBytes / 1024),
      ratio: null,
    });
  } finally {
    for (const w of worlds) {
      await stop(w.server.child);
      await w.engine.dispose();
    }
  }
  fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'bench/results/scale.json'),
    `${JSON.stringify({ venues: VENUES, startedAt: new Date().toISOString(), metrics, informational }, null, 2)}\n`,
  );
  printReport();
}
