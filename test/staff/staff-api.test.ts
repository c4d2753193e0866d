import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, assertError, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { invite } from '../console/console-client.js';

// The operator's staff API.
describe('staff accounts through the operator API', () => {
  let t: TestApp;
  let v: VenueFixture;
  before(async () => {
    t = await startApp({ publicBaseUrl: 'https://carta.example.com' });
    v = await createVenue(t.app);
  });
  after(() => t.close());

  it('invites a member: 201 with a one-use link under PUBLIC_BASE_URL valid for 7 days', async () => {
    const res = await admin(t.app, 'POST', `/venues/${v.id}/staff`, { email: 'Chef@Example.com', name: 'Chef', role: 'manager' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(Object.keys(res.body).sort(), ['email', 'id', 'inviteExpiresAt', 'inviteUrl', 'name', 'role', 'status']);
    assert.equal(res.body.email, 'chef@example.com');
    assert.equal(res.body.status, 'invited');
    assert.match(res.body.inviteUrl, /^https:\/\/carta\.example\.com\/console\/invite\/[0-9A-Za-z]{43}$/);
    const days = (Date.parse(res.body.inviteExpiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 6.99 && days <= 7, `expires in ${days} days`);
  });

  it('refuses an email the venue already has, whatever its case: 409 STAFF_EMAIL_TAKEN', async () => {
    await invite(t.app, v.id, 'twice@example.com');
    assertError(
      await admin(t.app, 'POST', `/venues/${v.id}/staff`, { email: 'TWICE@example.com', name: 'Again', role: 'staff' }),
      409,
      'STAFF_EMAIL_TAKEN',
    );
    // Another venue may have the same person.
    const other = await createVenue(t.app);
    assert.equal(
      (await admin(t.app, 'POST', `/venues/${other.id}/staff`, { email: 'twice@example.com', name: 'Elsewhere', role: 'owner' })).status,
      201,
    );
  });

  it('validates the body: 400 for a bad email, role, name or an unknown field', async () => {
    for (const body of [
      { email: 'not-an-email', name: 'X', role: 'staff' },
      { email: 'x@example.com', name: 'X', role: 'admin' },
      { email: 'x@example.com', name: '', role: 'staff' },
      { email: 'x@example.com', name: 'X', role: 'staff', password: 'secret' },
      { name: 'X', role: 'staff' },
    ])
      assertError(await admin(t.app, 'POST', `/venues/${v.id}/staff`, body), 400);
    assertError(await admin(t.app, 'PATCH', '/staff/00000000-0000-7000-8000-000000000000', { role: 'chef' }), 400);
    assertError(await admin(t.app, 'PATCH', '/staff/not-a-uuid', { name: 'X' }), 400);
  });

  it('answers 404 for an unknown venue or member', async () => {
    const unknown = '00000000-0000-7000-8000-000000000000';
    assertError(
      await admin(t.app, 'POST', `/venues/${unknown}/staff`, { email: 'x@example.com', name: 'X', role: 'staff' }),
      404,
      'VENUE_NOT_FOUND',
    );
    assertError(await admin(t.app, 'GET', `/venues/${unknown}/staff`), 404, 'VENUE_NOT_FOUND');
    assertError(await admin(t.app, 'PATCH', `/staff/${unknown}`, { name: 'X' }), 404, 'STAFF_NOT_FOUND');
    assertError(await admin(t.app, 'POST', `/staff/${unknown}/invite`), 404, 'STAFF_NOT_FOUND');
    assertError(await admin(t.app, 'DELETE', `/staff/${unknown}`), 404, 'STAFF_NOT_FOUND');
  });

  it('lists members in the list envelope, without invite links', async () => {
    const venue = await createVenue(t.app);
    await invite(t.app, venue.id, 'one@example.com', 'owner', 'One');
    await invite(t.app, venue.id, 'two@example.com', 'staff', 'Two');
    const res = await admin(t.app, 'GET', `/venues/${venue.id}/staff`);
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 2);
    assert.equal(res.body.page, 1);
    assert.equal(res.body.totalPages, 1);
    assert.deepEqual(
      res.body.items.map((m: any) => [m.email, m.role, m.status, m.disabled]),
      [
        ['one@example.com', 'owner', 'invited', false],
        ['two@example.com', 'staff', 'invited', false],
      ],
    );
    assert.ok(res.body.items.every((m: any) => !('inviteUrl' in m) && !('inviteExpiresAt' in m)));
    const paged = await admin(t.app, 'GET', `/venues/${venue.id}/staff?limit=1&page=2`);
    assert.deepEqual(
      paged.body.items.map((m: any) => m.email),
      ['two@example.com'],
    );
  });

  it('updates name, role and disabled; re-invites with a fresh link; removes with 204', async () => {
    const m = await invite(t.app, v.id, 'change@example.com');
    const patched = await admin(t.app, 'PATCH', `/staff/${m.id}`, { name: 'New name', role: 'owner', disabled: true });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, 'New name');
    assert.equal(patched.body.role, 'owner');
    assert.equal(patched.body.disabled, true);
    const again = await admin(t.app, 'POST', `/staff/${m.id}/invite`);
    assert.equal(again.status, 201);
    assert.notEqual(again.body.inviteUrl, m.inviteUrl);
    assert.equal(again.body.status, 'invited');
    assert.equal((await admin(t.app, 'DELETE', `/staff/${m.id}`)).status, 204);
    assertError(await admin(t.app, 'DELETE', `/staff/${m.id}`), 404, 'STAFF_NOT_FOUND');
  });

  it('audits every change with source operator, field names only, and no link, token or hash', async () => {
    const venue = await createVenue(t.app);
    const m = await invite(t.app, venue.id, 'audited@example.com', 'staff', 'Audited Name');
    await admin(t.app, 'PATCH', `/staff/${m.id}`, { name: 'Other Name' });
    const again = await admin(t.app, 'POST', `/staff/${m.id}/invite`);
    await admin(t.app, 'DELETE', `/staff/${m.id}`);
    const log = await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: venue.key });
    const entries = log.body.items.filter((e: any) => e.action.startsWith('staff.'));
    assert.deepEqual(entries.map((e: any) => [e.action, e.source, e.entityRef]).reverse(), [
      ['staff.invite', 'operator', m.id],
      ['staff.update', 'operator', m.id],
      ['staff.reinvite', 'operator', m.id],
      ['staff.remove', 'operator', m.id],
    ]);
    assert.deepEqual(entries.find((e: any) => e.action === 'staff.update').changes, { fields: ['name'] });
    const text = JSON.stringify(log.body);
    for (const secret of [m.token, again.body.inviteUrl.split('/').pop(), 'Other Name', 'audited@example.com'])
      assert.ok(!text.includes(secret));
  });
});
