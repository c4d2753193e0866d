import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { ConsoleClient, csrfOf, invite, PASSWORD, signedIn } from './console-client.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;

// The console's accounts: invite links, passwords, sign-in and its lock, sessions
// and their expiry on the injected clock, CSRF, and which credential each surface takes.
describe('the venue console: invites, sign-in and sessions', () => {
  let t: TestApp;
  let v: VenueFixture;
  let now = Date.parse('2026-06-01T10:00:00Z');
  let n = 0;
  const email = () => `member${(n += 1)}@example.com`;

  before(async () => {
    t = await startApp({}, undefined, { clock: () => now });
    v = await createVenue(t.app);
  });
  after(() => t.close());

  it('sets a password through the invite link once; the member becomes active', async () => {
    const m = await invite(t.app, v.id, email());
    const client = new ConsoleClient(t.app);
    const page = await client.request('GET', `/console/invite/${m.token}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<label for="password">Password<\/label>/);
    assert.match(page.body, /<button type="submit">Set password<\/button>/);
    const done = await client.request('POST', `/console/invite/${m.token}`, { csrf: csrfOf(page.body), password: PASSWORD });
    assert.equal(done.status, 200, done.body);
    const list = await admin(t.app, 'GET', `/venues/${v.id}/staff?limit=100`);
    assert.equal(list.body.items.find((x: any) => x.id === m.id).status, 'active');
    // Used: the link leads nowhere now, read or posted.
    assert.equal((await client.request('GET', `/console/invite/${m.token}`)).status, 404);
    const fresh = await client.request('GET', '/console/sign-in');
    const again = await client.request('POST', `/console/invite/${m.token}`, {
      csrf: csrfOf(fresh.body),
      password: 'another good password',
    });
    assert.equal(again.status, 404);
  });

  it('refuses an invite link after 7 days, and a link replaced by a newer one', async () => {
    const m = await invite(t.app, v.id, email());
    const client = new ConsoleClient(t.app);
    const page = await client.request('GET', `/console/invite/${m.token}`);
    now += 7 * 24 * HOUR + 1;
    assert.equal((await client.request('POST', `/console/invite/${m.token}`, { csrf: csrfOf(page.body), password: PASSWORD })).status, 404);
    const fresh = await admin(t.app, 'POST', `/staff/${m.id}/invite`);
    const token = fresh.body.inviteUrl.split('/').pop();
    const newer = await admin(t.app, 'POST', `/staff/${m.id}/invite`);
    assert.equal((await client.request('GET', `/console/invite/${token}`)).status, 404, 'the older link stopped working');
    assert.equal((await client.setPassword(newer.body.inviteUrl.split('/').pop(), PASSWORD)).status, 200);
  });

  it('holds passwords to at least 10 characters and not a commonly used one', async () => {
    const m = await invite(t.app, v.id, email());
    const client = new ConsoleClient(t.app);
    for (const password of ['short', '123456789', 'Password123', 'qwertyuiop']) {
      const res = await client.setPassword(m.token, password);
      assert.equal(res.status, 400, password);
      assert.match(res.body, /role="alert"/);
    }
    assert.equal((await client.setPassword(m.token, 'ten chars!')).status, 200);
  });

  it('signs in with email (any case) and password: a 303 to /console and a strict session cookie', async () => {
    const address = email();
    const m = await invite(t.app, v.id, address, 'manager');
    const client = new ConsoleClient(t.app);
    await client.setPassword(m.token, PASSWORD);
    const form = await client.request('GET', '/console/sign-in');
    assert.match(form.body, /<label for="email">Email<\/label>/);
    assert.match(form.body, /<label for="password">Password<\/label>/);
    assert.match(form.body, /<button type="submit">Sign in<\/button>/);
    const res = await client.request('POST', '/console/sign-in', {
      csrf: csrfOf(form.body),
      email: address.toUpperCase(),
      password: PASSWORD,
    });
    assert.equal(res.status, 303, res.body);
    assert.equal(res.location, '/console');
    const session = res.cookies.find((c) => c.startsWith('carta_session='));
    assert.ok(session);
    for (const flag of ['HttpOnly', 'SameSite=Strict', 'Path=/console']) assert.ok(session.includes(flag), `${flag} in ${session}`);
    assert.ok(!session.includes('Secure'), 'not Secure on http');
    const home = await client.request('GET', '/console');
    assert.equal(home.status, 200);
    assert.match(home.body, new RegExp(v.id ? 'Test Venue' : ''));
    assert.match(home.body, /Ada Lovelace/);
    assert.match(home.body, /<button type="submit">Sign out<\/button>/);
    assert.equal(home.headers['cache-control'], 'no-store');
    assert.match(String(home.headers['content-security-policy']), /script-src 'self'; style-src 'self'/);
  });

  it('uses __Host- cookies (Secure, Path=/) when PUBLIC_BASE_URL is https, and reads no plain-named one there', async () => {
    const secure = await startApp({ publicBaseUrl: 'https://carta.example.com' });
    try {
      const venue = await createVenue(secure.app);
      const page = await new ConsoleClient(secure.app).request('GET', '/console/sign-in');
      assert.ok(
        page.cookies.length > 0 &&
          page.cookies.every((c) => c.startsWith('__Host-carta_csrf=') && c.includes('; Secure') && c.includes('Path=/;')),
        page.cookies.join(),
      );
      const { client } = await signedInOn(secure, venue.id);
      const session = client.jar.get('__Host-carta_session')!;
      assert.ok(session);
      assert.equal(
        (await secure.app.inject({ method: 'GET', url: '/console', headers: { cookie: `__Host-carta_session=${session}` } })).statusCode,
        200,
      );
      // A plain-named cookie (which a sibling subdomain or an http page could set) is no session here.
      const plain = await secure.app.inject({ method: 'GET', url: '/console', headers: { cookie: `carta_session=${session}` } });
      assert.equal(plain.statusCode, 303);
      const api = await secure.app.inject({ method: 'GET', url: '/console/api/board', headers: { cookie: `carta_session=${session}` } });
      assert.equal(api.statusCode, 401);
    } finally {
      await secure.close();
    }
  });

  async function signedInOn(app: TestApp, venueId: string) {
    const m = await invite(app.app, venueId, email());
    const client = new ConsoleClient(app.app);
    await client.setPassword(m.token, PASSWORD);
    const res = await client.signIn(m.email, PASSWORD);
    const session = res.cookies.find((c) => c.startsWith('__Host-carta_session='));
    assert.ok(session, res.cookies.join());
    for (const flag of ['HttpOnly', 'SameSite=Strict', 'Secure', 'Path=/;']) assert.ok(session.includes(flag), `${flag} in ${session}`);
    return { client };
  }

  it('answers a wrong password, an unknown email and a disabled member alike: 401 with one message', async () => {
    const address = email();
    const m = await invite(t.app, v.id, address);
    const client = new ConsoleClient(t.app);
    await client.setPassword(m.token, PASSWORD);
    const disabled = email();
    const d = await invite(t.app, v.id, disabled);
    await client.setPassword(d.token, PASSWORD);
    await admin(t.app, 'PATCH', `/staff/${d.id}`, { disabled: true });
    const bodies = [];
    for (const [e, p] of [
      [address, 'wrong password!'],
      ['nobody@example.com', PASSWORD],
      [disabled, PASSWORD],
    ]) {
      const res = await client.signIn(e, p);
      assert.equal(res.status, 401);
      bodies.push(/role="alert"[^>]*>([^<]+)/.exec(res.body)?.[1]);
    }
    assert.equal(new Set(bodies).size, 1);
  });

  it('locks an email after five failures within 15 minutes, for 15 minutes, then lets it in', async () => {
    const address = email();
    const m = await invite(t.app, v.id, address);
    const client = new ConsoleClient(t.app);
    await client.setPassword(m.token, PASSWORD);
    for (let i = 0; i < 5; i += 1) {
      assert.equal((await client.signIn(address, `wrong password ${i}`)).status, 401);
      now += MINUTE;
    }
    assert.equal((await client.signIn(address, PASSWORD)).status, 401, 'locked: the right password is refused too');
    now += 11 * MINUTE;
    assert.equal((await client.signIn(address, PASSWORD)).status, 401, 'still locked 15 minutes after the fifth failure');
    now += 5 * MINUTE;
    assert.equal((await client.signIn(address, PASSWORD)).status, 303, 'unlocked');
  });

  it('does not lock on failures spread over more than 15 minutes', async () => {
    const address = email();
    const m = await invite(t.app, v.id, address);
    const client = new ConsoleClient(t.app);
    await client.setPassword(m.token, PASSWORD);
    for (let i = 0; i < 6; i += 1) {
      await client.signIn(address, 'wrong password!');
      now += 4 * MINUTE;
    }
    assert.equal((await client.signIn(address, PASSWORD)).status, 303);
  });

  it('refuses a state-changing request without its CSRF token', async () => {
    const m = await invite(t.app, v.id, email());
    const client = new ConsoleClient(t.app);
    await client.request('GET', `/console/invite/${m.token}`);
    assert.equal((await client.request('POST', `/console/invite/${m.token}`, { password: PASSWORD })).status, 403);
    assert.equal((await client.request('POST', `/console/invite/${m.token}`, { password: PASSWORD, csrf: 'x'.repeat(32) })).status, 403);
    await client.setPassword(m.token, PASSWORD);
    // Without the cookie (another site's form): the field alone is not enough.
    const page = await new ConsoleClient(t.app).request('GET', '/console/sign-in');
    const stranger = new ConsoleClient(t.app);
    assert.equal(
      (await stranger.request('POST', '/console/sign-in', { csrf: csrfOf(page.body), email: m.email, password: PASSWORD })).status,
      403,
    );
    // Signed in: sign-out needs the session's token.
    assert.equal((await client.signIn(m.email, PASSWORD)).status, 303);
    assert.equal((await client.request('POST', '/console/sign-out', { csrf: '' })).status, 403);
    assert.equal((await client.request('GET', '/console')).status, 200, 'still signed in');
  });

  it('ends a session after 12 idle hours', async () => {
    const { client } = await signedIn(t.app, v.id, email());
    now += 11 * HOUR;
    assert.equal((await client.request('GET', '/console')).status, 200);
    now += 11 * HOUR;
    assert.equal((await client.request('GET', '/console')).status, 200, 'each request keeps it alive');
    now += 12 * HOUR + MINUTE;
    const res = await client.request('GET', '/console');
    assert.equal(res.status, 303);
    assert.equal(res.location, '/console/sign-in');
  });

  it('ends a session 7 days after sign-in however busy', async () => {
    const { client } = await signedIn(t.app, v.id, email());
    for (let i = 0; i < 14; i += 1) {
      now += 11 * HOUR;
      assert.equal((await client.request('GET', '/console')).status, 200);
    }
    now += 11 * HOUR; // 165 h
    assert.equal((await client.request('GET', '/console')).status, 200);
    now += 4 * HOUR; // 169 h
    assert.equal((await client.request('GET', '/console')).status, 303);
  });

  it('ends sessions at once on sign-out, disabling, removal and a re-invite', async () => {
    const out = await signedIn(t.app, v.id, email());
    const home = await out.client.request('GET', '/console');
    const cookie = out.client.jar.get('carta_session')!;
    const signOut = await out.client.request('POST', '/console/sign-out', { csrf: csrfOf(home.body) });
    assert.equal(signOut.status, 303);
    assert.ok(signOut.cookies.some((c) => c.startsWith('carta_session=;') && c.includes('Max-Age=0')));
    const replay = new ConsoleClient(t.app);
    replay.jar.set('carta_session', cookie);
    assert.equal((await replay.request('GET', '/console')).status, 303, 'the old cookie is worth nothing');

    for (const end of [
      (id: string) => admin(t.app, 'PATCH', `/staff/${id}`, { disabled: true }),
      (id: string) => admin(t.app, 'DELETE', `/staff/${id}`),
      (id: string) => admin(t.app, 'POST', `/staff/${id}/invite`),
    ]) {
      const { member, client } = await signedIn(t.app, v.id, email());
      assert.equal((await client.request('GET', '/console')).status, 200);
      assert.ok((await end(member.id)).status < 300);
      assert.equal((await client.request('GET', '/console')).status, 303);
    }
  });

  it('a re-invite is a password reset: the old password stops working', async () => {
    const { member, client } = await signedIn(t.app, v.id, email());
    const fresh = await admin(t.app, 'POST', `/staff/${member.id}/invite`);
    assert.equal((await client.signIn(member.email, PASSWORD)).status, 401);
    assert.equal((await client.setPassword(fresh.body.inviteUrl.split('/').pop(), 'a brand new password')).status, 200);
    assert.equal((await client.signIn(member.email, 'a brand new password')).status, 303);
  });

  it('takes no API key on console routes, and no session cookie on /v1', async () => {
    const anonymous = await call(t.app, 'GET', '/console', { key: v.key });
    assert.equal(anonymous.status, 303, 'an API key signs nobody in');
    const { client } = await signedIn(t.app, v.id, email());
    const cookie = `carta_session=${client.jar.get('carta_session')}`;
    const api = await call(t.app, 'GET', '/v1/settings', { headers: { cookie } });
    assert.equal(api.status, 401);
    assert.equal(api.body.message, 'Missing API key');
  });

  it('shows a member of venue A nothing of venue B', async () => {
    const b = await createVenue(t.app);
    const { client } = await signedIn(t.app, v.id, email());
    const bMember = await invite(t.app, b.id, email(), 'owner', 'Bea Other');
    const home = await client.request('GET', '/console');
    const venueB = (await admin(t.app, 'GET', `/venues/${b.id}`)).body;
    assert.ok(!home.body.includes(venueB.name) && !home.body.includes('Bea Other'));
    // A's session does not open B's invite, nor is the invite page a way in.
    const page = await client.request('GET', `/console/invite/${bMember.token}`);
    assert.ok(!page.body.includes(venueB.name) && !page.body.includes(bMember.email));
  });

  it('counts every console route against the per-IP buckets', async () => {
    const limited = await startApp({ rateLimits: true });
    try {
      const client = new ConsoleClient(limited.app);
      for (const res of [
        await client.request('GET', '/console'),
        await client.request('GET', '/console/sign-in'),
        await client.request('POST', '/console/sign-in', { csrf: 'x', email: 'a@example.com', password: 'p' }),
        await client.request('POST', '/console/sign-out', { csrf: 'x' }),
        await client.request('GET', '/console/invite/abcdefghij'),
      ])
        assert.ok(res.headers['x-ratelimit-limit-short'] !== undefined, JSON.stringify(res.headers));
    } finally {
      await limited.close();
    }
  });

  it('serves pages with the strict CSP, no inline script or style, and the stylesheet from this origin', async () => {
    const page = await new ConsoleClient(t.app).request('GET', '/console/sign-in');
    assert.doesNotMatch(page.body, /<script|style=|<style/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    const css = await call(t.app, 'GET', '/console/assets/console.css');
    assert.equal(css.status, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
  });
});
