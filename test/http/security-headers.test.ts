import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../src/limits.js';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { makeImage } from '../helpers/images.js';
import { orderBody, patchStatus, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

// Security headers: `X-Content-Type-Options: nosniff` on every response, whoever writes it (a route, the
// error handler, the router, the body parser, Node's HTTP parser), and `Cache-Control: no-store`
// on every response that carries order or customer data. Routes with an ETag keep their own
// Cache-Control, so their 304s work as before.

interface Seen {
  label: string;
  status: number;
  headers: Record<string, unknown>;
}

describe('security headers on every kind of response', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let base = '';

  before(async () => {
    t = await startApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
  });
  after(() => t.close());

  const get = async (label: string, url: string, options: { key?: string; headers?: Record<string, string> } = {}): Promise<Seen> => {
    const res = await call(t.app, 'GET', url, options);
    return { label, status: res.status, headers: res.headers };
  };

  /** A request line Node's parser refuses: answered on the socket by clientErrorHandler. */
  const rawAnswer = (request: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const url = new URL(base);
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(request));
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

  it('sends nosniff on JSON, HTML, images, streams, 304s and every kind of error', async () => {
    const seen: Seen[] = [];
    const menu = await get('menu', '/v1/menu', { key: v.key });
    seen.push(menu);
    seen.push(await get('menu 304', '/v1/menu', { key: v.key, headers: { 'if-none-match': String(menu.headers.etag) } }));
    const guestMenu = await get('guest menu', `/guest/v1/venues/${v.slug}/menu`);
    seen.push(
      guestMenu,
      await get('guest menu 304', `/guest/v1/venues/${v.slug}/menu`, { headers: { 'if-none-match': String(guestMenu.headers.etag) } }),
    );
    seen.push(await get('health', '/health'), await get('openapi', '/v1/openapi.json'));
    seen.push(await get('guest page', `/m/${v.slug}`), await get('guest page 404', '/t/NoSuchToken000000000000'));
    seen.push(await get('reference docs', '/docs'));
    const logo = await call(t.app, 'POST', '/v1/logo', { key: v.key, body: { base64: (await makeImage(400, 400)).toString('base64') } });
    assert.equal(logo.status, 201, JSON.stringify(logo.body));
    const image = await t.app.inject({ method: 'GET', url: new URL(logo.body.imageUrl).pathname });
    seen.push({ label: 'image', status: image.statusCode, headers: image.headers });
    seen.push({
      label: 'image 304',
      ...(await t.app
        .inject({ method: 'GET', url: new URL(logo.body.imageUrl).pathname, headers: { 'if-none-match': String(image.headers.etag) } })
        .then((r) => ({ status: r.statusCode, headers: r.headers }))),
    });
    const stream = await t.app.inject({ method: 'HEAD', url: '/v1/orders/stream', headers: { authorization: `Bearer ${v.key}` } });
    seen.push({ label: 'stream (HEAD)', status: stream.statusCode, headers: stream.headers });

    seen.push(await get('401', '/v1/menu'), await get('403', '/v1/orders', { key: (await createVenue(t.app, { plan: 'free' })).key }));
    seen.push(await get('404 from the router', '/nowhere'), await get('404 of a route', '/v1/products/nope', { key: v.key }));
    seen.push(await get('404 of a media file', `/media/${v.id}/${'0'.repeat(64)}.webp`));
    seen.push(await get('400 bad URL', '/v1/%E0%A4%A'), await get('414', `/v1/products/${'x'.repeat(600)}`, { key: v.key }));
    const tooLarge = await t.app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' },
      payload: `{"pad":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`,
    });
    seen.push({ label: '413 from the body parser', status: tooLarge.statusCode, headers: tooLarge.headers });
    const tooLargeNowhere = await t.app.inject({
      method: 'POST',
      url: '/nowhere',
      headers: { 'content-type': 'application/json' },
      payload: `{"pad":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`,
    });
    seen.push({ label: '413 on an unknown path', status: tooLargeNowhere.statusCode, headers: tooLargeNowhere.headers });
    const badJson = await t.app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' },
      payload: '{',
    });
    seen.push({ label: '400 bad JSON', status: badJson.statusCode, headers: badJson.headers });

    const expected: Record<string, number> = {
      menu: 200,
      'menu 304': 304,
      'guest menu': 200,
      'guest menu 304': 304,
      health: 200,
      openapi: 200,
      'guest page': 200,
      'guest page 404': 404,
      'reference docs': 200,
      image: 200,
      'image 304': 304,
      'stream (HEAD)': 200,
      401: 401,
      403: 403,
      '404 from the router': 404,
      '404 of a route': 404,
      '404 of a media file': 404,
      '400 bad URL': 400,
      414: 414,
      '413 from the body parser': 413,
      '413 on an unknown path': 413,
      '400 bad JSON': 400,
    };
    assert.deepEqual(Object.fromEntries(seen.map((s) => [s.label, s.status])), expected);
    const missing = seen.filter((s) => s.headers['x-content-type-options'] !== 'nosniff').map((s) => s.label);
    assert.deepEqual(missing, [], 'every response says nosniff');

    // What Node's HTTP parser refuses is answered on the socket, nosniff included.
    const malformed = await rawAnswer('GET /v1/menu HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    assert.match(malformed, /^HTTP\/1\.1 400 /);
    assert.match(malformed, /\r\nX-Content-Type-Options: nosniff\r\n/i);
  });

  it('sends Cache-Control: no-store with order and customer data, and leaves the ETag routes theirs', async () => {
    const order = await call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, { body: orderBody(ids) });
    assert.equal(order.status, 201);
    const location = String(order.headers.location);
    const view = await call(t.app, 'GET', location);
    const refused = await call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, { body: orderBody(ids, { items: [] }) });
    const private_: [string, { status: number; headers: Record<string, unknown> }][] = [
      ['guest order creation', order],
      ['guest order creation refused', refused],
      ['guest order read', view],
      ['guest order read 304', await call(t.app, 'GET', location, { headers: { 'if-none-match': String(view.headers.etag) } })],
      ['orders list', await call(t.app, 'GET', '/v1/orders', { key: v.key })],
      ['orders poll', await call(t.app, 'GET', '/v1/orders?updatedSince=2000-01-01T00:00:00Z', { key: v.key })],
      ['one order', await call(t.app, 'GET', `/v1/orders/${order.body.id}`, { key: v.key })],
      ['status change', await patchStatus(t.app, v.key, order.body.id, 'confirmed')],
      ['key issued', await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live' })],
    ];
    assert.deepEqual(
      private_.map(([label, r]) => [label, r.status]),
      [
        ['guest order creation', 201],
        ['guest order creation refused', 400],
        ['guest order read', 200],
        ['guest order read 304', 304],
        ['orders list', 200],
        ['orders poll', 200],
        ['one order', 200],
        ['status change', 200],
        ['key issued', 201],
      ],
    );
    assert.deepEqual(
      private_.filter(([, r]) => r.headers['cache-control'] !== 'no-store').map(([label]) => label),
      [],
    );
    const stream = await t.app.inject({ method: 'HEAD', url: '/v1/orders/stream', headers: { authorization: `Bearer ${v.key}` } });
    assert.equal(stream.headers['cache-control'], 'no-store');

    // The guest's order page polls its order with If-None-Match itself (web/guest/status.ts): still a 304.
    const changed = await call(t.app, 'GET', location, { headers: { 'if-none-match': String(view.headers.etag) } });
    assert.equal(changed.status, 200, 'the status change moved the ETag');

    // Menus and pages keep theirs: revalidated, with 304s.
    const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.notEqual(menu.headers['cache-control'], 'no-store');
    assert.equal(
      (await call(t.app, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': String(menu.headers.etag) } })).status,
      304,
    );
    const page = await call(t.app, 'GET', `/m/${v.slug}`);
    assert.equal(page.headers['cache-control'], 'no-cache');
  });
});
