import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/types.js';
import { buildApp } from '../../src/app.js';
import { call, startApp, type TestApp } from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { injectBounded } from '../helpers/inject-bounded.js';
import { fillPattern, routeTable } from '../helpers/route-table.js';
import { canariesOf, populate, snapshot, strings, type Images, type Refs, type Tenant } from '../helpers/tenant-fixture.js';

/*
 * The tenant-isolation matrix: every /v1 route of the router's own table, called with
 * every kind of credential, on venue A's real ids and externalIds. The hand-written
 * tenant-isolation.test.ts pins the behaviours one by one; this file makes sure no route is left out.
 * A route added without an entry in ROUTES fails the first test: add it there.
 */

// ---- the route table's entries -------------------------------------------------------------------

interface Outcome {
  status: number;
  /** Asserted when set (the expected error code). */
  code?: string;
  /** Asserted when set: only where the message is fixed and there is no code (401s, order 404). */
  message?: string;
}

interface RouteCase {
  /** The success status for the venue's own live key (and for its read-only key on reads). */
  ok: number;
  /** What another tenant gets: another venue's live key, and the venue's own test key (its sandbox). */
  foreign: Outcome;
  /** Served to anyone with the same answer (no key needed). */
  public?: boolean;
  query?: string;
  body?: (r: Refs, images: Images) => unknown;
}

const ok = (status: number): Outcome => ({ status });
const notFound = (code: string): Outcome => ({ status: 404, code });
const ORDER_NOT_FOUND: Outcome = { status: 404, message: 'Order not found' };

/**
 * Every /v1 route, keyed by method and pattern as the router holds them (HEAD follows its GET).
 * Sample bodies are valid for the owner and point at the owner's data, so for another tenant they
 * are cross-tenant references. The owner runs destructive calls last, children first.
 */
const ROUTES: Record<string, RouteCase> = {
  'GET /v1/openapi.json': { ok: 200, foreign: ok(200), public: true },
  'GET /v1/reference': { ok: 200, foreign: ok(200) },
  'GET /v1/audit-log': { ok: 200, foreign: ok(200), query: '?limit=100' },

  'POST /v1/sync': {
    ok: 201,
    foreign: ok(201),
    body: (r) => ({
      products: [
        {
          externalId: 'matrix-sync',
          name: 'Matrix sync',
          priceMinor: 100,
          categoryExternalId: r.mainsExternalId,
          ingredientExternalIds: [r.cheeseExternalId],
        },
      ],
    }),
  },
  'GET /v1/menu': { ok: 200, foreign: ok(200) },
  'POST /v1/publish': { ok: 201, foreign: ok(201) },
  'POST /v1/cleanup': {
    ok: 201,
    foreign: ok(201),
    body: (r) => ({
      items: [
        { type: 'product', ref: r.frozenId },
        { type: 'category', ref: r.spareCategoryExternalId },
        { type: 'ingredient', ref: r.spareIngredientId },
      ],
    }),
  },
  'GET /v1/publications': { ok: 200, foreign: ok(200) },
  'GET /v1/publications/:id': { ok: 200, foreign: notFound('PUBLICATION_NOT_FOUND') },
  // The sandbox has published nothing: draft against draft answers every credential alike.
  'GET /v1/menu/diff': { ok: 200, foreign: ok(200), query: '?from=draft' },
  'POST /v1/publications/:id/restore': { ok: 200, foreign: notFound('PUBLICATION_NOT_FOUND'), body: () => ({ publish: false }) },
  'GET /v1/products/:ref': { ok: 200, foreign: notFound('PRODUCT_NOT_FOUND') },
  'PATCH /v1/products/:ref': { ok: 200, foreign: notFound('PRODUCT_NOT_FOUND'), body: () => ({ description: 'Matrix description' }) },
  'DELETE /v1/products/:ref': { ok: 200, foreign: notFound('PRODUCT_NOT_FOUND') },
  'POST /v1/products/:ref/image': { ok: 201, foreign: notFound('PRODUCT_NOT_FOUND'), body: (_r, images) => ({ base64: images.square }) },
  'DELETE /v1/products/:ref/image': { ok: 200, foreign: notFound('PRODUCT_NOT_FOUND') },

  'GET /v1/settings': { ok: 200, foreign: ok(200) },
  'PATCH /v1/settings': { ok: 200, foreign: ok(200), body: () => ({ timezone: 'Europe/Warsaw' }) },
  'POST /v1/logo': { ok: 201, foreign: ok(201), body: (_r, images) => ({ base64: images.square }) },
  'DELETE /v1/logo': { ok: 200, foreign: ok(200) },
  'PUT /v1/translations': {
    ok: 200,
    foreign: ok(200),
    body: (r) => ({
      products: [{ ref: r.burgerId, translations: { uk: { name: 'Matrix uk' } } }],
      categories: [{ ref: r.mainsExternalId, translations: { uk: { name: 'Matrix uk' } } }],
      ingredients: [{ ref: r.cheeseExternalId, translations: { uk: { name: 'Matrix uk' } } }],
      modifierGroups: [{ id: r.burgerGroupId, translations: { uk: { name: 'Matrix uk' } } }],
      banners: [{ id: r.bannerId, translations: { uk: { title: 'Matrix uk' } } }],
    }),
  },
  // Sold-out marks: another tenant's refs are unknown refs, a 400 that writes nothing.
  'GET /v1/availability': { ok: 200, foreign: ok(200) },
  'PUT /v1/availability': {
    ok: 200,
    foreign: { status: 400, message: 'Validation failed' },
    body: (r) => ({
      products: [
        { ref: r.burgerId, available: false },
        { ref: r.sodaExternalId, available: true },
      ],
      ingredients: [{ ref: r.cheeseExternalId, available: false }],
    }),
  },

  'GET /v1/orders': { ok: 200, foreign: ok(200), query: '?limit=100' },
  // Read for a moment from the venue's first order on (injectBounded): another tenant's stream shows none of A's.
  'GET /v1/orders/stream': { ok: 200, foreign: ok(200), query: '?updatedSince=2000-01-01T00:00:00Z' },
  'GET /v1/orders/:id': { ok: 200, foreign: ORDER_NOT_FOUND },
  'PATCH /v1/orders/:id/status': { ok: 200, foreign: ORDER_NOT_FOUND, body: () => ({ status: 'confirmed' }) },

  'GET /v1/banners': { ok: 200, foreign: ok(200) },
  // Another tenant's banner may not point at A's product.
  'POST /v1/banners': {
    ok: 201,
    foreign: notFound('PRODUCT_NOT_FOUND'),
    body: (r) => ({ title: 'Matrix banner', productRef: r.burgerId }),
  },
  'GET /v1/banners/:id': { ok: 200, foreign: notFound('BANNER_NOT_FOUND') },
  'PATCH /v1/banners/:id': { ok: 200, foreign: notFound('BANNER_NOT_FOUND'), body: () => ({ subtitle: 'Matrix subtitle' }) },
  'DELETE /v1/banners/:id': { ok: 200, foreign: notFound('BANNER_NOT_FOUND') },
  'POST /v1/banners/:id/image': { ok: 201, foreign: notFound('BANNER_NOT_FOUND'), body: (_r, images) => ({ base64: images.wide }) },
  'DELETE /v1/banners/:id/image': { ok: 200, foreign: notFound('BANNER_NOT_FOUND') },

  'GET /v1/promotions': { ok: 200, foreign: ok(200) },
  'POST /v1/promotions': { ok: 201, foreign: ok(201), body: () => ({ name: 'Matrix deal' }) },
  'GET /v1/promotions/:id': { ok: 200, foreign: notFound('PROMOTION_NOT_FOUND') },
  'PATCH /v1/promotions/:id': { ok: 200, foreign: notFound('PROMOTION_NOT_FOUND'), body: () => ({ description: 'Matrix description' }) },
  'DELETE /v1/promotions/:id': { ok: 200, foreign: notFound('PROMOTION_NOT_FOUND') },
  // Items are reached through their promotion, which is looked up first.
  'GET /v1/promotions/:id/items': { ok: 200, foreign: notFound('PROMOTION_NOT_FOUND') },
  'POST /v1/promotions/:id/items': {
    ok: 201,
    foreign: notFound('PROMOTION_NOT_FOUND'),
    body: (r) => ({ productRef: r.sodaExternalId, promoPriceMinor: 250 }),
  },
  'GET /v1/promotions/:id/items/:itemId': { ok: 200, foreign: notFound('PROMOTION_NOT_FOUND') },
  'PATCH /v1/promotions/:id/items/:itemId': { ok: 200, foreign: notFound('PROMOTION_NOT_FOUND'), body: () => ({ promoPriceMinor: 123 }) },
  'DELETE /v1/promotions/:id/items/:itemId': { ok: 200, foreign: notFound('PROMOTION_NOT_FOUND') },

  'GET /v1/tables': { ok: 200, foreign: ok(200) },
  'POST /v1/tables': { ok: 201, foreign: ok(201), body: () => ({ name: 'Matrix table' }) },
  'GET /v1/tables/qr-sheet.svg': { ok: 200, foreign: ok(200) },
  'GET /v1/tables/:id': { ok: 200, foreign: notFound('TABLE_NOT_FOUND') },
  'PATCH /v1/tables/:id': { ok: 200, foreign: notFound('TABLE_NOT_FOUND'), body: () => ({ zone: 'Matrix zone' }) },
  'DELETE /v1/tables/:id': { ok: 200, foreign: notFound('TABLE_NOT_FOUND') },
  'POST /v1/tables/:id/regenerate-token': { ok: 201, foreign: notFound('TABLE_NOT_FOUND') },
  'GET /v1/tables/:id/qr.svg': { ok: 200, foreign: notFound('TABLE_NOT_FOUND') },
  'GET /v1/tables/:id/qr.png': { ok: 200, foreign: notFound('TABLE_NOT_FOUND') },

  'GET /v1/webhooks': { ok: 200, foreign: ok(200) },
  'POST /v1/webhooks': { ok: 201, foreign: ok(201), body: () => ({ url: 'https://matrix.example.com/hooks', events: ['menu.published'] }) },
  'GET /v1/webhooks/:id': { ok: 200, foreign: notFound('WEBHOOK_NOT_FOUND') },
  'PATCH /v1/webhooks/:id': {
    ok: 200,
    foreign: notFound('WEBHOOK_NOT_FOUND'),
    body: () => ({ description: 'Matrix description', enabled: false }),
  },
  'DELETE /v1/webhooks/:id': { ok: 204, foreign: notFound('WEBHOOK_NOT_FOUND') },
  'POST /v1/webhooks/:id/rotate-secret': { ok: 200, foreign: notFound('WEBHOOK_NOT_FOUND') },
  'POST /v1/webhooks/:id/test': { ok: 202, foreign: notFound('WEBHOOK_NOT_FOUND') },
  'GET /v1/webhooks/:id/deliveries': { ok: 200, foreign: notFound('WEBHOOK_NOT_FOUND') },
  'POST /v1/webhooks/:id/deliveries/:deliveryId/retry': { ok: 202, foreign: notFound('WEBHOOK_NOT_FOUND') },
};

/** A route's entry; HEAD is served by its GET's handler and answers the same status. */
function caseOf(route: string): RouteCase | undefined {
  return ROUTES[route] ?? (route.startsWith('HEAD ') ? ROUTES[`GET ${route.slice(5)}`] : undefined);
}

/** Every parameter the /v1 patterns use, filled with the victim's refs (products by externalId and by id). */
function paramValues(r: Refs): Record<string, string[]> {
  return {
    'products/:ref': [r.burgerExternalId, r.friesId],
    'banners/:id': [r.bannerId],
    'promotions/:id': [r.promotionId],
    'items/:itemId': [r.itemId],
    'tables/:id': [r.tableId],
    'webhooks/:id': [r.webhookId],
    'deliveries/:deliveryId': [r.deliveryId],
    'orders/:id': [r.orderId],
    'publications/:id': [r.publicationId],
  };
}

// ---- the credentials -------------------------------------------------------------------------------

const CREDENTIALS = ['other venue', 'own test', 'read-only', 'revoked', 'no key', 'malformed', 'own live'] as const;
type Credential = (typeof CREDENTIALS)[number];

const READS = new Set(['GET', 'HEAD']);

function keyOf(credential: Credential, a: Tenant, b: Tenant): string | undefined {
  switch (credential) {
    case 'own live':
      return a.venue.key;
    case 'own test':
      return a.testKey;
    case 'other venue':
      return b.venue.key;
    case 'read-only':
      return a.readOnlyKey;
    case 'revoked':
      return a.revokedKey;
    case 'no key':
      return undefined;
    case 'malformed':
      // A real key with its prefix bent: neither carta_live_ nor carta_test_.
      return a.venue.key.replace('carta_live_', 'carta_lve_');
  }
}

function expectedOutcome(entry: RouteCase, method: string, credential: Credential): Outcome {
  if (entry.public) return ok(entry.ok);
  switch (credential) {
    case 'own live':
      return ok(entry.ok);
    case 'read-only':
      return READS.has(method) ? ok(entry.ok) : { status: 403, code: 'READ_ONLY_KEY' };
    // A test key acts on the venue's sandbox twin, a tenant of its own: the live
    // venue's ids are as foreign to it as to another venue.
    case 'other venue':
    case 'own test':
      return entry.foreign;
    case 'revoked':
      return { status: 401, message: 'Invalid API key' };
    case 'no key':
      return { status: 401, message: 'Missing API key' };
    case 'malformed':
      return { status: 401, message: 'Invalid API key format' };
  }
}

/** Whether the caller may see A's data: A's own live keys (the read-only one on reads only). */
function entitled(credential: Credential, method: string): boolean {
  return credential === 'own live' || (credential === 'read-only' && READS.has(method));
}

// ---- probes, calls and checks ----------------------------------------------------------------------

/** One call of the matrix: a route with its parameters filled and its sample body. */
interface Probe {
  route: string;
  method: string;
  url: string;
  body: unknown;
  entry: RouteCase;
}

/** Reads first, then writes, then deletes with the deepest path first (an item before its promotion). */
function runOrder(probes: Probe[]): Probe[] {
  const rank = (p: Probe) => (READS.has(p.method) ? 0 : p.method === 'DELETE' ? 2 : 1);
  const depth = (p: Probe) => p.url.split('/').length;
  return probes
    .map((p, i) => ({ p, i }))
    .sort((x, y) => rank(x.p) - rank(y.p) || (rank(x.p) === 2 ? depth(y.p) - depth(x.p) : 0) || x.i - y.i)
    .map(({ p }) => p);
}

function send(app: App, probe: Probe, key: string | undefined): Promise<LightMyRequestResponse> {
  return injectBounded(app, {
    method: probe.method as InjectOptions['method'],
    url: probe.url,
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(probe.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: probe.body === undefined ? undefined : JSON.stringify(probe.body),
  });
}

/** What a request itself carries (path segments, query values, body strings): a response may echo these. */
function echoes(probe: Probe): string[] {
  const url = new URL(probe.url, 'http://carta.test');
  return [...url.pathname.split('/').map(decodeURIComponent), ...url.searchParams.values(), ...strings(probe.body)].filter(
    (s) => s.length >= 3,
  );
}

function checkOutcome(res: LightMyRequestResponse, expected: Outcome, method: string): string | null {
  const got = `${res.statusCode} ${res.body.slice(0, 300)}`;
  if (res.statusCode !== expected.status) return `expected ${expected.status}, got ${got}`;
  if (method === 'HEAD') return res.body === '' ? null : `HEAD answered a body: ${got}`;
  if (expected.code === undefined && expected.message === undefined) return null;
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `expected a JSON error, got ${got}`;
  }
  if (expected.code !== undefined && body.code !== expected.code) return `expected code ${expected.code}, got ${got}`;
  if (expected.message !== undefined && body.message !== expected.message) return `expected message ${expected.message}, got ${got}`;
  return null;
}

/**
 * The canaries in a response (body and headers) once what the request itself carried, and the
 * `allowed` strings, are taken out; described for a failure message, or null when there are none.
 */
function leaks(res: LightMyRequestResponse, probe: Probe, canaries: string[], allowed: string[] = []): string | null {
  let text = `${res.body}\n${JSON.stringify(res.headers)}`;
  for (const echo of [...echoes(probe), ...allowed].sort((x, y) => y.length - x.length)) text = text.split(echo).join('');
  const found = canaries.filter((c) => text.includes(c));
  if (found.length === 0) return null;
  return `leaked ${found.length} strings: ${found.slice(0, 8).join(', ')}${found.length > 8 ? ', ...' : ''}`;
}

// ---- the matrix ------------------------------------------------------------------------------------

// ---- memos after writes ---------------------------------------------------------------------------

/** The reads memos and caches serve (a venue's menus, reference, lists, settings, guest menu). */
const MEMOISED_READS = [
  '/v1/availability',
  '/v1/menu',
  '/v1/menu?version=published',
  '/v1/reference',
  '/v1/orders?limit=100',
  '/v1/settings',
  '/v1/banners',
  '/v1/promotions',
  '/v1/tables',
];

/** What each memoised read answers a tenant, as status and body. */
async function memoisedReads(app: App, tenant: Tenant): Promise<string[]> {
  const urls = [
    ...MEMOISED_READS.map((url) => ({ url, key: tenant.venue.key })),
    { url: `/guest/v1/venues/${tenant.venue.slug}/menu`, key: undefined },
  ];
  const out: string[] = [];
  for (const { url, key } of urls) {
    const res = await app.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {} });
    out.push(`${url} ${res.statusCode} ${res.body}`);
  }
  return out;
}

describe('tenant-isolation matrix: every /v1 route x every credential', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let images: Images;
  let v1Routes: string[];
  let probes: Probe[];
  let canaries: string[];

  before(async () => {
    t = await startApp();
    images = { square: toBase64(await makeImage(320, 320)), wide: toBase64(await makeImage(960, 320)) };
    a = await populate(t.app, `va${randomBytes(5).toString('hex')}`, `+38044${randomInt(1_000_000, 10_000_000)}`, images);
    b = await populate(t.app, `vb${randomBytes(5).toString('hex')}`, `+38067${randomInt(1_000_000, 10_000_000)}`, images);
    // Each venue holds sold-out marks (by name in GET /v1/availability, on its menus and guest menu),
    // so a read or write that crossed tenants would show or change them.
    for (const tenant of [a, b]) {
      const marked = await call(t.app, 'PUT', '/v1/availability', {
        key: tenant.venue.key,
        body: {
          products: [{ ref: tenant.refs.friesId, available: false }],
          ingredients: [{ ref: tenant.refs.cheeseExternalId, available: false }],
        },
      });
      assert.equal(marked.status, 200, JSON.stringify(marked.body));
    }
    v1Routes = routeTable(t.app)
      .filter((r) => r.url.startsWith('/v1/'))
      .map((r) => `${r.method} ${r.url}`);
    const values = paramValues(a.refs);
    probes = v1Routes.flatMap((route) => {
      const entry = caseOf(route);
      if (!entry) return [];
      const [method, pattern] = route.split(' ');
      return fillPattern(pattern, values).map((url) => ({
        route,
        method,
        url: url + (entry.query ?? ''),
        body: entry.body?.(a.refs, images),
        entry,
      }));
    });
    canaries = canariesOf(a, await snapshot(t.app, a));
  });
  after(() => t.close());

  it('has an entry for every /v1 route the router serves, and none for a route that is gone', async () => {
    const uncovered = v1Routes.filter((route) => !caseOf(route));
    assert.deepEqual(uncovered, [], 'add these routes to ROUTES in test/suites/tenant-matrix.test.ts');
    const stale = Object.keys(ROUTES).filter((route) => !v1Routes.includes(route));
    assert.deepEqual(stale, [], 'these ROUTES entries match no served route');
    // The table read from the router agrees with the resource index clients see.
    const reference = await call(t.app, 'GET', '/v1/reference', { key: a.venue.key });
    const indexed = reference.body.resources.flatMap((r: any) => r.operations).sort();
    assert.deepEqual(indexed, v1Routes.filter((r) => !r.startsWith('HEAD ')).sort());
  });

  it("answers each foreign or invalid credential with its exact status and none of A's data, and leaves A unchanged", async (ctx) => {
    const before = await snapshot(t.app, a);
    const failures: string[] = [];
    const foreign = CREDENTIALS.filter((c) => c !== 'own live');
    for (const credential of foreign) {
      const key = keyOf(credential, a, b);
      for (const probe of runOrder(probes)) {
        const res = await send(t.app, probe, key);
        const cell = `${credential} | ${probe.method} ${probe.url}`;
        const failure = checkOutcome(res, expectedOutcome(probe.entry, probe.method, credential), probe.method);
        if (failure) failures.push(`${cell}: ${failure}`);
        // The sandbox twin carries the account's name and slug (not its data): those alone may show.
        const leaked = entitled(credential, probe.method) ? null : leaks(res, probe, canaries, credential === 'own test' ? a.identity : []);
        if (leaked) failures.push(`${cell}: ${leaked}`);
      }
    }
    const routes = new Set(probes.map((p) => p.route)).size;
    ctx.diagnostic(`${routes} routes (${probes.length} probes) x ${foreign.length} credentials = ${probes.length * foreign.length} calls`);
    assert.deepEqual(failures, []);
    assert.deepEqual(await snapshot(t.app, a), before, "A's data after every foreign call");
  });

  it("serves every route to the venue's own live key with its success status, and shows or touches nothing of B", async () => {
    const bBefore = await snapshot(t.app, b);
    const canariesOfB = canariesOf(b, bBefore);
    const failures: string[] = [];
    // Every write is followed by the memoised reads of both venues, compared with a twin app on the
    // same database whose memos never hold (coherent() false): a write whose scope left a memo
    // stale answers differently here (src/db/write-scope.ts).
    const fresh = await buildApp({ config: t.config, db: { ...t.database.db, coherent: () => false } });
    await fresh.app.ready();
    for (const probe of runOrder(probes)) {
      const writes = probe.method !== 'GET' && probe.method !== 'HEAD';
      if (writes) for (const tenant of [a, b]) await memoisedReads(t.app, tenant);
      const res = await send(t.app, probe, a.venue.key);
      if (writes) {
        for (const tenant of [a, b]) {
          const served = await memoisedReads(t.app, tenant);
          const read = await memoisedReads(fresh.app, tenant);
          served.forEach((line, i) => {
            if (line !== read[i]) failures.push(`after ${probe.method} ${probe.url}: stale ${line.slice(0, 200)}`);
          });
        }
      }
      const cell = `own live | ${probe.method} ${probe.url}`;
      const failure = checkOutcome(res, expectedOutcome(probe.entry, probe.method, 'own live'), probe.method);
      if (failure) failures.push(`${cell}: ${failure}`);
      const leaked = leaks(res, probe, canariesOfB);
      if (leaked) failures.push(`${cell}: ${leaked}`);
    }
    await fresh.app.close();
    assert.deepEqual(failures, []);
    assert.deepEqual(await snapshot(t.app, b), bBefore, "B's data after A's own calls");
  });
});
