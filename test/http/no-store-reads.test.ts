import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// Reads that show people, who changed what, where a venue's events go or its settings carry
// `Cache-Control: no-store` (docs/security.md "Secrets"), like the order and key routes. The
// settings keep their ETag: PATCH takes it in If-Match, and If-None-Match still answers 304.

describe('Cache-Control: no-store on the reads of people, audit, webhooks and settings', () => {
  let t: TestApp;
  let v: VenueFixture;

  before(async () => {
    t = await startApp();
    v = await createVenue(t.app, { plan: 'pro' });
  });
  after(() => t.close());

  it('sends no-store on the staff list, the audit log and every webhooks read', async () => {
    expectCreated(await admin(t.app, 'POST', `/venues/${v.id}/staff`, { email: 'cook@example.com', name: 'Cook', role: 'staff' }));
    const endpoint = await call(t.app, 'POST', '/v1/webhooks', {
      key: v.key,
      body: { url: 'https://hooks.example.com/carta?token=abc', events: ['order.created'] },
    });
    expectCreated(endpoint);
    const reads: [string, Awaited<ReturnType<typeof call>>][] = [
      ['staff list', await admin(t.app, 'GET', `/venues/${v.id}/staff`)],
      ['audit log', await call(t.app, 'GET', '/v1/audit-log', { key: v.key })],
      ['webhooks list', await call(t.app, 'GET', '/v1/webhooks', { key: v.key })],
      ['one webhook', await call(t.app, 'GET', `/v1/webhooks/${endpoint.body.id}`, { key: v.key })],
      ['webhook deliveries', await call(t.app, 'GET', `/v1/webhooks/${endpoint.body.id}/deliveries`, { key: v.key })],
      ['settings', await call(t.app, 'GET', '/v1/settings', { key: v.key })],
    ];
    assert.deepEqual(
      reads.map(([label, res]) => [label, res.status]),
      reads.map(([label]) => [label, 200]),
    );
    assert.deepEqual(
      reads.filter(([, res]) => res.headers['cache-control'] !== 'no-store').map(([label]) => label),
      [],
    );
  });

  it('keeps the ETag of the settings: a 304 for If-None-Match (also no-store) and If-Match on PATCH', async () => {
    const read = await call(t.app, 'GET', '/v1/settings', { key: v.key });
    const etag = String(read.headers.etag);
    assert.match(etag, /^(W\/)?"/);
    const same = await call(t.app, 'GET', '/v1/settings', { key: v.key, headers: { 'if-none-match': etag } });
    assert.equal(same.status, 304);
    assert.equal(same.headers['cache-control'], 'no-store');
    const patched = await call(t.app, 'PATCH', '/v1/settings', {
      key: v.key,
      body: { name: 'Renamed Cafe' },
      headers: { 'if-match': etag },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const stale = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { name: 'Again' }, headers: { 'if-match': etag } });
    assert.equal(stale.status, 412);
  });
});

function expectCreated(res: { status: number; body: unknown }): void {
  assert.equal(res.status, 201, JSON.stringify(res.body));
}
