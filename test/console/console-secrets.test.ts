import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, call, createVenue } from '../helpers/app.js';
import { testDatabase, type TestDatabase } from '../helpers/db.js';
import { ConsoleClient, invite, PASSWORD } from './console-client.js';

// The console's secrets: an invite token, a password, its hash, a session cookie and a
// CSRF token appear in no log line (at trace, the most the logger says) and in no audit entry.
// The invite link shows only in the operator's response that makes it; the cookie only in Set-Cookie.
describe("the console's secrets stay out of logs and the audit log", () => {
  let app: App;
  let database: TestDatabase;
  const logChunks: string[] = [];
  const secrets: string[] = [];
  let venueKey = '';

  before(async () => {
    database = await testDatabase();
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'trace', ADMIN_TOKEN, DATA_DIR: '/nonexistent' });
    ({ app } = await buildApp({ config, db: database.db, logStream: { write: (line: string) => void logChunks.push(line) } }));
    await app.ready();
    const venue = await createVenue(app);
    venueKey = venue.key;
    const m = await invite(app, venue.id, 'canary.member@example.com', 'owner');
    const client = new ConsoleClient(app);
    // A refused password, a wrong one, a refused CSRF token and a good sign-in: every path once.
    await client.setPassword(m.token, 'Password123');
    await client.request('POST', `/console/invite/${m.token}`, { csrf: 'CanaryCsrfQ7x2Z9mPp4Lk8Vn3Yt6', password: PASSWORD });
    assert.equal((await client.setPassword(m.token, PASSWORD)).status, 200);
    await client.signIn(m.email, 'CanaryWrongPassword-5e2b');
    assert.equal((await client.signIn(m.email, PASSWORD)).status, 303);
    const home = await client.request('GET', '/console');
    assert.equal(home.status, 200);
    await client.request('GET', `/console/invite/${m.token}/more`);
    const session = client.jar.get('carta_session')!;
    const { rows } = await database.db.query<{ password_hash: string }>('select password_hash from staff_members where id = $1', [m.id]);
    // The board's API: a change with the session's CSRF header, one with a wrong header, and an
    // owner's invite, whose link shows only in the answer.
    const api = (url: string, payload: object, csrf: string) =>
      app.inject({ method: 'POST', url, headers: { cookie: `carta_session=${session}`, 'x-csrf-token': csrf }, payload });
    const csrf = /name="csrf" value="([^"]+)"/.exec(home.body)![1];
    assert.equal((await api('/console/api/pause', { minutes: 15 }, csrf)).statusCode, 200);
    assert.equal((await api('/console/api/pause', { minutes: 0 }, 'CanaryApiCsrfR4t8Wq1Zx6Mn0Bv3')).statusCode, 403);
    const invited = await api('/console/api/staff', { email: 'canary.cook@example.com', name: 'Cook', role: 'staff' }, csrf);
    assert.equal(invited.statusCode, 201);
    secrets.push(invited.json().inviteUrl.split('/console/invite/')[1], 'CanaryApiCsrfR4t8Wq1Zx6Mn0Bv3');
    secrets.push(
      m.token,
      PASSWORD,
      'CanaryWrongPassword-5e2b',
      'Password123',
      session,
      rows[0].password_hash.split('$').pop()!,
      /name="csrf" value="([^"]+)"/.exec(home.body)![1],
    );
  });
  after(async () => {
    await app.close();
    await database.dispose();
  });

  it('logs none of them, and masks the invite token in paths', () => {
    const text = logChunks.join('');
    assert.ok(text.includes('/console/invite/[Redacted]'), 'the invite route is logged with its token masked');
    assert.deepEqual(
      secrets.filter((s) => text.includes(s) || text.includes(encodeURIComponent(s))),
      [],
    );
  });

  it('audits none of them', async () => {
    const log = await call(app, 'GET', '/v1/audit-log?limit=100', { key: venueKey });
    const text = JSON.stringify(log.body);
    assert.ok(text.includes('staff.invite'));
    assert.deepEqual(
      secrets.filter((s) => text.includes(s)),
      [],
    );
  });
});
