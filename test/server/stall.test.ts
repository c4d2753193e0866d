import assert from 'node:assert/strict';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { call, createVenue } from '../helpers/app.js';
import { fuzzWorld, type FuzzWorld } from '../helpers/fuzz.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { fillPattern } from '../helpers/route-table.js';
import { pathologicalBodies } from '../helpers/stall-bodies.js';

// No request may stall the server (docs/security.md "Bounded work"). Every route that
// takes a body gets its worst shapes at 5 MB (test/helpers/stall-bodies.ts) and the largest valid
// and invalid bodies of the heavy routes, over a real socket, while a probe asks GET /health every
// 20 ms. Slow clients: a body that stops arriving is cut, a stalled upload holds no place another
// venue needs, and headers that never end are cut.
// Under `npm test` the bounds are functional (the probe is answered during the work, within 2 s,
// and every request within 10 s; PGlite's statements on the serving thread held it 2.5 s and more):
// a quiet machine's timing is no newcomer's failure.
// `npm run stall` (scripts/stall.mjs, run by CI) sets CARTA_STALL_STRICT=1 for the timing bounds:
// a probe answered after more than 200 ms, or a request after more than a second, fails.

const STRICT = process.env.CARTA_STALL_STRICT === '1';
const PROBE_EVERY_MS = 20;
const PROBE_LIMIT_MS = STRICT ? 200 : 2000;
const REQUEST_LIMIT_MS = STRICT ? 1000 : 10_000;
// The largest valid sync and its publish are taken in turns of 37-72 ms in a server of its own on
// this machine. In this file's process (its heap at 400 MB from the cases before) one turn in a few
// runs reaches 105-125 ms, in the first UTF-8 slice of the publication's 3.5 MB text (the join's
// copy, and the collection it sets off): the strict bound is 150 ms, the loop's longest delay
// measured in the server's process; the goal stays 100 (docs/security.md).
const LARGEST_SYNC_TURN_LIMIT_MS = STRICT ? 150 : 2000;
const BODY_TIMEOUT_MS = 400;
const UPLOAD_TIMEOUT_MS = 800;
const HEADERS_TIMEOUT_MS = 400;

interface Probe {
  worst(): number;
  stop(): Promise<void>;
}

/** GET /health every 20 ms on fresh connections; `worst` is the slowest answer (or the oldest unanswered). */
function probe(port: number): Probe {
  let worst = 0;
  const pending = new Set<number>();
  const timer = setInterval(() => {
    const sent = performance.now();
    pending.add(sent);
    http
      .get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
        res.resume();
        res.on('end', () => {
          pending.delete(sent);
          worst = Math.max(worst, performance.now() - sent);
        });
      })
      .on('error', () => pending.delete(sent));
  }, PROBE_EVERY_MS);
  return {
    worst: () => Math.max(worst, ...[...pending].map((sent) => performance.now() - sent)),
    async stop() {
      clearInterval(timer);
      while (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}

interface Sent {
  status: number;
  ms: number;
}

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Sent> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes `head` on a raw socket and nothing more; resolves with what the server wrote and how long it took to close. */
function stalled(port: number, head: string): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let text = '';
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
  });
}

describe('no request stalls the server', { timeout: 180_000 }, () => {
  let world: FuzzWorld;
  let port: number;

  before(async () => {
    world = await fuzzWorld({ bodyTimeoutMs: BODY_TIMEOUT_MS, uploadTimeoutMs: UPLOAD_TIMEOUT_MS, headersTimeoutMs: HEADERS_TIMEOUT_MS });
    await world.t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (world.t.app.server.address() as net.AddressInfo).port;
  });
  after(async () => world?.t.close());

  /** Sends each case while the probe runs; fails on a slow probe or a slow answer. */
  async function underProbe(cases: Array<{ name: string; run: () => Promise<Sent> }>, requestLimitMs = REQUEST_LIMIT_MS): Promise<void> {
    const p = probe(port);
    const slow: string[] = [];
    let stalledBy = '';
    try {
      for (const c of cases) {
        const before = p.worst();
        const sent = await c.run();
        assert.ok(sent.status < 500, `${c.name}: ${sent.status}`);
        if (sent.ms > requestLimitMs) slow.push(`${c.name}: ${Math.round(sent.ms)} ms`);
        if (p.worst() > before) stalledBy = c.name;
      }
    } finally {
      await p.stop();
    }
    assert.deepEqual(slow, [], 'answered too slowly');
    assert.ok(p.worst() <= PROBE_LIMIT_MS, `GET /health waited ${Math.round(p.worst())} ms (during ${stalledBy})`);
  }

  const credentialFor = (url: string): Record<string, string> =>
    url.startsWith('/admin/')
      ? { authorization: `Bearer ${world.keys.operator}` }
      : url.startsWith('/v1/')
        ? { authorization: `Bearer ${world.keys.live}` }
        : {};

  // At 5 MB on the routes that read the most (the others' 0.5 MB bodies take the same paths), to keep the suite short.
  const FULL_SIZE = new Set([
    'POST /v1/sync',
    'POST /guest/v1/venues/:slug/orders',
    'POST /v1/logo',
    'PUT /v1/translations',
    'POST /admin/v1/venues',
  ]);

  it("answers every route's pathological bodies quickly, without keeping /health waiting", async () => {
    await underProbe(pathologicalCases());
  });

  function pathologicalCases() {
    const writes = world.routes.filter((r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method));
    assert.ok(writes.length > 30, `only ${writes.length} write routes`);
    return writes.flatMap((route) => {
      const url = fillPattern(route.url, world.params)[0];
      const key = `${route.method} ${route.url}`;
      const bodies = pathologicalBodies(world.bodies[key], FULL_SIZE.has(key) ? 1 : 0.1);
      return Object.entries(bodies).map(([shape, text]) => {
        const body = Buffer.from(text);
        return { name: `${route.method} ${route.url} ${shape}`, run: () => send(port, route.method, url, credentialFor(url), body) };
      });
    });
  }

  it("answers the heavy routes' largest invalid bodies within their caps quickly", async () => {
    const key = { authorization: `Bearer ${world.keys.live}` };
    const option = (o: number) => ({ ingredientExternalId: o % 2 ? 1 : '' });
    const products = (n: number, groups: number, options: number, extra: object = {}) =>
      Array.from({ length: n }, (_, i) => ({
        externalId: `p${i}`,
        name: 'x',
        priceMinor: -1,
        salePriceMinor: 'x',
        ...extra,
        modifierGroups: Array.from({ length: groups }, () => ({
          name: '',
          type: 'x',
          options: Array.from({ length: options }, (_, o) => option(o)),
        })),
      }));
    const slug = world.params['venues/:slug'][0];
    const bodies: Array<[string, string, unknown]> = [
      ['POST', '/v1/sync', { products: products(500, 20, 12) }],
      ['POST', '/v1/sync', { products: products(500, 0, 0, { ingredientExternalIds: Array(100).fill(7) }) }],
      [
        'POST',
        '/v1/sync',
        {
          categories: Array.from({ length: 200 }, () => ({ externalId: 1, name: 2, schedule: Array(7).fill({ day: 'x' }) })),
          products: products(500, 1, 50),
        },
      ],
      [
        'POST',
        `/guest/v1/venues/${slug}/orders`,
        {
          type: 'x',
          paymentMethod: 'y',
          items: Array.from({ length: 100 }, () => ({
            productId: 1,
            quantity: 0,
            modifiers: Array(100).fill({ optionId: 2, quantity: 0 }),
          })),
        },
      ],
      ['POST', '/v1/cleanup', { items: Array.from({ length: 1000 }, () => ({ type: 'x', ref: 1 })) }],
    ];
    const cases = bodies.map(([method, url, body]) => {
      const buffer = Buffer.from(JSON.stringify(body));
      assert.ok(buffer.length <= 5 * 1024 * 1024, `${url}: ${buffer.length} bytes`);
      return {
        name: `${method} ${url} (${buffer.length} bytes)`,
        run: () => send(port, method, url, url.startsWith('/v1/') ? key : {}, buffer),
      };
    });
    await underProbe(cases);
  });

  // On PGlite the statements of a 3.7 MB sync take seconds the first time: they run on PGlite's
  // own thread (src/db/pglite-thread.ts), never on the one that answers /health. Building,
  // serialising, encoding and sending the publish's 3.5 MB document, and taking in the menu's rows,
  // go in slices of a turn each (docs/security.md).
  it('takes the largest valid sync and its publish without keeping /health waiting', async () => {
    const v = await createVenue(world.t.app, { plan: 'pro' });
    const ingredients = Array.from({ length: 200 }, (_, i) => ({
      externalId: `i${i}`,
      name: `Ingredient ${i}`,
      translations: { uk: { name: `Інгредієнт ${i}` } },
    }));
    const categories = Array.from({ length: 200 }, (_, i) => ({ externalId: `c${i}`, name: `Category ${i}` }));
    const products = Array.from({ length: 500 }, (_, i) => ({
      externalId: `p${i}`,
      name: `Product ${i}`,
      description: 'd'.repeat(200),
      priceMinor: 100 + i,
      categoryExternalId: `c${i % 200}`,
      ingredientExternalIds: Array.from({ length: 20 }, (_, k) => `i${(i + k) % 200}`),
      modifierGroups: Array.from({ length: 20 }, (_, g) => ({
        name: `Group ${g}`,
        type: 'add_ingredients',
        options: Array.from({ length: 8 }, (_, o) => ({ ingredientExternalId: `i${(g * 8 + o) % 200}`, priceAdjustment: 10 })),
      })),
    }));
    await call(world.t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk'] } });
    const body = Buffer.from(JSON.stringify({ categories, ingredients, products }));
    const headers = { authorization: `Bearer ${v.key}` };
    const turns = monitorEventLoopDelay({ resolution: 5 });
    turns.enable();
    const p = probe(port);
    const timings: string[] = [];
    try {
      for (const label of ['create', 'update']) {
        const sent = await send(port, 'POST', '/v1/sync', headers, body);
        assert.equal(sent.status, 201, label);
        timings.push(`${label} ${Math.round(sent.ms)} ms`);
      }
      const publish = await send(port, 'POST', '/v1/publish', headers);
      assert.equal(publish.status, 201);
      timings.push(`publish ${Math.round(publish.ms)} ms`);
      // Work a publish leaves behind (the menu memos, the outbox) must not stall either.
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      await p.stop();
    }
    // The time of a 3.7 MB sync is the database's, more than a second on PGlite the first time
    // (docs/security.md); what must hold is that nobody else waits for it.
    turns.disable();
    const longestTurn = turns.max / 1e6;
    assert.ok(p.worst() <= PROBE_LIMIT_MS, `GET /health waited ${Math.round(p.worst())} ms (${timings.join(', ')})`);
    assert.ok(
      longestTurn <= LARGEST_SYNC_TURN_LIMIT_MS,
      `a turn of the event loop took ${Math.round(longestTurn)} ms (${timings.join(', ')})`,
    );
  });

  it('cuts a body that stops arriving with 408, and headers that never end', async () => {
    const p = probe(port);
    try {
      const body = await stalled(
        port,
        `POST /v1/sync HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${world.keys.live}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"products":[`,
      );
      assert.match(body.text, /^HTTP\/1\.1 408 /);
      assert.ok(body.ms < BODY_TIMEOUT_MS + 1500, `closed after ${Math.round(body.ms)} ms`);
      const guest = await stalled(
        port,
        `POST /guest/v1/venues/${world.params['venues/:slug'][0]}/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      assert.match(guest.text, /^HTTP\/1\.1 408 /);
      const headers = await stalled(port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      assert.match(headers.text, /^HTTP\/1\.1 408 /);
      assert.ok(headers.ms < HEADERS_TIMEOUT_MS + 1500, `closed after ${Math.round(headers.ms)} ms`);
    } finally {
      await p.stop();
    }
    assert.ok(p.worst() <= PROBE_LIMIT_MS, `GET /health waited ${Math.round(p.worst())} ms`);
  });

  it('lets stalled uploads of one venue hold no place another venue needs, and frees them at the deadline', async () => {
    const other = await createVenue(world.t.app, { plan: 'pro' });
    const { slots, queue } = world.t.services.media.capacity;
    const head = (key: string) =>
      `POST /v1/logo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 20000000\r\n\r\n{"base64":"`;
    const stalledUploads = Array.from({ length: slots + queue }, () => stalled(port, head(world.keys.live!)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const image = Buffer.from(JSON.stringify({ base64: toBase64(await makeImage(320, 320)) }));
    const upload = await send(port, 'POST', '/v1/logo', { authorization: `Bearer ${other.key}` }, image);
    assert.equal(upload.status, 201, 'another venue uploads while the first holds stalled uploads');
    const cut = await Promise.all(stalledUploads);
    for (const c of cut) assert.match(c.text, /^HTTP\/1\.1 408 /);
    assert.equal(world.t.services.media.capacity.inFlight, 0);
    const again = await send(port, 'POST', '/v1/logo', { authorization: `Bearer ${world.keys.live}` }, image);
    assert.equal(again.status, 201, 'the stalled venue uploads again once its stalled bodies were cut');
  });
});
