import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT_BYTES, MB } from '../../src/limits.js';
import { createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// Request body cap: bodies over 5 MB are 413
// PAYLOAD_TOO_LARGE in the error envelope, whether the size is announced (Content-Length) or
// only found out while reading (chunked), and the server answers without reading the rest.

let t: TestApp;
let venue: VenueFixture;
before(async () => {
  t = await startApp();
  venue = await createVenue(t.app);
});
after(() => t.close());

/** A sync body of exactly `bytes` bytes (one product whose name pads it out). */
function syncBodyOfSize(bytes: number): string {
  const shell = JSON.stringify({ products: [{ externalId: 'p1', name: '', priceMinor: 100 }] });
  const body = shell.replace('"name":""', `"name":"${'x'.repeat(bytes - shell.length)}"`);
  assert.equal(Buffer.byteLength(body), bytes);
  return body;
}

function assertTooLarge(status: number, body: any, path: string): void {
  assert.equal(status, 413, JSON.stringify(body));
  assert.equal(body.statusCode, 413);
  assert.equal(body.code, 'PAYLOAD_TOO_LARGE');
  assert.match(body.message, /5 MB/);
  assert.equal(body.path, path);
  assert.ok(body.requestId);
  assert.ok(body.timestamp);
}

describe('body size cap', () => {
  it('refuses a body one byte over 5 MB with 413 PAYLOAD_TOO_LARGE in the error envelope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${venue.key}`, 'content-type': 'application/json' },
      payload: syncBodyOfSize(BODY_LIMIT_BYTES + 1),
    });
    assertTooLarge(res.statusCode, res.json(), '/v1/sync');
    assert.equal(res.headers['x-request-id'], res.json().requestId);
  });

  it('caps the public guest routes the same way', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/guest/v1/venues/${venue.slug}/orders`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ comment: 'x'.repeat(6 * MB) }),
    });
    assertTooLarge(res.statusCode, res.json(), `/guest/v1/venues/${venue.slug}/orders`);
  });

  it('accepts a body of exactly 5 MB, and one of 4.9 MB, into the parser (they fail validation, not the size cap)', async () => {
    for (const bytes of [BODY_LIMIT_BYTES, Math.floor(4.9 * MB)]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/sync',
        headers: { authorization: `Bearer ${venue.key}`, 'content-type': 'application/json' },
        payload: syncBodyOfSize(bytes),
      });
      assert.equal(res.statusCode, 400, `${bytes} bytes`);
      assert.equal(res.json().message, 'Validation failed');
      assert.match(res.json().errors.join('\n'), /products\[0\]\.name/);
    }
  });
});

describe('body size cap on a listening server', () => {
  let base: { host: string; port: number };
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address() as AddressInfo;
    base = { host: address.address, port: address.port };
  });

  interface Outcome {
    status: number | null;
    body: any;
    written: number;
    /** How the exchange ended on the client side: a response, or the socket closed under us. */
    ended: 'response' | 'socket-closed';
  }

  /**
   * Streams up to `total` bytes of body in 64 KB chunks, honouring backpressure, and stops as
   * soon as the server answers or closes the connection.
   */
  function stream(total: number, headers: Record<string, string>): Promise<Outcome> {
    return new Promise((resolve) => {
      let written = 0;
      let done = false;
      let status: number | null = null;
      let body: any;
      const finish = (ended: Outcome['ended']) => {
        if (done) return;
        done = true;
        resolve({ status, body, written, ended });
      };
      const req = http.request({
        ...base,
        method: 'POST',
        path: '/v1/sync',
        headers: { authorization: `Bearer ${venue.key}`, 'content-type': 'application/json', ...headers },
      });
      req.on('response', (res) => {
        status = res.statusCode ?? null;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          body = text ? JSON.parse(text) : undefined;
          finish('response');
          req.destroy();
        });
      });
      req.on('error', () => {
        // EPIPE / ECONNRESET: the server closed the connection while we were still sending.
        setTimeout(() => finish(status === null ? 'socket-closed' : 'response'), 200);
      });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!done && !req.destroyed && written < total) {
          written += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!done && !req.destroyed && written >= total) req.end();
      };
      req.write('{"pad":"');
      pump();
    });
  }

  it('answers a chunked upload 413 PAYLOAD_TOO_LARGE long before the client has sent 50 MB', async () => {
    const outcome = await stream(50 * MB, { 'transfer-encoding': 'chunked' });
    assert.equal(outcome.status, 413, `ended by ${outcome.ended} after ${outcome.written} bytes`);
    assertTooLarge(outcome.status, outcome.body, '/v1/sync');
    assert.ok(outcome.written < 25 * MB, `the server stopped the upload after ${(outcome.written / MB).toFixed(1)} MB`);
  });

  it('answers 413 at once when Content-Length announces more than 5 MB, without waiting for the body', async () => {
    const started = Date.now();
    // Announce 6 MB and send only 1 MB: a server that waited for the body would never answer.
    const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.request({
        ...base,
        method: 'POST',
        path: '/v1/sync',
        headers: { authorization: `Bearer ${venue.key}`, 'content-type': 'application/json', 'content-length': String(6 * MB) },
      });
      req.on('response', (r) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (d) => (text += d));
        r.on('end', () => {
          resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) });
          req.destroy();
        });
      });
      req.on('error', (err) => reject(err));
      req.write(Buffer.alloc(MB, 0x20));
    });
    assertTooLarge(res.status, res.body, '/v1/sync');
    assert.ok(Date.now() - started < 5_000);
  });
});
