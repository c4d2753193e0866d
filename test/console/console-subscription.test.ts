import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/http/types.js';
import { sessionCsrf } from '../../src/modules/console/csrf.js';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { createOrder, expectStatus, orderBody, setUpOrderMenu } from '../helpers/orders.js';
import { routeTable } from '../helpers/route-table.js';
import { SseClient } from '../helpers/sse-client.js';
import { ConsoleClient, csrfOf, PASSWORD, signedIn, invite } from './console-client.js';

// A venue whose subscription is suspended or canceled (docs/console.md "A venue whose subscription
// is inactive"): its members still sign in and are told why, every /console/api route answers 403
// SUBSCRIPTION_INACTIVE as /v1 does (reads included), and its open boards end.

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Ids {
  orderId: string;
  memberId: string;
}

/** A call of every board API route that an owner of an active venue may make. */
const CASES: Record<string, { path: (ids: Ids) => string; body?: unknown }> = {
  'GET /console/api/board': { path: () => '/console/api/board' },
  'GET /console/api/orders/stream': { path: () => '/console/api/orders/stream' },
  'POST /console/api/orders/:id/status': { path: (ids) => `/console/api/orders/${ids.orderId}/status`, body: { status: 'confirmed' } },
  'GET /console/api/service': { path: () => '/console/api/service' },
  'PUT /console/api/availability': { path: () => '/console/api/availability', body: { products: [] } },
  'POST /console/api/pause': { path: () => '/console/api/pause', body: { minutes: 30 } },
  'PATCH /console/api/ordering': { path: () => '/console/api/ordering', body: { prepTimeMinutes: 25 } },
  'GET /console/api/staff': { path: () => '/console/api/staff?limit=100' },
  'POST /console/api/staff': { path: () => '/console/api/staff', body: { email: 'hire@example.com', name: 'New Hire', role: 'staff' } },
  'PATCH /console/api/staff/:id': { path: (ids) => `/console/api/staff/${ids.memberId}`, body: { name: 'Renamed' } },
  'POST /console/api/staff/:id/invite': { path: (ids) => `/console/api/staff/${ids.memberId}/invite` },
  'DELETE /console/api/staff/:id': { path: (ids) => `/console/api/staff/${ids.memberId}` },
};

/** A board API call with the session cookie and, unless told otherwise, its CSRF header. */
async function api(app: App, session: string, method: Method, path: string, body?: unknown, csrf = true) {
  const res = await app.inject({
    method,
    url: path,
    headers: { cookie: `carta_session=${session}`, ...(csrf ? { 'x-csrf-token': sessionCsrf(session) } : {}) },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
}

const setStatus = async (app: App, venueId: string, subscriptionStatus: string) =>
  expectStatus(await admin(app, 'PATCH', `/venues/${venueId}`, { subscriptionStatus }), 200);

describe('the console of a venue whose subscription is inactive', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: Ids;
  let owner: ConsoleClient;
  let session = '';

  before(async () => {
    t = await startApp();
    v = await createVenue(t.app, { plan: 'pro' });
    const menu = await setUpOrderMenu(t.app, v);
    ids = { orderId: (await createOrder(t.app, v.slug, orderBody(menu))).id, memberId: (await invite(t.app, v.id, 'cook@example.com')).id };
    owner = (await signedIn(t.app, v.id, 'owner@example.com', 'owner')).client;
    session = owner.jar.get('carta_session')!;
  });
  after(() => t.close());

  it('has a case for every route of the board API', () => {
    const routes = routeTable(t.app).filter((r) => r.url.startsWith('/console/api/') && r.method !== 'HEAD');
    assert.deepEqual(
      routes.map((r) => `${r.method} ${r.url}`).filter((k) => !(k in CASES)),
      [],
    );
    assert.deepEqual(
      Object.keys(CASES).filter((k) => !routes.some((r) => `${r.method} ${r.url}` === k)),
      [],
    );
  });

  it('refuses every board API route, reads included, with the 403 SUBSCRIPTION_INACTIVE /v1 answers, and writes nothing', async () => {
    const snapshot = async () => ({
      order: (await call(t.app, 'GET', `/v1/orders/${ids.orderId}`, { key: v.key })).body,
      // Its updatedAt is the venue row's, which the operator's PATCH moves.
      settings: { ...(await call(t.app, 'GET', '/v1/settings', { key: v.key })).body, updatedAt: undefined },
      staff: (await admin(t.app, 'GET', `/venues/${v.id}/staff?limit=100`)).body,
    });
    const before = await snapshot();
    for (const status of ['suspended', 'canceled']) {
      await setStatus(t.app, v.id, status);
      const v1 = await call(t.app, 'GET', '/v1/orders', { key: v.key });
      assert.equal(v1.status, 403);
      assert.equal(v1.body.code, 'SUBSCRIPTION_INACTIVE');
      for (const [key, c] of Object.entries(CASES)) {
        const res = await api(t.app, session, key.split(' ')[0] as Method, c.path(ids), c.body);
        assert.equal(res.status, 403, `${status} ${key}: ${JSON.stringify(res.body)}`);
        assert.deepEqual([res.body.code, res.body.message], [v1.body.code, v1.body.message], `${status} ${key}`);
        assert.equal(res.headers['cache-control'], 'no-store', key);
      }
      // Checked after the session and before the CSRF token and the body, as /v1 checks it after the key.
      const noCsrf = await api(t.app, session, 'POST', '/console/api/pause', { minutes: 'soon' }, false);
      assert.deepEqual([noCsrf.status, noCsrf.body.code], [403, 'SUBSCRIPTION_INACTIVE']);
      const signedOut = await t.app.inject({ method: 'GET', url: '/console/api/board' });
      assert.deepEqual([signedOut.statusCode, signedOut.json().code], [401, 'SIGNED_OUT']);
    }
    await setStatus(t.app, v.id, 'active');
    assert.deepEqual(await snapshot(), before);
    // Active again: the same session works as before.
    assert.equal((await api(t.app, session, 'GET', '/console/api/board')).status, 200);
    assert.equal((await api(t.app, session, 'POST', `/console/api/orders/${ids.orderId}/status`, { status: 'confirmed' })).status, 200);
  });

  it("lets a member sign in, and the console's home says the subscription is inactive instead of showing a board", async () => {
    await setStatus(t.app, v.id, 'suspended');
    try {
      // The operator may still invite (their power over every venue); the invite link and sign-in work.
      const late = await admin(t.app, 'POST', `/venues/${v.id}/staff`, { email: 'late@example.com', name: 'Late Hire', role: 'staff' });
      assert.equal(late.status, 201, JSON.stringify(late.body));
      const client = new ConsoleClient(t.app);
      assert.equal((await client.setPassword(late.body.inviteUrl.split('/console/invite/')[1], PASSWORD)).status, 200);
      const signIn = await client.signIn('late@example.com', PASSWORD);
      assert.deepEqual([signIn.status, signIn.location], [303, '/console']);

      const home = await client.request('GET', '/console');
      assert.equal(home.status, 403);
      assert.equal(home.headers['cache-control'], 'no-store');
      assert.match(home.body, /The venue's subscription is suspended/);
      assert.doesNotMatch(home.body, /id="board"|csrf-token|<script/, 'no board, no board script');
      // The way out: sign-out, with the session's CSRF token.
      assert.equal(csrfOf(home.body), sessionCsrf(client.jar.get('carta_session')!));
      const out = await client.request('POST', '/console/sign-out', { csrf: csrfOf(home.body) });
      assert.deepEqual([out.status, out.location], [303, '/console/sign-in']);
      assert.equal(client.jar.has('carta_session'), false);
    } finally {
      await setStatus(t.app, v.id, 'active');
    }
    const home = await owner.request('GET', '/console');
    assert.equal(home.status, 200);
    assert.match(home.body, /id="board"/);
  });
});

describe('the boards of a venue whose subscription goes inactive', () => {
  it('end at once on this server when the operator suspends the venue', async () => {
    // A heartbeat far off: only the suspension itself can end the board in time.
    const t = await startApp({}, undefined, { boardFeeds: { heartbeatMs: 60_000 } });
    try {
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const v = await createVenue(t.app, { plan: 'pro' });
      const { client } = await signedIn(t.app, v.id, 'board@example.com');
      const stream = await SseClient.open(`${base}/console/api/orders/stream`, {
        cookie: `carta_session=${client.jar.get('carta_session')}`,
      });
      try {
        assert.equal(stream.status, 200);
        await stream.until('the retry hint', () => stream.retry !== null);
        await setStatus(t.app, v.id, 'suspended');
        await stream.until('the end', () => stream.ended, 2000);
      } finally {
        stream.close();
      }
      // Its reconnect is refused with the reason.
      const again = await SseClient.open(`${base}/console/api/orders/stream`, {
        cookie: `carta_session=${client.jar.get('carta_session')}`,
      });
      again.close();
      assert.equal(again.status, 403);
      assert.equal(JSON.parse(again.body).code, 'SUBSCRIPTION_INACTIVE');
    } finally {
      await t.close();
    }
  });

  it('end at their next heartbeat when another server suspended the venue', async () => {
    const t = await startApp({}, undefined, { boardFeeds: { heartbeatMs: 200 } });
    try {
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const v = await createVenue(t.app, { plan: 'pro' });
      const { client } = await signedIn(t.app, v.id, 'board@example.com');
      const stream = await SseClient.open(`${base}/console/api/orders/stream`, {
        cookie: `carta_session=${client.jar.get('carta_session')}`,
      });
      try {
        await stream.until('the retry hint', () => stream.retry !== null);
        // Another server's write: this server's boards are not told, only the database changes.
        await t.database.db.query(`update venues set subscription_status = 'canceled' where id = $1`, [v.id]);
        await stream.until('the end', () => stream.ended, 3000);
      } finally {
        stream.close();
      }
    } finally {
      await t.close();
    }
  });
});
