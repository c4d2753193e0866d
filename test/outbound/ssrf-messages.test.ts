import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import type { Resolver } from '../../src/outbound/guarded-connector.js';
import { ADMIN_TOKEN, call, createVenue, syncOk, type VenueFixture } from '../helpers/app.js';
import { testDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort, until } from '../helpers/net.js';

// What an outbound refusal tells the client (an upload's error, a webhook delivery's
// lastError) and what it tells the operators (the log). A name's DNS answer is for the log only:
// the client learns that the host resolves to an address that is not allowed, never which one or
// what kind. Every name here resolves to loopback, so even a broken guard would dial only this
// machine, and a trap listening there counts connections (there must be none).

/** The test DNS: names that resolve inside (loopback in three forms), and localhost for the allowed test endpoint. */
const DNS: Record<string, string[]> = {
  'vm.example': ['127.0.0.1'],
  'vm6.example': ['::1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  localhost: ['127.0.0.1'],
};
const resolve: Resolver = async (hostname) => {
  const answer = DNS[hostname.toLowerCase().replace(/\.$/, '')];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer.map((address) => ({ address, family: net.isIP(address) }));
};

/** Text that would tell the client what a name resolved to, or what kind of address it is. */
const DISCLOSURES = ['127.0.0.1', '::1', '::ffff', 'loopback'];

function assertDiscloses(text: string, disclosures: readonly string[], what: string): void {
  for (const d of disclosures) assert.ok(!text.includes(d), `${what} says '${d}': ${text}`);
}

interface LogLine {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

describe('outbound refusals: generic to the client, in detail in the log', () => {
  let app: App;
  let database: TestDatabase;
  let trap: net.Server;
  let trapPort: number;
  let trapConnections = 0;
  /** Nothing listens here; localhost on this port is a test endpoint the guard lets through. */
  let closedPort: number;
  let v: VenueFixture;
  const raw: string[] = [];
  const lines = () => raw.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as LogLine);
  const refusals = () => lines().filter((l) => l.msg === 'outbound connection refused by the SSRF guard');

  before(async () => {
    trap = net.createServer((socket) => {
      trapConnections += 1;
      socket.destroy();
    });
    await new Promise<void>((ready) => trap.listen(0, '::', ready));
    trapPort = (trap.address() as AddressInfo).port;
    closedPort = await freePort();
    database = await testDatabase();
    const config = loadConfig(
      { RATE_LIMITS: 'off', LOG_LEVEL: 'info', ADMIN_TOKEN, DATA_DIR: '/nonexistent' },
      { ssrfTestAllow: [{ host: 'localhost', port: closedPort }], mediaFetchTimeoutMs: 2000 },
    );
    ({ app } = await buildApp({
      config,
      db: database.db,
      resolve,
      logStream: { write: (line: string) => void raw.push(line) },
      webhookDispatch: { pollMs: 50, retryDelaysMs: [60_000] },
    }));
    await app.ready();
    v = await createVenue(app, { plan: 'pro' });
    await syncOk(app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
  });
  after(async () => {
    await app.close();
    await database.dispose();
    await new Promise<void>((done) => trap.close(() => done()));
  });

  const fromUrl = (url: string) => call(app, 'POST', '/v1/products/p1/image', { key: v.key, body: { url } });

  it('answers BLOCKED_SOURCE_URL for a name that resolves inside without the address, and logs host, address and reason', async () => {
    for (const [host, address] of [
      ['vm.example', '127.0.0.1'],
      ['vm6.example', '::1'],
      ['mapped.example', '::ffff:127.0.0.1'],
    ]) {
      raw.length = 0;
      const res = await fromUrl(`http://${host}:${trapPort}/image.png`);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, 'BLOCKED_SOURCE_URL');
      assertDiscloses(JSON.stringify(res.body), DISCLOSURES, `the answer for ${host}`);
      assertDiscloses(JSON.stringify(res.headers), DISCLOSURES, `the headers for ${host}`);

      const [line, ...more] = refusals();
      assert.ok(line, `a refusal was logged for ${host}`);
      assert.equal(more.length, 0);
      assert.equal(line.level, 40, 'a warning');
      assert.deepEqual([line.purpose, line.host, line.port, line.address], ['media fetch', host, trapPort, address]);
      assert.match(String(line.reason), /loopback/);
    }
  });

  it('may still describe an IP literal the URL names itself (nothing was resolved)', async () => {
    const res = await fromUrl(`http://127.0.0.1:${trapPort}/image.png`);
    assert.equal(res.body.code, 'BLOCKED_SOURCE_URL');
    assert.match(res.body.message, /127\.0\.0\.1/);
  });

  it('says a refused connection without the address the name resolved to', async () => {
    const res = await fromUrl(`http://localhost:${closedPort}/image.png`);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'SOURCE_FETCH_FAILED');
    assertDiscloses(JSON.stringify(res.body), ['127.0.0.1'], 'the answer');
  });

  /** Pings a new endpoint at `url` and returns its delivery once an attempt is recorded. */
  async function pingOnce(url: string): Promise<{ endpointId: string; delivery: any }> {
    const created = await call(app, 'POST', '/v1/webhooks', { key: v.key, body: { url, events: ['order.created'] } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const endpointId = created.body.id;
    const ping = await call(app, 'POST', `/v1/webhooks/${endpointId}/test`, { key: v.key });
    assert.equal(ping.status, 202, JSON.stringify(ping.body));
    const delivery = await until('the attempt', async () => {
      const log = await call(app, 'GET', `/v1/webhooks/${endpointId}/deliveries`, { key: v.key });
      return log.body.items.find((d: any) => d.attempts > 0 && d.lastError);
    });
    return { endpointId, delivery };
  }

  it("keeps a webhook delivery's lastError generic when its host resolves inside, and logs the decision", async () => {
    raw.length = 0;
    const { endpointId, delivery } = await pingOnce('https://vm.example/hooks');
    assert.equal(delivery.lastStatusCode, null);
    assertDiscloses(delivery.lastError, DISCLOSURES, 'lastError');
    const log = await call(app, 'GET', `/v1/webhooks/${endpointId}/deliveries`, { key: v.key });
    assertDiscloses(JSON.stringify(log.body), DISCLOSURES, 'the delivery log');
    const endpoint = await call(app, 'GET', `/v1/webhooks/${endpointId}`, { key: v.key });
    assertDiscloses(JSON.stringify(endpoint.body), DISCLOSURES, 'the endpoint');

    const line = await until('the logged refusal', () => refusals().find((l) => l.purpose === 'webhook'));
    assert.deepEqual([line.host, line.port, line.address], ['vm.example', 443, '127.0.0.1']);
    assert.match(String(line.reason), /loopback/);
  });

  it("says a webhook receiver's refused connection without the address dialled", async () => {
    const { delivery } = await pingOnce(`http://localhost:${closedPort}/hooks`);
    assert.equal(delivery.lastError, 'connection refused');
  });

  it('opened no connection to the trap', () => {
    assert.equal(trapConnections, 0);
  });
});
