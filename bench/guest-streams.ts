// Guests' live order pages on the order write path: 500 status pages (GET /guest/v1/venues/:slug/
// orders/:token/stream, one per waiting order, from ten addresses) open on one venue while 20
// guests order there. A write must not cost more with pages open than without: the venue's pages
// share one reader, which reads the orders a write changed once for all of them. Server CPU per
// order with the pages open is held to 1.3x of the same load with none, in alternating rounds.
// `npm run bench -- --guest-streams` runs only these figures on a fresh server.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { absoluteMetric, api, benchAlone, informational, log, median, pinned, quick, ratioMetric, round } from './harness.js';
import { untilStreams } from './boards.js';
import { guestOrderVenue, ORDER_GUESTS, orderBurst, type OrderBurst } from './orders.js';

const PAGES = 500;
// The server's cap is 50 per address: the pages come from 127.0.0.2 to 127.0.0.11 (all loopback).
const ADDRESSES = 10;
const ORDERS_PER_RUN = quick ? 1000 : 2000;
const ROUNDS = quick ? 3 : 5;
const TARGET = 1.3;

type Venue = Awaited<ReturnType<typeof guestOrderVenue>>;

/** One guest's status page: the events it received. */
class Page {
  events = 0;
  private readonly parser = createParser({ onEvent: () => (this.events += 1) });

  private constructor(private readonly response: http.IncomingMessage) {}

  /** Opens the stream from `address` and resolves once the order as it is came. */
  static open(url: string, path: string, address: string): Promise<Page> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${url}${path}/stream`, { localAddress: address, agent: false }, (response) => {
        response.setEncoding('utf8');
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`guest stream from ${address}: ${response.statusCode}`));
          return;
        }
        const page = new Page(response);
        response.on('data', (chunk: string) => {
          page.parser.feed(chunk);
          if (page.events > 0) resolve(page);
        });
        response.on('close', () => reject(new Error('guest stream closed before its first event')));
      });
      request.on('error', reject);
    });
  }

  close(): void {
    this.response.destroy();
  }
}

/** PAGES orders of the venue, left waiting (new): their ids and their status pages' paths. */
async function waitingOrders(url: string, venue: Venue): Promise<{ id: string; path: string }[]> {
  const orders: { id: string; path: string }[] = [];
  for (let i = 0; i < PAGES; i += 1) {
    const res = await fetch(`${url}/guest/v1/venues/${venue.slug}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: venue.body,
    });
    const body = (await res.json()) as { id: string };
    const location = res.headers.get('location');
    if (res.status !== 201 || !location) throw new Error(`placing a waiting order: ${res.status}`);
    orders.push({ id: body.id, path: new URL(location, url).pathname });
  }
  return orders;
}

async function openPages(url: string, paths: string[]): Promise<Page[]> {
  const pages: Page[] = [];
  // In batches, as guests arrive: a connection storm is not what is measured.
  for (let i = 0; i < paths.length; i += 50) {
    pages.push(...(await Promise.all(paths.slice(i, i + 50).map((p, j) => Page.open(url, p, `127.0.0.${2 + ((i + j) % ADDRESSES)}`)))));
  }
  await untilStreams(url, pages.length);
  return pages;
}

async function closePages(url: string, pages: Page[]): Promise<void> {
  for (const page of pages) page.close();
  await untilStreams(url, 0);
}

/** ORDERS_PER_RUN guest orders: server CPU per committed order, in µs, with what the writes woke (the pages' shared reader). */
const orderRun = (url: string, venue: Venue): Promise<OrderBurst> => orderBurst(url, venue, ORDERS_PER_RUN, { settle: () => sleep(200) });

/** The figures on a running server (the one `measured.carta` names). */
export async function guestStreamsBench(url: string): Promise<void> {
  const venue = await guestOrderVenue(url);
  const waiting = await waitingOrders(url, venue);
  const paths = waiting.map((o) => o.path);
  log(`guest streams: ${paths.length} waiting orders placed`);

  // Warm-up: the order path alone, then with the pages open.
  await orderRun(url, venue);
  await closePages(url, await openPages(url, paths));

  const pairs: { none: number; open: number }[] = [];
  let quiet = true;
  let before = await pinned(() => orderRun(url, venue), true);
  for (let r = 0; r < ROUNDS; r += 1) {
    const pages = await openPages(url, paths);
    let open: Awaited<ReturnType<typeof orderRun>>;
    try {
      open = await pinned(() => orderRun(url, venue), true);
    } finally {
      // No page's order changed: each holds its one first event, nothing more.
      quiet &&= pages.every((p) => p.events === 1);
      await closePages(url, pages);
    }
    const after = await pinned(() => orderRun(url, venue), true);
    const none = (before.cpuUs + after.cpuUs) / 2;
    pairs.push({ none, open: open.cpuUs });
    log(
      `guest streams round ${r + 1}: CPU per order ${round(open.cpuUs)} µs with ${PAGES} pages (${round(open.rps)} orders/s) vs ${round(before.cpuUs)} and ${round(after.cpuUs)} µs without`,
    );
    before = after;
  }

  // The pages still follow their orders: a change of one reaches its page.
  const pages = await openPages(url, paths.slice(0, 10));
  await api(url, 'PATCH', `/v1/orders/${waiting[0].id}/status`, venue.key, { status: 'confirmed' });
  let reached = false;
  for (let waited = 0; waited < 5000 && !reached; waited += 20) {
    reached = pages[0].events === 2 && pages.slice(1).every((p) => p.events === 1);
    if (!reached) await sleep(20);
  }
  await closePages(url, pages);

  const ratios = pairs.map((x) => x.open / x.none);
  const mid = pairs[ratios.indexOf(median(ratios))];
  log(
    `guest streams: CPU per order ratios ${ratios.map((x) => round(x, 2)).join(', ')}; pages quiet while other orders came: ${quiet ? 'yes' : 'no'}; a change reached its page: ${reached ? 'yes' : 'no'}`,
  );
  ratioMetric(
    `guest order, ${ORDER_GUESTS} guests: server CPU per order with ${PAGES} guest status pages open on the venue vs none (median of ${ROUNDS} rounds)`,
    mid.open,
    mid.none,
    'µs',
    '<=',
    TARGET,
    quiet && reached,
  );
  absoluteMetric(
    `a change of a followed order reached its page, and no other order's did: ${quiet && reached ? 'yes' : 'no'}`,
    quiet && reached ? 1 : 0,
    'checks',
    '==',
    1,
    quiet && reached,
  );
  informational.push({
    name: `server CPU per order that ${PAGES} guest status pages add (median of ${ROUNDS} rounds)`,
    value: round(median(pairs.map((x) => x.open - x.none))),
    unit: 'µs',
    baseline: null,
    ratio: null,
  });
}

/** `--guest-streams`: only these figures, on a fresh server. */
export const guestStreamsBenchAlone = (): Promise<void> => benchAlone(guestStreamsBench);
