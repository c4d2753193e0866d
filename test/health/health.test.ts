import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { call, startApp, type TestApp } from '../helpers/app.js';

/** One raw exchange with the listening app on loopback: what the server answers before any route runs. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(text);
  });
}

describe('health and readiness', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('answers /health without a key or the database', async () => {
    const res = await call(t.app, 'GET', '/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  it('answers /ready with 200 while the database answers', async () => {
    const res = await call(t.app, 'GET', '/ready');
    assert.equal(res.status, 200);
  });

  it('gets the 400 its OpenAPI entry documents for a request the server cannot parse', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    const doc = (await call(t.app, 'GET', '/v1/openapi.json')).body;
    for (const path of ['/health', '/ready']) {
      assert.match(doc.paths[path].get.responses['400'].description, /Malformed HTTP request/, path);
      const raw = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`);
      const [head, body] = raw.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 400 /, path);
      assert.deepEqual(
        [JSON.parse(body).statusCode, JSON.parse(body).message, JSON.parse(body).path],
        [400, 'Malformed HTTP request', path],
      );
    }
  });
});
