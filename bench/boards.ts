// Console boards on the order write path: 50 boards open on one venue while 20 guests
// order. Every order must reach every board, and the server's CPU per order is held to 1.5x of the
// same load with no board open, measured on the same server in alternating rounds. The boards are
// real console sessions (invited, password set and signed in through the console's forms) reading
// GET /console/api/orders/stream on connections of their own.
// `npm run bench -- --boards` runs only these figures on a fresh server.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { absoluteMetric, ADMIN_TOKEN, api, benchAlone, informational, log, median, pinned, quick, ratioMetric, round } from './harness.js';
import { guestOrderVenue, ORDER_GUESTS, orderBurst, placeOrders } from './orders.js';

const BOARDS = 50;
// Each board has a session of its own, signed in as one of a few members (a venue's tablets and phones).
const MEMBERS = 5;
const PASSWORD = 'bench boards password';
// A fixed count per run, so both sides of a round place the same orders.
const ORDERS_PER_RUN = quick ? 1000 : 2000;
// The cost of 50 boards swings between rounds as the webhook endpoint's does: the median of the rounds' ratios.
const BOARD_ROUNDS = quick ? 3 : 5;
const DRAIN_TIMEOUT_MS = 30_000;

type Venue = Awaited<ReturnType<typeof guestOrderVenue>>;

/** The value of the cookie `name` a response sets, if it sets one. */
function cookieOf(headers: Headers, name: string): string | undefined {
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(';');
    if (pair.startsWith(`${name}=`)) return pair.slice(name.length + 1);
  }
  return undefined;
}

/** A console form as a browser fills it: GET for the `carta_csrf` cookie and the hidden field, then POST. */
async function submitForm(url: string, page: string, fields: Record<string, string>): Promise<Response> {
  const form = await fetch(`${url}${page}`);
  const html = await form.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  const cookie = cookieOf(form.headers, 'carta_csrf');
  if (form.status !== 200 || !csrf || !cookie) throw new Error(`GET ${page}: ${form.status}, no form with a CSRF cookie`);
  const res = await fetch(`${url}${page}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `carta_csrf=${cookie}` },
    body: new URLSearchParams({ csrf, ...fields }).toString(),
  });
  await res.arrayBuffer();
  return res;
}

/** BOARDS session tokens: MEMBERS staff members invited, their passwords set, each signed in BOARDS / MEMBERS times. */
async function boardSessions(url: string, venueId: string): Promise<string[]> {
  const sessions: string[] = [];
  for (let m = 0; m < MEMBERS; m += 1) {
    const email = `board${m}@bench.example.com`;
    const invited = await api(url, 'POST', `/admin/v1/venues/${venueId}/staff`, ADMIN_TOKEN, { email, name: `Board ${m}`, role: 'staff' });
    const set = await submitForm(url, new URL(invited.body.inviteUrl as string).pathname, { password: PASSWORD });
    if (set.status !== 200) throw new Error(`setting ${email}'s password: ${set.status}`);
    for (let s = 0; s < BOARDS / MEMBERS; s += 1) {
      const signIn = await submitForm(url, '/console/sign-in', { email, password: PASSWORD });
      const token = cookieOf(signIn.headers, 'carta_session');
      if (signIn.status !== 303 || !token) throw new Error(`signing ${email} in: ${signIn.status}`);
      sessions.push(token);
    }
  }
  return sessions;
}

/** One board's stream: when each `order.created` arrived, by the event's id (the order's createdAt). */
class BoardReader {
  readonly created = new Map<string, number>();
  /** `order.created` events for an order already seen. */
  duplicates = 0;
  private arrival = 0;
  private readonly parser = createParser({
    onEvent: (event) => {
      if (event.event !== 'order.created' || event.id === undefined) return;
      if (this.created.has(event.id)) this.duplicates += 1;
      else this.created.set(event.id, this.arrival);
    },
    onRetry: () => this.started(),
  });

  private constructor(
    private readonly response: http.IncomingMessage,
    private readonly started: () => void,
  ) {}

  /** Opens the stream and resolves once the board has started (its `retry:` line came). */
  static open(url: string, session: string): Promise<BoardReader> {
    return new Promise((resolve, reject) => {
      const request = http.get(
        `${url}/console/api/orders/stream`,
        { headers: { cookie: `carta_session=${session}` }, agent: false },
        (response) => {
          response.setEncoding('utf8');
          if (response.statusCode !== 200) {
            let body = '';
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => reject(new Error(`board stream: ${response.statusCode} ${body.slice(0, 200)}`)));
            return;
          }
          const board = new BoardReader(response, () => resolve(board));
          response.on('data', (chunk: string) => {
            board.arrival = performance.now();
            board.parser.feed(chunk);
          });
          response.on('close', () => reject(new Error('board stream closed before it started')));
        },
      );
      request.on('error', reject);
    });
  }

  holdsAll(orders: Iterable<string>): boolean {
    for (const id of orders) if (!this.created.has(id)) return false;
    return true;
  }

  close(): void {
    this.response.destroy();
  }
}

/** Streams (API streams and boards) open on the server, as GET /metrics counts them. */
async function streamsOpen(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const value = /^carta_order_streams_open (\S+)$/m.exec(text)?.[1];
  if (value === undefined) throw new Error('GET /metrics does not count open streams (METRICS off?)');
  return Number(value);
}

export async function untilStreams(url: string, count: number): Promise<void> {
  const started = performance.now();
  while ((await streamsOpen(url)) !== count) {
    if (performance.now() - started > 10_000) throw new Error(`the server did not reach ${count} open streams`);
    await sleep(20);
  }
}

async function openBoards(url: string, sessions: string[]): Promise<BoardReader[]> {
  const boards = await Promise.all(sessions.map((session) => BoardReader.open(url, session)));
  await untilStreams(url, boards.length);
  return boards;
}

async function closeBoards(url: string, boards: BoardReader[]): Promise<void> {
  for (const board of boards) board.close();
  await untilStreams(url, 0);
}

interface Run {
  /** When each acknowledged order's 201 arrived, by its createdAt. */
  acknowledged: Map<string, number>;
  /** Orders the venue gained during the run. */
  committed: number;
  rps: number;
  non2xx: number;
  /** Server CPU per committed order, in µs: the load and, with boards, until every board holds every order. */
  cpuUs: number;
  /** With boards: whether every board held every acknowledged order within DRAIN_TIMEOUT_MS. */
  drained: boolean;
}

/** ORDERS_PER_RUN guest orders (as placeOrders), each 201 timed on arrival, then until every board holds them. */
async function guestOrders(url: string, venue: Venue, boards: BoardReader[]): Promise<Run> {
  const acknowledged = new Map<string, number>();
  let drained = true;
  const burst = await orderBurst(url, venue, ORDERS_PER_RUN, {
    onCreated: (body) => acknowledged.set((JSON.parse(body) as { createdAt: string }).createdAt, performance.now()),
    settle: async () => {
      const started = performance.now();
      while (boards.length > 0 && !boards.every((b) => b.holdsAll(acknowledged.keys()))) {
        if (performance.now() - started > DRAIN_TIMEOUT_MS) {
          drained = false;
          return;
        }
        await sleep(5);
      }
    },
  });
  return { ...burst, acknowledged, drained };
}

/** Whether every board holds every order of the run, once, and nothing else: counted per board. */
function everyOrderOnEveryBoard(run: Run, boards: BoardReader[]): { complete: boolean; short: number } {
  let short = 0;
  for (const board of boards) {
    if (!board.holdsAll(run.acknowledged.keys()) || board.created.size !== run.committed || board.duplicates > 0) short += 1;
  }
  return { complete: short === 0 && run.acknowledged.size === run.committed && run.non2xx === 0, short };
}

/** The delays, in ms, from each order's 201 to its arrival on each board. */
function delaysOf(run: Run, boards: BoardReader[], into: number[]): void {
  for (const board of boards) {
    for (const [id, at] of run.acknowledged) {
      const arrived = board.created.get(id);
      if (arrived !== undefined) into.push(arrived - at);
    }
  }
}

/** The figures on a running server (the one `measured.carta` names). */
export async function boardsBench(url: string): Promise<void> {
  const venue = await guestOrderVenue(url);
  const sessions = await boardSessions(url, venue.id);
  log(`boards: ${sessions.length} console sessions of ${MEMBERS} members signed in`);

  // Warm-up: the order path alone, then with the boards open (the feed's code compiled).
  await placeOrders(url, venue.slug, venue.body, 1);
  const warm = await openBoards(url, sessions);
  await placeOrders(url, venue.slug, venue.body, 1);
  await closeBoards(url, warm);

  // Runs alternate, none first and last: each run with the boards is held against the mean of the
  // runs without on either side of it, so a drift falls on both sides. It does drift: on PGlite a
  // guest order costs more as the orders table grows (see docs/performance.md). The server is
  // pinned to one core and this process (the guests and the boards) to the other.
  const pairs: { none: { cpuUs: number; rps: number }; boards: Run }[] = [];
  const delays: number[] = [];
  let complete = true;
  let short = 0;
  let before = await pinned(() => guestOrders(url, venue, []), true);
  for (let r = 0; r < BOARD_ROUNDS; r += 1) {
    const boards = await openBoards(url, sessions);
    let open: Run;
    try {
      open = await pinned(() => guestOrders(url, venue, boards), true);
    } finally {
      await closeBoards(url, boards);
    }
    const reached = everyOrderOnEveryBoard(open, boards);
    complete &&= reached.complete && open.drained;
    short += reached.short;
    delaysOf(open, boards, delays);
    const after = await pinned(() => guestOrders(url, venue, []), true);
    const none = { cpuUs: (before.cpuUs + after.cpuUs) / 2, rps: (before.rps + after.rps) / 2 };
    pairs.push({ none, boards: open });
    log(
      `boards round ${r + 1}: CPU per order ${round(open.cpuUs)} µs with ${BOARDS} boards (${round(open.rps)} orders/s) vs ${round(before.cpuUs)} and ${round(after.cpuUs)} µs without (${round(before.rps)} and ${round(after.rps)} orders/s)`,
    );
    before = after;
  }

  const ratios = pairs.map((x) => x.boards.cpuUs / x.none.cpuUs);
  const mid = pairs[ratios.indexOf(median(ratios))];
  delays.sort((a, b) => a - b);
  const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(delays.length * q))] ?? Number.NaN;
  log(
    `boards: CPU per order ratios ${ratios.map((x) => round(x, 2)).join(', ')}; every order on every board: ${complete ? 'yes' : `no (${short} board runs short)`}; delay from the 201 p50 ${round(at(0.5), 2)} ms, p99 ${round(at(0.99), 2)} ms`,
  );
  ratioMetric(
    `guest order, ${ORDER_GUESTS} guests: server CPU per order with ${BOARDS} console boards open on the venue vs none (median of ${BOARD_ROUNDS} rounds)`,
    mid.boards.cpuUs,
    mid.none.cpuUs,
    'µs',
    '<=',
    1.5,
    complete,
  );
  const held = BOARD_ROUNDS * BOARDS - short;
  absoluteMetric(
    `every order of the ${BOARD_ROUNDS} runs reached each of the ${BOARDS} boards once: ${complete ? 'yes' : 'no'}`,
    held,
    'board runs',
    '==',
    'all',
    complete,
  );
  const costs = pairs.map((x) => x.boards.cpuUs - x.none.cpuUs);
  informational.push({
    name: `server CPU per order that ${BOARDS} boards add (median of ${BOARD_ROUNDS} rounds)`,
    value: round(median(costs)),
    unit: 'µs',
    baseline: null,
    ratio: null,
  });
  informational.push({
    name: `guest orders/s, ${ORDER_GUESTS} guests, with ${BOARDS} boards open vs none (the median round)`,
    value: round(mid.boards.rps),
    unit: 'orders/s',
    baseline: round(mid.none.rps),
    ratio: round(mid.boards.rps / mid.none.rps, 3),
  });
  informational.push({
    name: `order.created from the order's 201 to its arrival on a board, ${BOARDS} boards: p50`,
    value: round(at(0.5), 2),
    unit: 'ms',
    baseline: null,
    ratio: null,
  });
  informational.push({
    name: `order.created from the order's 201 to its arrival on a board, ${BOARDS} boards: p99`,
    value: round(at(0.99), 2),
    unit: 'ms',
    baseline: null,
    ratio: null,
  });
}

/** `--boards`: only these figures, on a fresh server. */
export const boardsBenchAlone = (): Promise<void> => benchAlone(boardsBench);
