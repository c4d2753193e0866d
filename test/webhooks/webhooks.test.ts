import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WEBHOOK_ENDPOINTS_PER_VENUE } from '../../src/limits.js';
import { signingSecrets } from '../../src/modules/webhooks/webhooks.repository.js';
import { admin, assertError, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// The management API of webhook endpoints (docs/events.md): CRUD, Standard Webhooks
// secrets shown on create and rotate only, rotation with a 24-hour grace for the replaced secret,
// the URL rules (https, no credentials, no internal address literals, checked without any DNS
// query), paid plans only, read-only keys, the per-venue cap, tenants and the audit log.
// No test here makes a network request: registration never connects anywhere.

/** A loopback endpoint SSRF_TEST_ALLOW lets through (nothing listens there; nothing dials it). */
const TEST_RECEIVER = { host: '127.0.0.1', port: 8443 };
const SECRET_RE = /^whsec_[A-Za-z0-9+/]{43}=$/;
const HOUR_MS = 3_600_000;

let t: TestApp;
before(async () => {
  t = await startApp({ ssrfTestAllow: [TEST_RECEIVER] });
});
after(() => t.close());

const body = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://pos.example.com/carta/hooks',
  events: ['order.created'],
  ...overrides,
});

async function endpoint(v: VenueFixture, overrides: Record<string, unknown> = {}, key = v.key) {
  const res = await call(t.app, 'POST', '/v1/webhooks', { key, body: body(overrides) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function auditOf(v: VenueFixture): Promise<any[]> {
  const res = await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: v.key });
  assert.equal(res.status, 200);
  return res.body.items;
}

/** What delivery would do when it turns an endpoint off (it writes the row itself). */
async function disableAsDelivery(venueId: string, id: string, reason: string): Promise<void> {
  await t.database.db.query('update webhook_endpoints set enabled = false, disabled_reason = $3 where venue_id = $1 and id = $2', [
    venueId,
    id,
    reason,
  ]);
}

describe('webhook endpoints', () => {
  it('creates an endpoint with a Standard Webhooks secret shown once, then lists and reads it without the secret', async () => {
    const v = await createVenue(t.app);
    const created = await endpoint(v, { events: ['order.updated', 'menu.published', 'order.created'], description: 'Kitchen display' });
    assert.match(created.secret, SECRET_RE);
    assert.equal(Buffer.from(created.secret.slice('whsec_'.length), 'base64').length, 32);
    const { secret, ...shown } = created;
    assert.deepEqual(shown, {
      id: created.id,
      url: 'https://pos.example.com/carta/hooks',
      events: ['order.created', 'order.updated', 'menu.published'],
      description: 'Kitchen display',
      enabled: true,
      disabledReason: null,
      mode: 'live',
      secretHint: secret.slice(-4),
      previousSecretExpiresAt: null,
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
    assert.notEqual((await endpoint(v)).secret, secret, 'every endpoint has a secret of its own');

    const read = await call(t.app, 'GET', `/v1/webhooks/${created.id}`, { key: v.key });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, shown);
    const list = await call(t.app, 'GET', '/v1/webhooks', { key: v.key });
    assert.equal(list.status, 200);
    assert.deepEqual(Object.keys(list.body).sort(), ['items', 'limit', 'page', 'total', 'totalPages']);
    assert.deepEqual([list.body.total, list.body.page, list.body.limit, list.body.totalPages], [2, 1, 20, 1]);
    assert.deepEqual(list.body.items[0], shown, 'oldest first');
    assert.ok(!list.raw.body.includes(secret) && !read.raw.body.includes(secret), 'reads never show a secret');
    assert.deepEqual((await call(t.app, 'GET', '/v1/webhooks?limit=1&page=2', { key: v.key })).body.items.length, 1);
  });

  it('stores the URL as the URL parser writes it and accepts a name without resolving it', async () => {
    const v = await createVenue(t.app);
    // The test resolver fails every name but localhost: a DNS query at registration would fail this.
    assert.equal((await endpoint(v, { url: 'https://Hooks.Internal.Example/a b?x=1' })).url, 'https://hooks.internal.example/a%20b?x=1');
    assert.equal((await endpoint(v, { url: 'https://8.8.8.8/hook' })).url, 'https://8.8.8.8/hook', 'a public address literal');
  });

  it('patches the fields sent, clears the description with null, and audits only a real change', async () => {
    const v = await createVenue(t.app);
    const a = await endpoint(v, { description: 'Old' });
    const res = await call(t.app, 'PATCH', `/v1/webhooks/${a.id}`, {
      key: v.key,
      body: { url: 'https://pos.example.com/v2', events: ['menu.published', 'order.updated'], description: null },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.url, res.body.events, res.body.description, res.body.enabled],
      ['https://pos.example.com/v2', ['order.updated', 'menu.published'], null, true],
    );
    assert.equal(res.body.secretHint, a.secretHint, 'a patch leaves the secret alone');
    assert.equal(res.body.secret, undefined);
    assert.ok(res.body.updatedAt >= a.updatedAt);

    const same = await call(t.app, 'PATCH', `/v1/webhooks/${a.id}`, {
      key: v.key,
      body: { events: ['order.updated', 'menu.published'], description: null },
    });
    assert.deepEqual(same.body, res.body, 'the same values change nothing');
    assert.deepEqual((await call(t.app, 'PATCH', `/v1/webhooks/${a.id}`, { key: v.key, body: {} })).body, res.body);
    const updates = (await auditOf(v)).filter((e) => e.action === 'webhook.update');
    assert.deepEqual(
      updates.map((e) => e.changes),
      [{ fields: ['url', 'events', 'description'] }],
    );
  });

  it('turns an endpoint off and on; re-enabling clears the reason delivery gave', async () => {
    const v = await createVenue(t.app);
    const a = await endpoint(v);
    const off = await call(t.app, 'PATCH', `/v1/webhooks/${a.id}`, { key: v.key, body: { enabled: false } });
    assert.deepEqual([off.body.enabled, off.body.disabledReason], [false, null]);

    await disableAsDelivery(v.id, a.id, 'failing for 5 days');
    assert.equal((await call(t.app, 'GET', `/v1/webhooks/${a.id}`, { key: v.key })).body.disabledReason, 'failing for 5 days');
    const on = await call(t.app, 'PATCH', `/v1/webhooks/${a.id}`, { key: v.key, body: { enabled: true } });
    assert.equal(on.status, 200);
    assert.deepEqual([on.body.enabled, on.body.disabledReason], [true, null]);
    const updates = (await auditOf(v)).filter((e) => e.action === 'webhook.update');
    assert.deepEqual(
      updates.map((e) => e.changes),
      [{ fields: ['enabled', 'disabledReason'] }, { fields: ['enabled'] }],
    );
  });

  it('deletes an endpoint with 204; it is gone', async () => {
    const v = await createVenue(t.app);
    const a = await endpoint(v);
    const res = await call(t.app, 'DELETE', `/v1/webhooks/${a.id}`, { key: v.key });
    assert.equal(res.status, 204);
    assert.equal(res.raw.body, '');
    assertError(await call(t.app, 'GET', `/v1/webhooks/${a.id}`, { key: v.key }), 404, 'WEBHOOK_NOT_FOUND');
    assertError(await call(t.app, 'DELETE', `/v1/webhooks/${a.id}`, { key: v.key }), 404, 'WEBHOOK_NOT_FOUND');
    assert.equal((await call(t.app, 'GET', '/v1/webhooks', { key: v.key })).body.total, 0);
    assert.equal(await signingSecrets(t.database.db, v.id, a.id), null);
  });

  it('rotates the secret: the new one is shown once, the replaced one keeps signing for 24 hours', async () => {
    const v = await createVenue(t.app);
    const a = await endpoint(v);
    assert.deepEqual(await signingSecrets(t.database.db, v.id, a.id), [a.secret]);

    const before = Date.now();
    const rotated = await call(t.app, 'POST', `/v1/webhooks/${a.id}/rotate-secret`, { key: v.key });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.match(rotated.body.secret, SECRET_RE);
    assert.notEqual(rotated.body.secret, a.secret);
    assert.equal(rotated.body.secretHint, rotated.body.secret.slice(-4));
    const expires = Date.parse(rotated.body.previousSecretExpiresAt);
    assert.ok(Math.abs(expires - (before + 24 * HOUR_MS)) < 60_000, `expires 24 h from now, not ${rotated.body.previousSecretExpiresAt}`);
    assert.deepEqual(await signingSecrets(t.database.db, v.id, a.id), [rotated.body.secret, a.secret], 'both sign during the grace period');

    const read = await call(t.app, 'GET', `/v1/webhooks/${a.id}`, { key: v.key });
    assert.equal(read.body.previousSecretExpiresAt, rotated.body.previousSecretExpiresAt);
    assert.ok(!read.raw.body.includes(rotated.body.secret) && !read.raw.body.includes(a.secret));

    // A second rotation keeps only the secret it replaces; the first one stops at once.
    const again = (await call(t.app, 'POST', `/v1/webhooks/${a.id}/rotate-secret`, { key: v.key })).body;
    assert.deepEqual(await signingSecrets(t.database.db, v.id, a.id), [again.secret, rotated.body.secret]);
    // Past its expiry the replaced secret no longer signs.
    await t.database.db.query(
      `update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where venue_id = $1 and id = $2`,
      [v.id, a.id],
    );
    assert.deepEqual(await signingSecrets(t.database.db, v.id, a.id), [again.secret]);
  });
});

describe('webhook endpoint validation', () => {
  let v: VenueFixture;
  before(async () => {
    v = await createVenue(t.app);
  });

  /** A 400 in the envelope whose errors[] are exactly `expected`, and whose text never echoes the value sent. */
  async function refused(sent: Record<string, unknown>, expected: string[], method: 'POST' | 'PATCH' = 'POST', url = '/v1/webhooks') {
    const res = await call(t.app, method, url, { key: v.key, body: sent });
    assertError(res, 400);
    assert.equal(res.body.message, 'Validation failed');
    assert.equal(res.body.code, undefined);
    assert.equal(typeof res.body.requestId, 'string');
    assert.deepEqual(res.body.errors, expected, JSON.stringify(sent));
    if (typeof sent.url === 'string' && sent.url !== '') assert.ok(!res.raw.body.includes(sent.url), 'the value sent is not echoed');
  }

  const INTERNAL = 'url must not point to a loopback, private, link-local or otherwise reserved address';

  it('refuses a URL that is not absolute https, carries credentials or is too long', async () => {
    await refused(body({ url: 'not a url' }), ['url must be an absolute https URL']);
    await refused(body({ url: '/relative/path' }), ['url must be an absolute https URL']);
    await refused(body({ url: 'http://pos.example.com/hooks' }), ['url must use https']);
    await refused(body({ url: 'ftp://pos.example.com/hooks' }), ['url must use https']);
    await refused(body({ url: 'https://user:secret@pos.example.com/hooks' }), ['url must not carry credentials']);
    await refused(body({ url: 'https://user@pos.example.com/hooks' }), ['url must not carry credentials']);
    await refused(body({ url: `https://pos.example.com/${'a'.repeat(2048)}` }), ['url must be at most 2048 characters']);
    await refused(body({ url: '' }), ['url must not be empty']);
    await refused(body({ url: 'https://./hooks' }), ['url must name a host']);
  });

  it('refuses hosts that are loopback, private, link-local or reserved addresses, in any spelling', async () => {
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://0x7f000001/hooks',
      'https://127.1/hooks',
      'https://10.0.0.5/hooks',
      'https://192.168.1.20:8443/hooks',
      'https://172.16.0.1/hooks',
      'https://100.64.0.1/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/hooks',
      'https://[::1]/hooks',
      'https://[::ffff:10.0.0.1]/hooks',
      'https://[fd00:ec2::254]/hooks',
      'https://[fe80::1]/hooks',
      'https://localhost/hooks',
      'https://api.localhost./hooks',
      'https://168.63.129.16/hooks',
    ]) {
      await refused(body({ url }), [INTERNAL]);
    }
  });

  it('lets tests register the loopback endpoints SSRF_TEST_ALLOW names, over http too, and no others', async () => {
    const allowed = `http://127.0.0.1:${TEST_RECEIVER.port}/hooks`;
    assert.equal((await endpoint(v, { url: allowed })).url, allowed);
    assert.equal(
      (await endpoint(v, { url: `http://localhost:${TEST_RECEIVER.port}/hooks` })).url,
      `http://localhost:${TEST_RECEIVER.port}/hooks`,
    );
    await refused(body({ url: `http://127.0.0.1:${TEST_RECEIVER.port + 1}/hooks` }), ['url must use https']);
    await refused(body({ url: `https://127.0.0.1:${TEST_RECEIVER.port + 1}/hooks` }), [INTERNAL]);
    await refused(body({ url: `https://10.0.0.1:${TEST_RECEIVER.port}/hooks` }), [INTERNAL]);
  });

  it('refuses unknown, duplicate, missing or no events, unknown fields and a secret of your own', async () => {
    const enumRule = 'must be one of: order.created, order.updated, menu.published, menu.availability_changed';
    await refused(body({ events: ['order.deleted'] }), [`events[0] ${enumRule}`]);
    await refused(body({ events: [] }), ['events must have at least 1 item']);
    await refused({ url: 'https://pos.example.com/hooks' }, ['events is required']);
    const duplicate = await call(t.app, 'POST', '/v1/webhooks', { key: v.key, body: body({ events: ['order.created', 'order.created'] }) });
    assertError(duplicate, 400);
    assert.match(duplicate.body.errors.join('\n'), /^events must not list a value twice/);
    await refused(body({ secret: 'whsec_mine' }), ['secret is not allowed']);
    await refused(body({ description: 'x'.repeat(501) }), ['description must be at most 500 characters']);
  });

  it('checks a patched URL and events the same way and changes nothing when refusing', async () => {
    const a = await endpoint(v);
    const url = `/v1/webhooks/${a.id}`;
    await refused({ url: 'https://10.1.2.3/hooks' }, [INTERNAL], 'PATCH', url);
    await refused({ url: 'https://u:p@pos.example.com/' }, ['url must not carry credentials'], 'PATCH', url);
    await refused({ events: [] }, ['events must have at least 1 item'], 'PATCH', url);
    await refused({ enabled: 'yes' }, ['enabled must be a boolean'], 'PATCH', url);
    await refused({ mode: 'test' }, ['mode is not allowed'], 'PATCH', url);
    const { secret: _secret, ...shown } = a;
    assert.deepEqual((await call(t.app, 'GET', url, { key: v.key })).body, shown);
  });
});

describe('who may manage webhook endpoints', () => {
  it('refuses every route on the free plan with 403 PAID_PLAN_REQUIRED, before validation and 404s', async () => {
    const v = await createVenue(t.app, { plan: 'free' });
    const missing = '00000000-0000-7000-8000-000000000000';
    for (const [method, url, sent] of [
      ['GET', '/v1/webhooks', undefined],
      ['POST', '/v1/webhooks', body()],
      ['POST', '/v1/webhooks', { url: 'not a url' }],
      ['GET', `/v1/webhooks/${missing}`, undefined],
      ['PATCH', `/v1/webhooks/${missing}`, { enabled: false }],
      ['DELETE', `/v1/webhooks/${missing}`, undefined],
      ['POST', `/v1/webhooks/${missing}/rotate-secret`, undefined],
      ['POST', `/v1/webhooks/${missing}/test`, undefined],
      ['GET', `/v1/webhooks/${missing}/deliveries`, undefined],
      ['GET', `/v1/webhooks/${missing}/deliveries?limit=0`, undefined],
      ['POST', `/v1/webhooks/${missing}/deliveries/${missing}/retry`, undefined],
    ] as const) {
      assertError(await call(t.app, method, url, { key: v.key, body: sent }), 403, 'PAID_PLAN_REQUIRED');
    }
    // Upgrading opens them at once, as for orders.
    assert.equal((await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'standard' })).status, 200);
    assert.equal((await call(t.app, 'POST', '/v1/webhooks', { key: v.key, body: body() })).status, 201);
  });

  it('refuses writes with a read-only key (403 READ_ONLY_KEY) and lets it read', async () => {
    const v = await createVenue(t.app);
    const a = await endpoint(v);
    // Disabled, so the ping that gives the retry a delivery to name stays queued (nothing is dialled).
    assert.equal((await call(t.app, 'PATCH', `/v1/webhooks/${a.id}`, { key: v.key, body: { enabled: false } })).status, 200);
    const pinged = (await call(t.app, 'POST', `/v1/webhooks/${a.id}/test`, { key: v.key })).body;
    const readOnly = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true })).body.key;
    for (const [method, url, sent] of [
      ['POST', '/v1/webhooks', body()],
      ['PATCH', `/v1/webhooks/${a.id}`, { enabled: false }],
      ['DELETE', `/v1/webhooks/${a.id}`, undefined],
      ['POST', `/v1/webhooks/${a.id}/rotate-secret`, undefined],
      ['POST', `/v1/webhooks/${a.id}/test`, undefined],
      ['POST', `/v1/webhooks/${a.id}/deliveries/${pinged.id}/retry`, undefined],
    ] as const) {
      assertError(await call(t.app, method, url, { key: readOnly, body: sent }), 403, 'READ_ONLY_KEY');
    }
    assert.equal((await call(t.app, 'GET', `/v1/webhooks/${a.id}`, { key: readOnly })).body.id, a.id);
    assert.equal((await call(t.app, 'GET', '/v1/webhooks', { key: readOnly })).body.total, 1);
    assert.deepEqual(await signingSecrets(t.database.db, v.id, a.id), [a.secret], 'not rotated');
    const log = await call(t.app, 'GET', `/v1/webhooks/${a.id}/deliveries`, { key: readOnly });
    assert.equal(log.status, 200, 'the delivery log is a read');
    assert.deepEqual(
      log.body.items.map((d: any) => d.id),
      [pinged.id],
      'no ping or retry was queued',
    );
  });

  it(`caps a venue at ${WEBHOOK_ENDPOINTS_PER_VENUE} endpoints with WEBHOOK_ENDPOINT_LIMIT_REACHED, also under concurrent creates`, async () => {
    const v = await createVenue(t.app, { plan: 'pro' });
    for (let i = 0; i < WEBHOOK_ENDPOINTS_PER_VENUE - 2; i += 1) await endpoint(v, { url: `https://pos.example.com/${i}` });
    const race = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        call(t.app, 'POST', '/v1/webhooks', { key: v.key, body: body({ url: `https://pos.example.com/race/${i}` }) }),
      ),
    );
    assert.deepEqual(race.map((r) => r.status).sort(), [201, 201, 400, 400]);
    const refusedCreate = await call(t.app, 'POST', '/v1/webhooks', { key: v.key, body: body() });
    assertError(refusedCreate, 400, 'WEBHOOK_ENDPOINT_LIMIT_REACHED');
    assert.deepEqual(refusedCreate.body.details, { limit: WEBHOOK_ENDPOINTS_PER_VENUE, available: 0, requested: 1 });
    assert.equal((await call(t.app, 'GET', '/v1/webhooks?limit=100', { key: v.key })).body.total, WEBHOOK_ENDPOINTS_PER_VENUE);

    // The sandbox is a venue of its own with its own endpoints; deleting one makes room.
    const test = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' })).body.key;
    assert.equal((await call(t.app, 'POST', '/v1/webhooks', { key: test, body: body() })).status, 201);
    const first = (await call(t.app, 'GET', '/v1/webhooks?limit=1', { key: v.key })).body.items[0];
    assert.equal((await call(t.app, 'DELETE', `/v1/webhooks/${first.id}`, { key: v.key })).status, 204);
    assert.equal((await call(t.app, 'POST', '/v1/webhooks', { key: v.key, body: body() })).status, 201);
  });

  it("answers 404 WEBHOOK_NOT_FOUND for unknown ids and another venue's, and keeps sandbox endpoints (mode test) apart", async () => {
    const a = await createVenue(t.app);
    const b = await createVenue(t.app);
    const mine = await endpoint(a);
    const probes = [
      ['GET', undefined],
      ['PATCH', { description: 'hijacked' }],
      ['DELETE', undefined],
    ] as const;
    for (const id of [mine.id, '00000000-0000-7000-8000-000000000000', 'not-an-id']) {
      for (const [method, sent] of probes)
        assertError(await call(t.app, method, `/v1/webhooks/${id}`, { key: b.key, body: sent }), 404, 'WEBHOOK_NOT_FOUND');
      assertError(await call(t.app, 'POST', `/v1/webhooks/${id}/rotate-secret`, { key: b.key }), 404, 'WEBHOOK_NOT_FOUND');
    }
    assert.equal((await call(t.app, 'GET', '/v1/webhooks', { key: b.key })).body.total, 0);

    const testKey = (await admin(t.app, 'POST', `/venues/${a.id}/api-keys`, { mode: 'test' })).body.key;
    assertError(await call(t.app, 'GET', `/v1/webhooks/${mine.id}`, { key: testKey }), 404, 'WEBHOOK_NOT_FOUND');
    const sandbox = await endpoint(a, {}, testKey);
    assert.equal(sandbox.mode, 'test');
    assert.deepEqual(
      (await call(t.app, 'GET', '/v1/webhooks', { key: testKey })).body.items.map((e: any) => e.id),
      [sandbox.id],
    );
    assert.deepEqual(
      (await call(t.app, 'GET', '/v1/webhooks', { key: a.key })).body.items.map((e: any) => e.id),
      [mine.id],
    );
    assertError(await call(t.app, 'GET', `/v1/webhooks/${sandbox.id}`, { key: a.key }), 404, 'WEBHOOK_NOT_FOUND');

    const { secret: _secret, ...shown } = mine;
    assert.deepEqual((await call(t.app, 'GET', `/v1/webhooks/${mine.id}`, { key: a.key })).body, shown, "A's endpoint is untouched");
    assert.deepEqual(await signingSecrets(t.database.db, a.id, mine.id), [mine.secret]);
    assert.equal(await signingSecrets(t.database.db, b.id, mine.id), null, 'the repository filters on the venue too');
  });
});

describe('the audit log of webhook endpoints', () => {
  it('records every change with ids and field names, never the URL, description or a secret', async () => {
    const v = await createVenue(t.app);
    const a = await endpoint(v, { url: 'https://audit-canary.example.com/hooks', description: 'Audit canary note' });
    await call(t.app, 'PATCH', `/v1/webhooks/${a.id}`, {
      key: v.key,
      body: { url: 'https://audit-canary-2.example.com/hooks', enabled: false },
    });
    const rotated = (await call(t.app, 'POST', `/v1/webhooks/${a.id}/rotate-secret`, { key: v.key })).body;
    assert.equal((await call(t.app, 'DELETE', `/v1/webhooks/${a.id}`, { key: v.key })).status, 204);

    const entries = await auditOf(v);
    assert.deepEqual(
      entries.map((e) => [e.action, e.entityType, e.entityRef, e.changes, e.source]),
      [
        ['webhook.delete', 'webhook', a.id, { id: a.id }, 'api_key'],
        ['webhook.update', 'webhook', a.id, { fields: ['secret'] }, 'api_key'],
        ['webhook.update', 'webhook', a.id, { fields: ['url', 'enabled'] }, 'api_key'],
        ['webhook.create', 'webhook', a.id, { id: a.id }, 'api_key'],
      ],
    );
    const text = JSON.stringify(entries);
    for (const canary of ['audit-canary', 'Audit canary note', a.secret, rotated.secret]) assert.ok(!text.includes(canary), canary);
    const filtered = await call(t.app, 'GET', '/v1/audit-log?action=webhook.create', { key: v.key });
    assert.deepEqual(
      filtered.body.items.map((e: any) => e.entityRef),
      [a.id],
    );
  });
});
