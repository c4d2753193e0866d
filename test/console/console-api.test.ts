import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/http/types.js';
import type { EventSink } from '../../src/shared/event-sink.js';
import { sessionCsrf } from '../../src/modules/console/csrf.js';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { auditEntries, createOrder, expectStatus, orderBody, placeOrder, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { SseClient } from '../helpers/sse-client.js';
import { signedIn, type ConsoleClient } from './console-client.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A board's connection whose reader takes nothing while `full` (every write answers false) until `drain()`. */
class FakeSink implements EventSink {
  text = '';
  full = false;
  destroyed = false;
  private drained: () => void = () => {};
  private closed: () => void = () => {};
  write(text: string): boolean {
    this.text += text;
    return !this.full;
  }
  onDrain(listener: () => void): void {
    this.drained = listener;
  }
  onClose(listener: () => void): void {
    this.closed = listener;
  }
  drain(): void {
    this.drained();
  }
  end(): void {
    this.closed();
  }
  destroy(): void {
    this.destroyed = true;
    this.closed();
  }
  /** The events' ids (the order clock's instants), in the order written. */
  ids(): string[] {
    return [...this.text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
  }
}

async function waitFor(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
  for (let waited = 0; !ready() && waited < timeoutMs; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(ready(), what);
}

/** A console API call as the board's script makes it: the session cookie, and the CSRF header unless `csrf` is false. */
async function api(app: App, client: ConsoleClient | null, method: Method, path: string, body?: unknown, csrf = true) {
  const session = client?.jar.get('carta_session');
  const res = await app.inject({
    method,
    url: `/console/api${path}`,
    headers: {
      ...(session ? { cookie: `carta_session=${session}` } : {}),
      ...(session && csrf && method !== 'GET' ? { 'x-csrf-token': sessionCsrf(session) } : {}),
    },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
}

// The board's API (/console/api, docs/console.md) on the injected clock.
describe('the console board API', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let staff: ConsoleClient;
  let manager: ConsoleClient;
  let owner: { client: ConsoleClient; id: string };
  const now = Date.parse('2026-06-01T10:00:00Z');

  before(async () => {
    t = await startApp({}, undefined, { clock: () => now });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
    staff = (await signedIn(t.app, v.id, 'cook@example.com', 'staff')).client;
    manager = (await signedIn(t.app, v.id, 'manager@example.com', 'manager')).client;
    const o = await signedIn(t.app, v.id, 'owner@example.com', 'owner');
    owner = { client: o.client, id: o.member.id };
  });
  after(() => t.close());

  it('takes only the session cookie: none, or an API key, is 401 SIGNED_OUT', async () => {
    const none = await api(t.app, null, 'GET', '/board');
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'SIGNED_OUT');
    const withKey = await t.app.inject({ method: 'GET', url: '/console/api/board', headers: { authorization: `Bearer ${v.key}` } });
    assert.equal(withKey.statusCode, 401);
    // And /v1 never reads the cookie.
    const v1 = await t.app.inject({
      method: 'GET',
      url: '/v1/orders',
      headers: { cookie: `carta_session=${staff.jar.get('carta_session')}` },
    });
    assert.equal(v1.statusCode, 401);
  });

  it('shows the open orders and those finished today, oldest first, with the cursor the stream goes on from', async () => {
    const first = await createOrder(t.app, v.slug, orderBody(ids));
    const second = await createOrder(t.app, v.slug, orderBody(ids));
    const board = await api(t.app, staff, 'GET', '/board');
    assert.equal(board.status, 200, JSON.stringify(board.body));
    assert.equal(board.headers['cache-control'], 'no-store');
    assert.deepEqual(board.body.member.role, 'staff');
    assert.equal(board.body.venue.id, v.id);
    const ours = board.body.orders.filter((o: any) => o.id === first.id || o.id === second.id);
    assert.deepEqual(
      ours.map((o: any) => o.id),
      [first.id, second.id],
    );
    assert.deepEqual(ours[0], (await call(t.app, 'GET', `/v1/orders/${first.id}`, { key: v.key })).body);
    assert.equal(board.body.cursor, second.updatedAt);
    assert.equal(board.body.ordering.open, true);
  });

  it('moves an order through the same rules as /v1, audited with source console and the member named; a change needs the CSRF token', async () => {
    const order = await createOrder(t.app, v.slug, orderBody(ids));
    const without = await api(t.app, staff, 'POST', `/orders/${order.id}/status`, { status: 'confirmed' }, false);
    assert.equal(without.status, 403);
    assert.equal(without.body.code, 'CSRF_TOKEN_INVALID');
    const wrong = await t.app.inject({
      method: 'POST',
      url: `/console/api/orders/${order.id}/status`,
      headers: { cookie: `carta_session=${staff.jar.get('carta_session')}`, 'x-csrf-token': sessionCsrf('another session') },
      payload: { status: 'confirmed' },
    });
    assert.equal(wrong.statusCode, 403);
    const confirmed = await api(t.app, staff, 'POST', `/orders/${order.id}/status`, { status: 'confirmed' });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.status, 'confirmed');
    const jump = await api(t.app, staff, 'POST', `/orders/${order.id}/status`, { status: 'new' });
    assert.equal(jump.status, 422);
    assert.equal(jump.body.code, 'INVALID_STATUS_TRANSITION');
    assert.equal((await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: v.key })).body.status, 'confirmed');
    const entry = (await auditEntries(t.app, v.key, 'order.status_update')).find((e: any) => e.entityRef === order.id);
    assert.equal(entry.source, 'console');
    assert.equal(entry.changes.actor.name, 'Ada Lovelace');
    assert.ok(entry.changes.actor.id);
  });

  it('checks the role on the server: staff use the board and the service controls, managers the ordering settings, owners the staff', async () => {
    const refused = await api(t.app, staff, 'PATCH', '/ordering', { prepTimeMinutes: 25 });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'ROLE_REQUIRED');
    assert.equal((await api(t.app, staff, 'GET', '/staff')).status, 403);
    assert.equal((await api(t.app, manager, 'GET', '/staff')).status, 403);
    const set = await api(t.app, manager, 'PATCH', '/ordering', { prepTimeMinutes: 25 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.ordering.prepTimeMinutes, 25);
    const settings = await call(t.app, 'GET', '/v1/settings', { key: v.key });
    assert.equal(settings.body.orderConfig.prepTimeMinutes, 25);
    const audit = (await auditEntries(t.app, v.key, 'settings.update')).at(0);
    assert.equal(audit.source, 'console');
    assert.deepEqual(audit.changes.fields, ['orderConfig.prepTimeMinutes']);
  });

  it('pauses ordering for 15, 30 or 60 minutes and resumes it', async () => {
    const paused = await api(t.app, staff, 'POST', '/pause', { minutes: 30 });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.deepEqual(
      [paused.body.ordering.open, paused.body.ordering.reason, paused.body.ordering.pausedUntil],
      [false, 'paused', new Date(now + 30 * 60_000).toISOString()],
    );
    const refused = await placeOrder(t.app, v.slug, orderBody(ids));
    expectStatus(refused, 409);
    assert.equal(refused.body.code, 'ORDERING_CLOSED');
    assert.equal((await api(t.app, staff, 'POST', '/pause', { minutes: 20 })).status, 400);
    const resumed = await api(t.app, staff, 'POST', '/pause', { minutes: 0 });
    assert.deepEqual([resumed.body.ordering.open, resumed.body.ordering.pausedUntil], [true, null]);
    expectStatus(await placeOrder(t.app, v.slug, orderBody(ids)), 201);
  });

  it('marks a dish or an ingredient sold out and back, as PUT /v1/availability does', async () => {
    const before = await api(t.app, staff, 'GET', '/service');
    assert.equal(before.status, 200);
    const fries = before.body.products.find((p: any) => p.ref === 'fries');
    assert.deepEqual([fries.available, fries.categoryName], [true, 'Mains']);
    assert.ok(before.body.ingredients.some((i: any) => i.ref === 'cheese'));
    const until = new Date(now + 3_600_000).toISOString();
    const marked = await api(t.app, staff, 'PUT', '/availability', { products: [{ ref: 'fries', available: false, until }] });
    assert.equal(marked.status, 200, JSON.stringify(marked.body));
    assert.equal(marked.body.products.updated, 1);
    const after = await api(t.app, staff, 'GET', '/service');
    assert.deepEqual(
      after.body.products.find((p: any) => p.ref === 'fries'),
      { ...fries, available: false, until },
    );
    const guest = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    assert.equal(guest.body.products.find((p: any) => p.id === ids.productIds.fries).availability.available, false);
    const unknown = await api(t.app, staff, 'PUT', '/availability', { products: [{ ref: 'nope', available: false }] });
    assert.equal(unknown.status, 400);
    await api(t.app, staff, 'PUT', '/availability', { products: [{ ref: 'fries', available: true }] });
    assert.equal((await api(t.app, staff, 'GET', '/service')).body.products.find((p: any) => p.ref === 'fries').available, true);
  });

  it("lets an owner manage the venue's staff, never their own role, and audits it as theirs", async () => {
    const invited = await api(t.app, owner.client, 'POST', '/staff', { email: 'new@example.com', name: 'Grace', role: 'staff' });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    assert.match(invited.body.inviteUrl, /\/console\/invite\//);
    const list = await api(t.app, owner.client, 'GET', '/staff?limit=100');
    assert.ok(list.body.items.some((m: any) => m.id === invited.body.id && m.status === 'invited'));
    assert.equal((await api(t.app, owner.client, 'PATCH', `/staff/${invited.body.id}`, { role: 'manager' })).body.role, 'manager');
    assert.equal((await api(t.app, owner.client, 'POST', `/staff/${invited.body.id}/invite`)).status, 201);
    const self = await api(t.app, owner.client, 'PATCH', `/staff/${owner.id}`, { role: 'staff' });
    assert.equal(self.status, 409);
    assert.equal(self.body.code, 'STAFF_SELF_CHANGE');
    assert.equal((await api(t.app, owner.client, 'DELETE', `/staff/${owner.id}`)).status, 409);
    assert.equal((await api(t.app, owner.client, 'DELETE', `/staff/${invited.body.id}`)).status, 204);
    const entries = (await auditEntries(t.app, v.key, 'staff.invite')).filter((e: any) => e.entityRef === invited.body.id);
    assert.equal(entries[0].source, 'console');
    assert.equal(entries[0].changes.actor.id, owner.id);
    assert.doesNotMatch(JSON.stringify(await auditEntries(t.app, v.key, 'staff.reinvite')), /console\/invite/);
  });

  it('reaches nothing of another venue: its orders, its staff', async () => {
    const other = await createVenue(t.app, { plan: 'pro' });
    const otherIds = await setUpOrderMenu(t.app, other);
    const theirs = await createOrder(t.app, other.slug, orderBody(otherIds));
    const moved = await api(t.app, staff, 'POST', `/orders/${theirs.id}/status`, { status: 'confirmed' });
    assert.equal(moved.status, 404);
    const board = await api(t.app, staff, 'GET', '/board');
    assert.ok(!board.body.orders.some((o: any) => o.id === theirs.id));
    const member = await admin(t.app, 'POST', `/venues/${other.id}/staff`, { email: 'x@example.com', name: 'X', role: 'staff' });
    assert.equal((await api(t.app, owner.client, 'PATCH', `/staff/${member.body.id}`, { disabled: true })).status, 404);
    assert.equal((await api(t.app, owner.client, 'DELETE', `/staff/${member.body.id}`)).status, 404);
    assert.equal(
      (await api(t.app, owner.client, 'GET', '/staff?limit=100')).body.items.some((m: any) => m.id === member.body.id),
      false,
    );
  });
});

describe('the console board stream', () => {
  let t: TestApp;
  let base: string;
  let v: VenueFixture;
  let ids: MenuIds;

  before(async () => {
    t = await startApp({}, undefined, { boardFeeds: { heartbeatMs: 200, perVenue: 4, slowReaderMs: 300 } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
  });
  after(() => t.close());

  const open = (client: ConsoleClient, query = '', headers: Record<string, string> = {}) =>
    SseClient.open(`${base}/console/api/orders/stream${query}`, { cookie: `carta_session=${client.jar.get('carta_session')}`, ...headers });

  it('sends every board each change once, in order, the same events as the /v1 stream; a board catches up from its cursor', async () => {
    const a = (await signedIn(t.app, v.id, 'a@example.com')).client;
    const b = (await signedIn(t.app, v.id, 'b@example.com')).client;
    const earlier = await createOrder(t.app, v.slug, orderBody(ids));
    const cursor = (await api(t.app, a, 'GET', '/board')).body.cursor;
    const first = await open(a, `?after=${encodeURIComponent(cursor)}`);
    // Opened from before `earlier`: it catches up with it, then follows the shared reader.
    const second = await open(b, `?after=${encodeURIComponent(new Date(Date.parse(earlier.updatedAt) - 1).toISOString())}`);
    try {
      assert.equal(first.status, 200);
      await second.until('the catch-up', () => second.events.length === 1);
      const order = await createOrder(t.app, v.slug, orderBody(ids));
      const confirmed = await api(t.app, a, 'POST', `/orders/${order.id}/status`, { status: 'confirmed' });
      const wanted = [
        ['order.created', order.updatedAt],
        ['order.updated', confirmed.body.updatedAt],
      ];
      await first.until('both changes', () => first.events.length === 2);
      await second.until('both changes', () => second.events.length === 3);
      assert.deepEqual(
        first.events.map((e) => [e.event, e.id]),
        wanted,
      );
      assert.deepEqual(
        second.events.map((e) => [e.event, e.id]),
        [['order.created', earlier.updatedAt], ...wanted],
      );
      assert.deepEqual(first.orders()[1], (await call(t.app, 'GET', `/v1/orders/${order.id}`, { key: v.key })).body);
      // A reconnect with Last-Event-ID resumes right after it.
      first.close();
      const again = await open(a, '', { 'last-event-id': order.updatedAt });
      try {
        await again.until('the missed change', () => again.events.length === 1);
        assert.deepEqual(
          again.events.map((e) => e.id),
          [confirmed.body.updatedAt],
        );
      } finally {
        again.close();
      }
    } finally {
      first.close();
      second.close();
    }
  });

  it('lets a board that falls behind catch up from its cursor with every change once, and lets go of one that never reads', async () => {
    const venue = await createVenue(t.app, { plan: 'pro' });
    const menu = await setUpOrderMenu(t.app, venue);
    const request = { venueId: venue.id, after: null, stillAllowed: async () => true, log: { warn: () => {} } };
    const late = new FakeSink();
    const stuck = new FakeSink();
    await t.services.boardFeeds.open(request, () => late);
    await t.services.boardFeeds.open(request, () => stuck);
    late.full = stuck.full = true;
    const placed = [];
    for (let i = 0; i < 3; i += 1) placed.push(await createOrder(t.app, venue.slug, orderBody(menu)));
    // The late one takes what it was sent before its 300 ms are up; the stuck one never does.
    late.full = false;
    late.drain();
    await waitFor('every order on the late board', () => late.ids().length === 3, 2000);
    await waitFor('the stuck board let go', () => stuck.destroyed, 2000);
    assert.equal(late.destroyed, false);
    assert.deepEqual(
      late.ids(),
      placed.map((o) => o.updatedAt),
    );
    late.end();
  });

  it('ends a board at once when its member is disabled or signs out elsewhere; refuses one past the venue cap', async () => {
    const m = await signedIn(t.app, v.id, 'c@example.com');
    const stream = await open(m.client);
    try {
      await stream.until('the retry hint', () => stream.retry !== null);
      expectStatus(await admin(t.app, 'PATCH', `/staff/${m.member.id}`, { disabled: true }), 200);
      await stream.until('the end', () => stream.ended, 1000);
    } finally {
      stream.close();
    }
    const others = await Promise.all(['d', 'e', 'f', 'g'].map(async (x) => (await signedIn(t.app, v.id, `${x}@example.com`)).client));
    const streams = await Promise.all(others.map((c) => open(c)));
    try {
      const refused = await open(others[0]);
      assert.equal(refused.status, 429);
      refused.close();
    } finally {
      for (const s of streams) s.close();
    }
  });
});

describe('the console sweep', () => {
  it('deletes sessions past their expiry, invite links past theirs and failures no lock counts, and nothing live', async () => {
    let now = Date.parse('2026-06-01T10:00:00Z');
    const t = await startApp({}, undefined, { clock: () => now });
    try {
      const v = await createVenue(t.app);
      const count = async (table: string) =>
        (await t.database.db.query<{ n: number }>(`select count(*)::int as n from ${table} where venue_id = $1`, [v.id])).rows[0].n;
      const idle = await signedIn(t.app, v.id, 'idle@example.com');
      await admin(t.app, 'POST', `/venues/${v.id}/staff`, { email: 'late@example.com', name: 'Late', role: 'staff' });
      now += 7 * 24 * 3_600_000 + 1;
      const fresh = await signedIn(t.app, v.id, 'fresh@example.com');
      assert.deepEqual([await count('staff_sessions'), await count('staff_invites')], [2, 1]);
      assert.equal(await t.services.consoleAuth.sweep(), 2);
      assert.deepEqual([await count('staff_sessions'), await count('staff_invites')], [1, 0]);
      assert.equal((await api(t.app, idle.client, 'GET', '/board')).status, 401);
      assert.equal((await api(t.app, fresh.client, 'GET', '/board')).status, 200);
    } finally {
      await t.close();
    }
  });
});
