import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sessionCsrf } from '../../src/modules/console/csrf.js';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { createOrder, orderBody, setUpOrderMenu } from '../helpers/orders.js';
import { routeTable } from '../helpers/route-table.js';
import { signedIn } from '../console/console-client.js';

/*
 * Tenant isolation of the board's API, beside the /v1 matrix: every /console/api route
 * of the router's own table, called by an owner of venue A with venue B's ids, answers 404 or with
 * A's data only, and leaves B as it was. A route added without an entry here fails the first test.
 */

interface Case {
  /** B's ids in the path: the member of A must not find them. */
  path: (b: Ids) => string;
  body?: (b: Ids) => unknown;
  /** What A's owner gets. */
  status: number;
}

interface Ids {
  orderId: string;
  memberId: string;
}

const CASES: Record<string, Case> = {
  'GET /console/api/board': { path: () => '/console/api/board', status: 200 },
  'GET /console/api/orders/stream': { path: () => '/console/api/orders/stream', status: 200 },
  'POST /console/api/orders/:id/status': {
    path: (b) => `/console/api/orders/${b.orderId}/status`,
    body: () => ({ status: 'confirmed' }),
    status: 404,
  },
  'GET /console/api/service': { path: () => '/console/api/service', status: 200 },
  // B's externalIds are unknown refs for A: all or nothing, nothing written.
  'PUT /console/api/availability': {
    path: () => '/console/api/availability',
    body: () => ({ products: [{ ref: 'b-only', available: false }] }),
    status: 400,
  },
  'POST /console/api/pause': { path: () => '/console/api/pause', body: () => ({ minutes: 0 }), status: 200 },
  'PATCH /console/api/ordering': { path: () => '/console/api/ordering', body: () => ({ prepTimeMinutes: 15 }), status: 200 },
  'GET /console/api/staff': { path: () => '/console/api/staff?limit=100', status: 200 },
  'POST /console/api/staff': {
    path: () => '/console/api/staff',
    body: () => ({ email: 'b.member@example.com', name: 'A hire', role: 'staff' }),
    status: 201,
  },
  'PATCH /console/api/staff/:id': { path: (b) => `/console/api/staff/${b.memberId}`, body: () => ({ disabled: true }), status: 404 },
  'POST /console/api/staff/:id/invite': { path: (b) => `/console/api/staff/${b.memberId}/invite`, status: 404 },
  'DELETE /console/api/staff/:id': { path: (b) => `/console/api/staff/${b.memberId}`, status: 404 },
};

describe("the board's API keeps each venue to its own", () => {
  let t: TestApp;
  let a: VenueFixture;
  let b: VenueFixture;
  let ids: Ids;
  let session = '';
  const canaries = ['Canary B Order Name', 'canary.b@example.com', 'Canary B Member'];

  before(async () => {
    t = await startApp();
    [a, b] = [await createVenue(t.app, { plan: 'pro' }), await createVenue(t.app, { plan: 'pro' })];
    await setUpOrderMenu(t.app, a);
    const bMenu = await setUpOrderMenu(t.app, b);
    const order = await createOrder(t.app, b.slug, orderBody(bMenu, { customerName: canaries[0] }));
    const member = await admin(t.app, 'POST', `/venues/${b.id}/staff`, { email: canaries[1], name: canaries[2], role: 'owner' });
    ids = { orderId: order.id, memberId: member.body.id };
    session = (await signedIn(t.app, a.id, 'a.owner@example.com', 'owner')).client.jar.get('carta_session')!;
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

  it("answers A's owner with 404 for B's ids and with A's data only, and leaves B as it was", async () => {
    const before = {
      order: (await call(t.app, 'GET', `/v1/orders/${ids.orderId}`, { key: b.key })).body,
      staff: (await admin(t.app, 'GET', `/venues/${b.id}/staff?limit=100`)).body,
      settings: (await call(t.app, 'GET', '/v1/settings', { key: b.key })).body,
      availability: (await call(t.app, 'GET', '/v1/availability', { key: b.key })).body,
    };
    for (const [key, c] of Object.entries(CASES)) {
      const [method] = key.split(' ');
      if (key === 'GET /console/api/orders/stream') continue; // A stream never ends by itself: its isolation is the board's (same reader, same venue).
      const body = c.body?.(ids);
      const res = await t.app.inject({
        method: method as 'GET',
        url: c.path(ids),
        headers: { cookie: `carta_session=${session}`, 'x-csrf-token': sessionCsrf(session) },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      assert.equal(res.statusCode, c.status, `${key}: ${res.body}`);
      assert.deepEqual(
        canaries.filter((s) => res.body.includes(s)),
        [],
        key,
      );
    }
    assert.deepEqual(
      {
        order: (await call(t.app, 'GET', `/v1/orders/${ids.orderId}`, { key: b.key })).body,
        staff: (await admin(t.app, 'GET', `/venues/${b.id}/staff?limit=100`)).body,
        settings: (await call(t.app, 'GET', '/v1/settings', { key: b.key })).body,
        availability: (await call(t.app, 'GET', '/v1/availability', { key: b.key })).body,
      },
      before,
    );
  });
});
