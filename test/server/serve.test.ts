import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bin, carta, cartaEnv, cliSkipReason, dataDirFromTemplate, spawnServer, type ServerProcess } from '../helpers/cli.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { freePort, sleep } from '../helpers/net.js';
import { Receiver } from '../helpers/webhook-receiver.js';

const skip = cliSkipReason();

type Server = ServerProcess;

/** `carta serve` as a child process; resolves once /health answers. */
const startServer = (dataDir: string): Promise<Server> => spawnServer([bin, 'serve'], cartaEnv(dataDir));

async function stop(server: Server): Promise<number | null> {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  return server.exited;
}

describe('carta serve (embedded default)', { skip }, () => {
  let dataDir: string;
  const started: Server[] = [];
  before(() => {
    dataDir = dataDirFromTemplate();
  });
  after(async () => {
    for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('generates and prints an operator token once, serves the API, and shuts down cleanly on SIGTERM', async () => {
    const server = await startServer(dataDir);
    started.push(server);

    // First start: the token is printed once and kept under DATA_DIR, readable by its owner only.
    const tokenFile = path.join(dataDir, 'admin-token');
    assert.ok(fs.existsSync(tokenFile));
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.ok(token.length >= 32);
    assert.equal(fs.statSync(tokenFile).mode & 0o077, 0);
    assert.ok(server.output().includes(token), 'the generated token is printed');
    assert.ok(fs.existsSync(path.join(dataDir, 'server.json')));

    // The CLI finds the running server through DATA_DIR/server.json and works through it.
    const venueRun = await carta(dataDir, ['venue', 'create', '--name', 'Served Cafe', '--currency', 'EUR', '--json']);
    assert.equal(venueRun.code, 0, venueRun.stderr);
    const venue = JSON.parse(venueRun.stdout);
    const keyRun = await carta(dataDir, ['key', 'create', '--venue', venue.id, '--json']);
    assert.equal(keyRun.code, 0, keyRun.stderr);
    const key = JSON.parse(keyRun.stdout);

    // Real HTTP: the key works, and the operator API takes the stored token.
    const ref = await fetch(`${server.url}/v1/reference`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.equal(ref.status, 200);
    assert.ok(ref.headers.get('x-request-id'));
    assert.equal(((await ref.json()) as { planLimits: { plan: string } }).planLimits.plan, 'free');
    const shown = await fetch(`${server.url}/admin/v1/venues/${venue.id}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(shown.status, 200);

    // A second server on the same DATA_DIR is refused while the first holds it.
    const rival = await carta(dataDir, ['serve'], { PORT: String(await freePort()) });
    assert.notEqual(rival.code, 0);
    assert.match(rival.stderr, /Another Carta server/);

    assert.equal(await stop(server), 0);
    assert.equal(fs.existsSync(path.join(dataDir, 'server.json')), false);
  });

  it('does not print the operator token again on a later start, and keeps the data', async () => {
    const tokenBefore = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const server = await startServer(dataDir);
    started.push(server);
    try {
      assert.equal(server.output().includes(tokenBefore), false);
      assert.equal(fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(), tokenBefore);
      const list = await carta(dataDir, ['key', 'list', '--venue', '0193a0b0-0000-7000-8000-000000000000']);
      assert.equal(list.code, 4, 'the CLI talks to the running server and gets its 404');
    } finally {
      assert.equal(await stop(server), 0);
    }
  });

  it('lets an in-flight request finish during a graceful shutdown', async () => {
    const server = await startServer(dataDir);
    started.push(server);
    const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const body = JSON.stringify({ name: 'Late Cafe', currency: 'EUR' });
    const response = new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(
        `${server.url}/admin/v1/venues`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      // Half the body now, the rest after the server has been told to stop.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    const res = await response;
    assert.equal(res.status, 201, res.body);
    assert.equal(JSON.parse(res.body).name, 'Late Cafe');
    // The keep-alive socket is let go with the response, so the process need not wait for the client.
    assert.equal(res.connection, 'close');
    assert.equal(await server.exited, 0);
  });

  // bin/carta.js runs the start bundle (scripts/bundle.mjs), where modules no longer sit where
  // tsc put them: each file found by path and each package kept out of the bundle must still load.
  it('serves, from the bundle, what lives outside its code and what it loads on first use: OpenAPI, docs and guest page files, QR codes, images, webhooks, metrics', async () => {
    const receiver = new Receiver();
    await receiver.listen();
    const server = await spawnServer(
      [bin, 'serve'],
      cartaEnv(dataDir, { LOG_LEVEL: 'info', SSRF_TEST_ALLOW: `127.0.0.1:${receiver.port}` }),
    );
    started.push(server);
    try {
      const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
      const request = async (url: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
        const res = await fetch(new URL(url, server.url), {
          method: init.method ?? 'GET',
          headers: {
            ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
            ...(init.body ? { 'content-type': 'application/json' } : {}),
          },
          body: init.body ? JSON.stringify(init.body) : undefined,
        });
        return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
      };
      const venue = JSON.parse(
        (await request('/admin/v1/venues', { method: 'POST', token, body: { name: 'Bundle Cafe', currency: 'EUR', plan: 'pro' } })).text,
      );
      const key = JSON.parse(
        (await request(`/admin/v1/venues/${venue.id}/api-keys`, { method: 'POST', token, body: { mode: 'live' } })).text,
      ).key;

      const openapi = await request('/v1/openapi.json');
      assert.equal(openapi.status, 200);
      assert.match(JSON.parse(openapi.text).openapi, /^3\./);

      // Swagger UI's files come from the swagger-ui-dist package, found from the bundle.
      const docs = await request('/docs');
      assert.equal(docs.status, 200);
      const docsAssets = [...docs.text.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]);
      assert.ok(docsAssets.length >= 2, docs.text.slice(0, 500));
      for (const asset of docsAssets) assert.equal((await request(asset)).status, 200, asset);

      // The guest page's build (dist/web), linked from a page even before a menu is published.
      const page = await request(`/m/${venue.slug}`);
      const guestAssets = [...page.text.matchAll(/(?:src|href)="(\/assets\/guest\/[^"]+)"/g)].map((m) => m[1]);
      assert.ok(guestAssets.length >= 1, page.text.slice(0, 500));
      for (const asset of guestAssets) assert.equal((await request(asset)).status, 200, asset);

      // The QR encoder (a chunk loaded on first use) and sharp (a native addon outside the bundle).
      const table = JSON.parse((await request('/v1/tables', { method: 'POST', token: key, body: { name: 'T1' } })).text);
      const qr = await request(`/v1/tables/${table.id}/qr.svg`, { token: key });
      assert.equal(qr.status, 200);
      assert.match(qr.text, /^<svg|<\?xml/);
      const logo = await request('/v1/logo', { method: 'POST', token: key, body: { base64: toBase64(await makeImage(400, 400, 'png')) } });
      assert.equal(logo.status, 201, logo.text);
      const image = await request(new URL(JSON.parse(logo.text).imageUrl).pathname);
      assert.equal(image.status, 200);
      assert.equal(image.type, 'image/webp');

      // The webhook sender (undici, a chunk of its own) signs and delivers a ping.
      const endpoint = JSON.parse(
        (
          await request('/v1/webhooks', {
            method: 'POST',
            token: key,
            body: { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['order.created'] },
          })
        ).text,
      );
      receiver.secrets = [endpoint.secret];
      assert.equal((await request(`/v1/webhooks/${endpoint.id}/test`, { method: 'POST', token: key })).status, 202);
      for (let waited = 0; receiver.accepted.length === 0 && waited < 10_000; waited += 100) await sleep(100);
      assert.deepEqual(
        receiver.accepted.map((r) => r.type),
        ['ping'],
      );

      // The password estimator (zxcvbn-ts, kept out of the bundle) judges a password set through an invite link.
      const invited = JSON.parse(
        (
          await request(`/admin/v1/venues/${venue.id}/staff`, {
            method: 'POST',
            token,
            body: { email: 'owner@example.com', name: 'Olena', role: 'owner' },
          })
        ).text,
      );
      const invitePage = await fetch(invited.inviteUrl.replace(/^https?:\/\/[^/]+/, server.url));
      const cookies = invitePage.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const csrf = /name="csrf" value="([^"]+)"/.exec(await invitePage.text())?.[1] ?? '';
      const setPassword = (password: string) =>
        fetch(invitePage.url, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, password }),
        });
      const weak = await setPassword('Summer2024!');
      assert.equal(weak.status, 400, await weak.text());
      const set = await setPassword('quiet-harbour-lantern-42');
      assert.equal(set.status, 200);
      assert.match(await set.text(), /Password set/);

      const metrics = await request('/metrics', { token });
      assert.equal(metrics.status, 200);
      assert.match(metrics.text, /process_cpu_seconds_total/);
    } finally {
      await receiver.close();
      assert.equal(await stop(server), 0);
    }
    // The log is buffered: what was pending at exit, the last access line and the shutdown's, is written.
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; route?: string });
    assert.ok(
      lines.some((l) => l.msg === 'request' && l.route === '/metrics'),
      'the last request logged',
    );
    assert.equal(lines.at(-1)?.msg, 'shutting down');
  });
});
