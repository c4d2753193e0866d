import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig, SCRYPT_COST, type Config } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { SIGN_IN_BUDGET, SIGN_IN_WAITING_PER_ADDRESS } from '../../src/http/rate-limit/sign-in-budget.js';
import { PasswordHasher } from '../../src/modules/console/passwords.js';
import { admin, ADMIN_TOKEN, createVenue, TEST_SCRYPT_COST, type VenueFixture } from '../helpers/app.js';
import { testDatabase, type TestDatabase } from '../helpers/db.js';
import { csrfOf, invite, PASSWORD, tokenOf } from './console-client.js';

const MINUTE = 60_000;

// Console sign-in under attack (docs/security.md): failure budgets per address and per email
// before any hash, a cap on hashes at once, locks per (email, address), one hash per attempt
// whatever the email or the password's length, OWASP's scrypt cost with rehash at sign-in, a
// strength estimator on new passwords, and operators' log lines for failures and locks.

interface Harness {
  app: App;
  database: TestDatabase;
  logs: string[];
  clock: { now: number };
  close(): Promise<void>;
}

async function harness(overrides: Partial<Config> = {}): Promise<Harness> {
  const database = await testDatabase();
  const logs: string[] = [];
  const clock = { now: Date.parse('2026-06-01T10:00:00Z') };
  const config = loadConfig(
    { RATE_LIMITS: 'off', LOG_LEVEL: 'info', ADMIN_TOKEN, DATA_DIR: '/nonexistent', OVERLOAD_DELAY_MS: '600000' },
    overrides,
  );
  const { app } = await buildApp({
    config,
    db: database.db,
    clock: () => clock.now,
    logStream: { write: (line: string) => void logs.push(line) },
  });
  await app.ready();
  return {
    app,
    database,
    logs,
    clock,
    async close() {
      await app.close();
      await database.dispose();
    },
  };
}

/** A browser at one client address: the sign-in form's CSRF cookie and field, then posts. */
class Browser {
  private cookie = '';
  private csrf = '';
  constructor(
    private readonly app: App,
    readonly address: string,
  ) {}

  async open(path = '/console/sign-in'): Promise<void> {
    const page = await this.app.inject({ method: 'GET', url: path, remoteAddress: this.address });
    assert.equal(page.statusCode, 200, page.body);
    const set = [page.headers['set-cookie'] ?? []].flat() as string[];
    this.cookie = set[0].split(';')[0];
    this.csrf = csrfOf(page.body);
  }

  async post(path: string, fields: Record<string, string>) {
    if (!this.csrf) await this.open(path.startsWith('/console/invite/') ? path : '/console/sign-in');
    const started = performance.now();
    const res = await this.app.inject({
      method: 'POST',
      url: path,
      remoteAddress: this.address,
      headers: { cookie: this.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf: this.csrf, ...fields }).toString(),
    });
    return { status: res.statusCode, body: res.body, headers: res.headers, ms: performance.now() - started };
  }

  signIn(email: string, password: string) {
    return this.post('/console/sign-in', { email, password });
  }

  setPassword(token: string, password: string) {
    return this.post(`/console/invite/${token}`, { password });
  }
}

const alertOf = (body: string) => /role="alert"[^>]*>([^<]+)/.exec(body)?.[1] ?? '';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let n = 0;
const email = (tag = 'member') => `${tag}${(n += 1)}@example.com`;

describe('console sign-in under attack, at the test cost', () => {
  let h: Harness;
  let v: VenueFixture;

  before(async () => {
    h = await harness({ scryptCost: TEST_SCRYPT_COST });
    v = await createVenue(h.app);
  });
  after(() => h.close());

  /** An active member whose password was set from `address` (known for them from then on). */
  async function member(address: string) {
    const m = await invite(h.app, v.id, email());
    assert.equal((await new Browser(h.app, address).setPassword(m.token, PASSWORD)).status, 200);
    return m;
  }

  it('refuses failed sign-ins from one address past its budget, unknown emails included, with 429 and Retry-After', async () => {
    const attacker = new Browser(h.app, '203.0.113.10');
    for (let i = 0; i < SIGN_IN_BUDGET.perAddress; i += 1)
      assert.equal((await attacker.signIn(email('nobody'), 'a wrong password')).status, 401, `failure ${i + 1}`);
    const refused = await attacker.signIn(email('nobody'), 'a wrong password');
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers['retry-after']) > 60, String(refused.headers['retry-after']));
    assert.match(alertOf(refused.body), /Too many failed sign-ins/);
    const logged = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'console sign-in refused');
    assert.deepEqual(
      logged.map((l) => [l.address, l.reason]),
      [['203.0.113.10', 'sign-in-address']],
    );
    // Another address is not this one's budget.
    assert.equal((await new Browser(h.app, '203.0.113.11').signIn(email('nobody'), 'a wrong password')).status, 401);
    h.clock.now += SIGN_IN_BUDGET.windowMs;
    assert.equal((await attacker.signIn(email('nobody'), 'a wrong password')).status, 401, 'the budget is back after 15 minutes');
  });

  it('counts an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 one', async () => {
    for (let i = 0; i < SIGN_IN_BUDGET.perAddress; i += 1) {
      const status = (await new Browser(h.app, `2001:db8:7:1::${(i + 1).toString(16)}`).signIn(email('nobody'), 'a wrong password')).status;
      assert.equal(status, 401);
    }
    assert.equal((await new Browser(h.app, '2001:db8:7:1:ffff:1:2:3').signIn(email('nobody'), 'a wrong password')).status, 429);
    assert.equal((await new Browser(h.app, '2001:db8:7:2::1').signIn(email('nobody'), 'a wrong password')).status, 401, 'another /64');
    h.clock.now += SIGN_IN_BUDGET.windowMs;
  });

  it('locks an email for one address only: the member signs in from elsewhere, and a new invite lifts the lock', async () => {
    const m = await member('198.51.100.7');
    const attacker = new Browser(h.app, '203.0.113.20');
    for (let i = 0; i < 5; i += 1) assert.equal((await attacker.signIn(m.email, `wrong password ${i}`)).status, 401);
    assert.equal((await attacker.signIn(m.email, PASSWORD)).status, 401, 'locked there: the right password is refused too');
    // Five failures from elsewhere lock nothing where the member works.
    assert.equal((await new Browser(h.app, '198.51.100.7').signIn(m.email, PASSWORD)).status, 303);
    h.clock.now += 14 * MINUTE;
    assert.equal((await attacker.signIn(m.email, PASSWORD)).status, 401, 'still locked 14 minutes on');
    // A locked member resets through a new invite, from the locked address itself.
    const fresh = await admin(h.app, 'POST', `/staff/${m.id}/invite`);
    const locked = new Browser(h.app, '203.0.113.20');
    assert.equal((await locked.setPassword(tokenOf(fresh.body.inviteUrl), 'a fresh kitchen lantern')).status, 200);
    assert.equal((await locked.signIn(m.email, 'a fresh kitchen lantern')).status, 303);
    h.clock.now += SIGN_IN_BUDGET.windowMs;
  });

  it('slows down an email failing from many addresses, but not for the addresses its member signed in from', async () => {
    const m = await member('198.51.100.8');
    let failures = 0;
    for (let a = 1; failures < SIGN_IN_BUDGET.perEmail; a += 1) {
      const attacker = new Browser(h.app, `203.0.113.${100 + a}`);
      for (let i = 0; i < 4 && failures < SIGN_IN_BUDGET.perEmail; i += 1, failures += 1)
        assert.equal((await attacker.signIn(m.email, 'a wrong password')).status, 401);
    }
    const elsewhere = await new Browser(h.app, '203.0.113.200').signIn(m.email, PASSWORD);
    assert.equal(elsewhere.status, 429, 'a new address waits, even with the right password');
    // The same answer for an email no member has: the slow-down tells nothing.
    let unknownFailures = 0;
    const unknown = email('nobody');
    for (let a = 1; unknownFailures < SIGN_IN_BUDGET.perEmail; a += 1) {
      const attacker = new Browser(h.app, `203.0.114.${a}`);
      for (let i = 0; i < 4 && unknownFailures < SIGN_IN_BUDGET.perEmail; i += 1, unknownFailures += 1)
        await attacker.signIn(unknown, 'a wrong password');
    }
    assert.equal((await new Browser(h.app, '203.0.113.200').signIn(unknown, PASSWORD)).status, 429);
    assert.equal((await new Browser(h.app, '198.51.100.8').signIn(m.email, PASSWORD)).status, 303, 'the venue still gets in');
    h.clock.now += SIGN_IN_BUDGET.windowMs;
  });

  it('logs each failure and lock for operators: the address, the member when there is one, the reason; never the password', async () => {
    const m = await member('198.51.100.9');
    const attacker = new Browser(h.app, '203.0.113.30');
    const before = h.logs.length;
    await attacker.signIn('nobody.at.all@example.com', 'CanaryPassword-1x9');
    for (let i = 0; i < 5; i += 1) await attacker.signIn(m.email, `CanaryPassword-${i}`);
    const lines = h.logs.slice(before).map((l) => JSON.parse(l));
    const failed = lines.filter((l) => l.msg === 'console sign-in failed');
    assert.equal(failed.length, 6);
    assert.deepEqual(
      failed.map((l) => [l.address, l.member, l.reason]),
      [['203.0.113.30', null, 'unknown_email'], ...Array.from({ length: 5 }, () => ['203.0.113.30', m.id, 'wrong_password'])],
    );
    const locked = lines.filter((l) => l.msg === 'console sign-in locked');
    assert.equal(locked.length, 1);
    assert.equal(locked[0].member, m.id);
    assert.equal(locked[0].address, '203.0.113.30');
    assert.ok(!h.logs.join('').includes('CanaryPassword'), 'no password in the log');
    assert.ok(!h.logs.join('').includes('nobody.at.all'), 'no email that names no member');
    h.clock.now += SIGN_IN_BUDGET.windowMs;
  });

  it("refuses weak passwords with the estimator's reasons on the invite page", async () => {
    const m = await invite(h.app, v.id, 'grace.hopper@example.com', 'staff', 'Grace Hopper');
    const browser = new Browser(h.app, '198.51.100.10');
    for (const weak of ['Password123!', 'Summer2024!', 'carta123456', 'qwertyuiop12', 'gracehopper1']) {
      const res = await browser.setPassword(m.token, weak);
      assert.equal(res.status, 400, weak);
      assert.match(alertOf(res.body), /too easy to guess/, weak);
    }
    const res = await browser.setPassword(m.token, 'Password123!');
    assert.match(alertOf(res.body), /commonly used password|Add more words/);
    assert.equal((await browser.setPassword(m.token, 'kitchen lantern orbit')).status, 200);
  });
});

describe('console sign-in under attack, at the production cost', () => {
  let h: Harness;
  let v: VenueFixture;

  before(async () => {
    h = await harness({ scryptCost: SCRYPT_COST });
    v = await createVenue(h.app);
  });
  after(() => h.close());

  it("hashes new passwords at OWASP's scrypt cost (N=2^17, r=8, p=1) and rehashes older ones at sign-in", async () => {
    const m = await invite(h.app, v.id, email());
    const browser = new Browser(h.app, '198.51.100.20');
    assert.equal((await browser.setPassword(m.token, PASSWORD)).status, 200);
    const stored = async () =>
      (await h.database.db.query<{ password_hash: string }>('select password_hash from staff_members where id = $1', [m.id])).rows[0]
        .password_hash;
    assert.match(await stored(), /^scrypt\$131072\$8\$1\$/);
    const old = await new PasswordHasher({ N: 2 ** 15, r: 8, p: 1 }).hash(PASSWORD);
    await h.database.db.query('update staff_members set password_hash = $2 where id = $1', [m.id, old]);
    assert.equal((await browser.signIn(m.email, PASSWORD)).status, 303, 'a hash at the old cost still verifies');
    const rehashed = await stored();
    assert.match(rehashed, /^scrypt\$131072\$8\$1\$/);
    assert.notEqual(rehashed, old);
    assert.equal((await new Browser(h.app, '198.51.100.20').signIn(m.email, PASSWORD)).status, 303, 'and the new hash verifies');
  });

  it('takes as long for a known email as for an unknown one, whatever the length of the password', async () => {
    const m = await invite(h.app, v.id, email());
    assert.equal((await new Browser(h.app, '198.51.100.21').setPassword(m.token, PASSWORD)).status, 200);
    const long = 'x'.repeat(300);
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const a = await new Browser(h.app, `203.0.113.${40 + i}`).signIn(m.email, long);
      const b = await new Browser(h.app, `203.0.113.${50 + i}`).signIn(email('nobody'), long);
      assert.equal(a.status, 401);
      assert.equal(b.status, 401);
      known.push(a.ms);
      unknown.push(b.ms);
    }
    // Before, a known email skipped the hash for such a password (10-34 ms against 164-521 ms).
    const ratio = median(known) / median(unknown);
    assert.ok(ratio > 0.5 && ratio < 2, `known ${known.map(Math.round)} ms, unknown ${unknown.map(Math.round)} ms`);
  });

  it('caps hashes at once: one per address, a few waiting behind it (then 429), SIGN_IN_HASHES in all (then 503)', async () => {
    // Staff behind one address sign in together: they take turns; a flood past the waiting few is refused.
    const sameAddress = new Browser(h.app, '203.0.113.60');
    await sameAddress.open();
    const together = await Promise.all(
      Array.from({ length: 2 + SIGN_IN_WAITING_PER_ADDRESS }, () => sameAddress.signIn(email('nobody'), 'a wrong password')),
    );
    assert.deepEqual(together.map((r) => r.status).sort(), [...Array.from({ length: 1 + SIGN_IN_WAITING_PER_ADDRESS }, () => 401), 429]);
    assert.equal(together.find((r) => r.status === 429)!.headers['retry-after'], '1');
    const browsers = Array.from({ length: 6 }, (_, i) => new Browser(h.app, `203.0.113.${70 + i}`));
    await Promise.all(browsers.map((b) => b.open()));
    const many = await Promise.all(browsers.map((b) => b.signIn(email('nobody'), 'a wrong password')));
    const busy = many.filter((r) => r.status === 503);
    assert.ok(busy.length > 0 && busy.length <= 3, many.map((r) => r.status).join());
    assert.ok(busy.every((r) => r.headers['retry-after'] === '1' && /busy/.test(alertOf(r.body))));
    assert.equal(many.filter((r) => r.status === 401).length, 6 - busy.length);
  });

  it('lets a member in quickly while two addresses flood sign-in', async () => {
    const m = await invite(h.app, v.id, email());
    const venue = new Browser(h.app, '198.51.100.30');
    assert.equal((await venue.setPassword(m.token, PASSWORD)).status, 200);
    const alone = await venue.signIn(m.email, PASSWORD);
    assert.equal(alone.status, 303);

    // Two addresses, each sending ten sign-ins a second (twice the rate of the review's attack)
    // without waiting for answers, alternately at the member's email and at unknown ones.
    const statuses = new Map<number, number>();
    const inFlight: Promise<unknown>[] = [];
    const attackers = [new Browser(h.app, '203.0.113.90'), new Browser(h.app, '2001:db8:66::1')];
    await Promise.all(attackers.map((a) => a.open()));
    let sent = 0;
    const timer = setInterval(() => {
      for (const attacker of attackers) {
        const target = sent % 2 === 0 ? m.email : email('nobody');
        inFlight.push(
          attacker.signIn(target, 'a wrong password').then((res) => statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)),
        );
      }
      sent += 1;
    }, 100);
    // The member comes while the flood has been running for a second.
    while (sent < 10) await new Promise((resolve) => setTimeout(resolve, 20));
    const during = await venue.signIn(m.email, PASSWORD);
    clearInterval(timer);
    await Promise.all(inFlight);
    assert.equal(during.status, 303, alertOf(during.body));
    // The bound is generous for a loaded machine: the member's hash shares the cores with at most
    // one flood hash per address (about 1.5 times its time alone on two idle cores); unguarded, it
    // waited behind every hash the flood had started (5-9 s at 5 sign-ins a second, at a third of the cost).
    const bound = Math.max(5000, 6 * alone.ms);
    assert.ok(during.ms < bound, `signed in after ${Math.round(during.ms)} ms (alone ${Math.round(alone.ms)} ms)`);
    process.stdout.write(
      `# member sign-in: ${Math.round(alone.ms)} ms alone, ${Math.round(during.ms)} ms under the flood; flood answers ${JSON.stringify(Object.fromEntries(statuses))}\n`,
    );
  });
});

describe('an https deployment', () => {
  let h: Harness;
  before(async () => {
    h = await harness({ scryptCost: TEST_SCRYPT_COST, publicBaseUrl: 'https://carta.example.com' });
  });
  after(() => h.close());

  it('sends Strict-Transport-Security on pages, JSON, and errors from the router and the routes', async () => {
    for (const [method, url] of [
      ['GET', '/console/sign-in'],
      ['GET', '/health'],
      ['GET', '/v1/menu'],
      ['GET', '/nowhere'],
      ['GET', '/v1/%E0%A4%A'],
    ] as const) {
      const res = await h.app.inject({ method, url });
      assert.equal(res.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', `${method} ${url} (${res.statusCode})`);
    }
  });

  it('sends none on http, where browsers ignore it', async () => {
    const plain = await harness({ scryptCost: TEST_SCRYPT_COST });
    try {
      assert.equal((await plain.app.inject({ method: 'GET', url: '/console/sign-in' })).headers['strict-transport-security'], undefined);
    } finally {
      await plain.close();
    }
  });
});
