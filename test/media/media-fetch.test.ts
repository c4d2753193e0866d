import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { makeImage } from '../helpers/images.js';

// Images from a remote URL, end to end. A loopback server stands in for the
// remote host and is let through the guard by SSRF_TEST_ALLOW (config.ssrfTestAllow); every other
// vector here lands on loopback even if the guard failed, and a second server records whether any
// connection reached it. Private, link-local, metadata and DNS vectors are tested at the decision
// layer (test/outbound/ssrf.test.ts), never end to end.

const MB = 1024 * 1024;

let upstream: http.Server;
let upstreamPort: number;
/** Listens on every loopback address (:: is dual-stack) and counts connections: there must be none. */
let trap: net.Server;
let trapPort: number;
let trapConnections = 0;
let png: Buffer;
let t: TestApp;
let v: VenueFixture;

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  const redirect = (to: string) => {
    res.writeHead(302, { location: to });
    res.end();
  };
  switch (path) {
    case '/image.png':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.end(png);
      return;
    case '/lying-type':
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end('<html><body>not an image</body></html>');
      return;
    case '/png-as-html':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(png);
      return;
    case '/r0':
      return redirect('/r1');
    case '/r1':
      return redirect('/r2');
    case '/r2':
      return redirect(`http://127.0.0.1:${upstreamPort}/r3`);
    case '/r3':
      return redirect('/image.png');
    case '/to-trap':
      return redirect(`http://127.0.0.1:${trapPort}/image.png`);
    case '/to-trap6':
      return redirect(`http://[::1]:${trapPort}/image.png`);
    case '/to-trap-decimal':
      return redirect(`http://2130706433:${trapPort}/image.png`);
    case '/slow-drip': {
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write(Buffer.from([0])), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case '/slow-headers':
      res.on('close', () => undefined);
      return; // never answers
    case '/huge-chunked': {
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(256 * 1024, 1);
      let sent = 0;
      const pump = () => {
        while (sent < 16 * MB) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    case '/huge-announced':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 16 * MB });
      res.write(Buffer.alloc(1024));
      return;
    case '/reset':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.write(png.subarray(0, Math.floor(png.length / 2)));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    default:
      res.writeHead(404);
      res.end('not found');
  }
}

before(async () => {
  png = await makeImage(480, 480, 'png', { noise: true });
  upstream = http.createServer(route);
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
  trap = net.createServer((socket) => {
    trapConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, '::', resolve));
  trapPort = (trap.address() as AddressInfo).port;
  t = await startApp({ ssrfTestAllow: [{ host: '127.0.0.1', port: upstreamPort }], mediaFetchTimeoutMs: 1500 });
  v = await createVenue(t.app);
  await syncOk(t.app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
});
after(async () => {
  await t.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  await new Promise<void>((resolve) => trap.close(() => resolve()));
});

const fromUrl = (url: string) => call(t.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { url } });
const at = (path: string) => `http://127.0.0.1:${upstreamPort}${path}`;

function assertCode(res: { status: number; body: any }, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code, JSON.stringify(res.body));
}

describe('image from a URL', () => {
  it('fetches, processes and stores it; the audit keeps the URL without its query string', async () => {
    const res = await fromUrl(at('/image.png?token=s3cr3t-signature'));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.width, 1024);
    const entry = (await call(t.app, 'GET', '/v1/audit-log?action=product.image', { key: v.key })).body.items[0];
    assert.equal(entry.changes.source, 'url');
    assert.equal(entry.changes.sourceUrl, at('/image.png'));
    assert.equal(JSON.stringify(entry).includes('s3cr3t'), false);
  });

  it('follows up to 3 redirects and refuses a 4th', async () => {
    assert.equal((await fromUrl(at('/r1'))).status, 201);
    const res = await fromUrl(at('/r0'));
    assertCode(res, 400, 'SOURCE_FETCH_FAILED');
    assert.match(res.body.message, /redirect/);
  });

  it('sniffs the bytes: a PNG sent as text/html is an image, HTML sent as image/png is not', async () => {
    assert.equal((await fromUrl(at('/png-as-html'))).status, 201);
    assertCode(await fromUrl(at('/lying-type')), 400, 'INVALID_IMAGE');
  });

  it('SOURCE_TOO_LARGE (413): an announced length over 15 MB, and a stream that passes 15 MB', async () => {
    assertCode(await fromUrl(at('/huge-announced')), 413, 'SOURCE_TOO_LARGE');
    assertCode(await fromUrl(at('/huge-chunked')), 413, 'SOURCE_TOO_LARGE');
  });

  it('gives up at the deadline on a slow drip or a silent server', async () => {
    for (const path of ['/slow-drip', '/slow-headers']) {
      const started = Date.now();
      const res = await fromUrl(at(path));
      assertCode(res, 400, 'SOURCE_FETCH_FAILED');
      const took = Date.now() - started;
      assert.ok(took >= 1400 && took < 4000, `${path} took ${took} ms`);
    }
  });

  it('reports a connection reset mid-body and an error status as SOURCE_FETCH_FAILED', async () => {
    assertCode(await fromUrl(at('/reset')), 400, 'SOURCE_FETCH_FAILED');
    const missing = await fromUrl(at('/missing.png'));
    assertCode(missing, 400, 'SOURCE_FETCH_FAILED');
    assert.match(missing.body.message, /404/);
  });

  it('INVALID_SOURCE_URL: other schemes, credentials, not a URL', async () => {
    for (const url of [
      'ftp://127.0.0.1/a.png',
      'file:///etc/passwd',
      `http://user:pass@127.0.0.1:${upstreamPort}/image.png`,
      'not a url',
      '/relative.png',
      'data:image/png;base64,iVBORw0KGgo=',
    ]) {
      assertCode(await fromUrl(url), 400, 'INVALID_SOURCE_URL');
    }
  });
});

describe('BLOCKED_SOURCE_URL end to end: loopback in every spelling, and nothing connects', () => {
  const vectors = () => [
    `http://127.0.0.1:${trapPort}/image.png`,
    `http://127.255.255.254:${trapPort}/image.png`,
    `http://localhost:${trapPort}/image.png`,
    `http://LOCALHOST:${trapPort}/image.png`,
    `http://localhost.:${trapPort}/image.png`,
    `http://2130706433:${trapPort}/image.png`,
    `http://0x7f000001:${trapPort}/image.png`,
    `http://0177.0.0.1:${trapPort}/image.png`,
    `http://0x7f.0.0.1:${trapPort}/image.png`,
    `http://127.1:${trapPort}/image.png`,
    `http://127.0.1:${trapPort}/image.png`,
    `http://[::1]:${trapPort}/image.png`,
    `http://[0:0:0:0:0:0:0:1]:${trapPort}/image.png`,
    `http://[::ffff:127.0.0.1]:${trapPort}/image.png`,
    `http://[::ffff:7f00:1]:${trapPort}/image.png`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${trapPort}/image.png`,
    `http://0.0.0.0:${trapPort}/image.png`,
    `http://0:${trapPort}/image.png`,
    `http://[::]:${trapPort}/image.png`,
    `http://[::ffff:0.0.0.0]:${trapPort}/image.png`,
    `https://127.0.0.1:${trapPort}/image.png`,
    at('/to-trap'),
    at('/to-trap6'),
    at('/to-trap-decimal'),
  ];

  it('refuses every vector with 400 BLOCKED_SOURCE_URL', async () => {
    for (const url of vectors()) assertCode(await fromUrl(url), 400, 'BLOCKED_SOURCE_URL');
  });

  it('opened no connection to the blocked endpoint', () => {
    assert.equal(trapConnections, 0);
  });

  it('lets SSRF_TEST_ALLOW pass only the endpoint it names', async () => {
    // Same host, the trap's port: not on the list.
    assertCode(await fromUrl(`http://127.0.0.1:${trapPort}/image.png`), 400, 'BLOCKED_SOURCE_URL');
    // The allowed port through another loopback spelling is not the named endpoint either.
    assertCode(await fromUrl(`http://[::1]:${upstreamPort}/image.png`), 400, 'BLOCKED_SOURCE_URL');
    assert.equal(trapConnections, 0);
  });
});
