import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { clientErrorHandler } from '../../src/http/error-handler.js';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { orderBody, placeOrder, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

/** The error envelope, whatever raised the error. */
function assertEnvelope(body: any, status: number): void {
  assert.equal(body.statusCode, status, JSON.stringify(body));
  assert.equal(typeof body.message, 'string');
  assert.equal(typeof body.requestId, 'string');
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)), 'timestamp');
  assert.equal(typeof body.path, 'string');
  assert.equal(body.error, undefined, 'no Fastify error label');
}

/** One raw HTTP exchange on a real socket (what no client library will send). */
function rawRequest(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(text);
  });
}

function parseRaw(text: string): { status: number; body: any } {
  const [head, ...rest] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('text PostgreSQL cannot store is refused in the validation layer', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  before(async () => {
    t = await startApp();
    v = await createVenue(t.app);
    ids = await setUpOrderMenu(t.app, v);
  });
  after(() => t.close());

  it('a NUL in a guest order field is 400 naming the field, and no order is made', async () => {
    const res = await placeOrder(t.app, v.slug, orderBody(ids, { customerPhone: '+38050\u00001234567' }));
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assertEnvelope(res.body, 400);
    assert.equal(res.body.message, 'Validation failed');
    assert.deepEqual(res.body.errors, ['customerPhone must not contain NUL characters']);
    const list = await call(t.app, 'GET', '/v1/orders', { key: v.key });
    assert.equal(list.body.items.length, 0);
  });

  it('a lone surrogate as an ingredient externalId in a sync is 400 naming the field, nothing written', async () => {
    const before = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    const res = await call(t.app, 'POST', '/v1/sync', {
      key: v.key,
      body: {
        ingredients: [
          { externalId: 'fine', name: 'Fine' },
          { externalId: '\udfff', name: 'Odd' },
        ],
      },
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body.errors, ['ingredients[1].externalId must not contain unpaired UTF-16 surrogates']);
    const afterRead = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.deepEqual(afterRead.body, before.body);
  });

  it('strings at any depth, property names and query parameters are checked; valid pairs pass', async () => {
    const deep = await call(t.app, 'POST', '/v1/sync', {
      key: v.key,
      body: {
        products: [
          { externalId: 'p1', name: 'P', priceMinor: 1, modifierGroups: [{ name: 'G\u0000', type: 'add_ingredients', options: [] }] },
        ],
      },
    });
    assert.equal(deep.status, 400);
    assert.deepEqual(deep.body.errors, ['products[0].modifierGroups[0].name must not contain NUL characters']);

    const key = await call(t.app, 'POST', '/v1/sync', {
      key: v.key,
      body: { ingredients: [{ externalId: 'i1', name: 'I', translations: { ['u\u0000k']: { name: 'x' } } }] },
    });
    assert.equal(key.status, 400);
    assert.deepEqual(key.body.errors, ['ingredients[0].translations property names must not contain NUL characters']);

    const query = await call(t.app, 'GET', '/v1/menu?locale=e%00n', { key: v.key });
    assert.equal(query.status, 400);
    assert.deepEqual(query.body.errors, ['locale must not contain NUL characters']);

    // An escaped emoji is a valid surrogate pair: stored as sent.
    await syncOk(t.app, v, { ingredients: [{ externalId: 'emoji', name: 'Chili \ud83c\udf36' }] });
    const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.ok(menu.body.ingredients.some((i: any) => i.name === 'Chili 🌶'));
  });

  it('timestamps PostgreSQL cannot store or give back are 400, in bodies and queries', async () => {
    for (const scheduledFor of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+14:00', '10000-01-01T00:00:00Z']) {
      const res = await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor }));
      assert.equal(res.status, 400, `${scheduledFor}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.errors[0], /^scheduledFor /);
    }
    const query = await call(t.app, 'GET', '/v1/orders?createdFrom=0000-01-01T00:00:00Z', { key: v.key });
    assert.equal(query.status, 400, JSON.stringify(query.body));
    assert.equal((await call(t.app, 'GET', '/v1/orders', { key: v.key })).body.items.length, 0, 'no order was stored');
  });

  it('a NUL in a path parameter is the not-found it is', async () => {
    const guest = await call(t.app, 'GET', '/guest/v1/venues/a%00b/menu');
    assert.equal(guest.status, 404);
    assertEnvelope(guest.body, 404);
    assert.equal(guest.body.code, 'VENUE_NOT_FOUND');
    const product = await call(t.app, 'GET', '/v1/products/a%00b', { key: v.key });
    assert.equal(product.status, 404);
    assert.equal(product.body.code, 'PRODUCT_NOT_FOUND');
    const patch = await call(t.app, 'PATCH', '/v1/products/a%00b', { key: v.key, body: { name: 'x' } });
    assert.equal(patch.status, 404);
  });
});

describe('every error is in the envelope, whatever raised it', () => {
  let t: TestApp;
  let v: VenueFixture;
  let port: number;
  before(async () => {
    t = await startApp();
    v = await createVenue(t.app);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  it('a malformed percent-encoding is 400 in the envelope, not FST_ERR_BAD_URL', async () => {
    const res = await call(t.app, 'GET', '/v1/products/%c0%ae?locale=%FF', { key: v.key });
    assert.equal(res.status, 400);
    assertEnvelope(res.body, 400);
    assert.equal(res.body.code, undefined);
    assert.deepEqual(res.body.errors, ['path must be valid percent-encoded UTF-8']);
    assert.equal(res.headers['x-request-id'], res.body.requestId);
  });

  it('a path parameter over the router limit is 414 in the envelope; an externalId-sized one is looked up', async () => {
    const long = await call(t.app, 'GET', `/v1/products/${'x'.repeat(600)}`, { key: v.key });
    assert.equal(long.status, 414);
    assertEnvelope(long.body, 414);
    const id255 = await call(t.app, 'GET', `/v1/products/${'é'.repeat(255)}`, { key: v.key });
    assert.equal(id255.status, 404);
    assert.equal(id255.body.code, 'PRODUCT_NOT_FOUND');
  });

  it('a malformed request line and oversized headers are answered in the envelope on the socket', async () => {
    const bad = parseRaw(await rawRequest(port, 'GET /v1/menu HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    assert.equal(bad.status, 400);
    assertEnvelope(bad.body, 400);
    assert.equal(bad.body.path, '/v1/menu');
    const big = parseRaw(await rawRequest(port, `GET /v1/menu HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    assert.equal(big.status, 431);
    assertEnvelope(big.body, 431);
  });

  it('a request that did not arrive in time is 408 in the envelope', () => {
    let written = '';
    const socket = {
      destroyed: false,
      writable: true,
      write(s: string) {
        written += s;
        return true;
      },
      destroy() {
        this.destroyed = true;
      },
    };
    const err = Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    clientErrorHandler(err, socket as unknown as net.Socket);
    const res = parseRaw(written);
    assert.equal(res.status, 408);
    assertEnvelope(res.body, 408);
    assert.ok(socket.destroyed);
  });

  it('body parser and content-type errors are in the envelope', async () => {
    for (const [headers, payload, status] of [
      [{ 'content-type': 'application/json' }, '{"products": [', 400],
      [{ 'content-type': 'text/plain' }, 'hello', 400],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 'a=1', 400],
      [{ 'content-type': 'application/json', 'content-length': '5' }, '{}', 400],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/sync',
        headers: { authorization: `Bearer ${v.key}`, ...headers },
        payload,
      });
      assert.equal(res.statusCode, status, res.body);
      assertEnvelope(res.json(), status);
    }
  });
});

describe('a request read while the server closes', () => {
  it('is served like any other, with no raw Fastify 503; /ready says the server is draining', async () => {
    const t = await startApp();
    try {
      const v = await createVenue(t.app);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as net.AddressInfo).port;
      const open = async () => {
        const socket = net.connect(port, '127.0.0.1');
        const state = { socket, out: '' };
        socket.on('data', (d) => (state.out += d));
        await new Promise((resolve) => socket.once('connect', resolve));
        return state;
      };
      const a = await open();
      const b = await open();
      const body = JSON.stringify({ products: [{ externalId: 'late', name: 'Late', priceMinor: 1 }] });
      // Two requests still arriving when the close begins...
      a.socket.write(
        `POST /v1/sync HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${v.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      b.socket.write('GET /ready HTTP/1.1\r\nHost: x\r\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closing = t.app.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // ...are answered: the sync in full, and the probe says the server is draining. The request
      // pipelined behind the sync is read while closing and served too.
      a.socket.write(`${body.slice(5)}GET /v1/menu HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${v.key}\r\n\r\n`);
      b.socket.write('\r\n');
      await closing;
      await new Promise((resolve) => setTimeout(resolve, 50));
      a.socket.destroy();
      b.socket.destroy();
      const responses = a.out.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 2, a.out);
      assert.match(responses[0], /^HTTP\/1\.1 201 /);
      assert.match(responses[1], /^HTTP\/1\.1 200 /);
      assert.match(responses[1], /connection: close/i);
      const ready = parseRaw(b.out);
      assert.equal(ready.status, 503, b.out);
      assert.deepEqual(ready.body, { status: 'unavailable' });
      assert.ok(!(a.out + b.out).includes('"error":"Service Unavailable"'), 'no raw Fastify 503');
    } finally {
      await t.database.dispose();
    }
  });
});
