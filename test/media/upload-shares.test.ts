import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MB, MEDIA_BODY_LIMIT_BYTES } from '../../src/limits.js';
import { createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';

// Upload shares over a real port (media-capacity.ts, docs/security.md "Upload shares"): venues
// whose clients stall their largest uploads hold only their share of the receiving budget, the
// next one is refused 503 MEDIA_BUSY at once, and another venue's small upload still goes through.

let t: TestApp;
let port: number;
before(async () => {
  // The defaults: 2 + 2 uploads per venue, 336 MB of bodies at once, 42 MB of it for small ones.
  t = await startApp({ mediaConcurrency: 2, mediaQueue: 2 }, undefined, { lingeringClose: { ms: 300, bytes: 64 * MB } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
});
after(() => t.close());

interface Stalled {
  socket: net.Socket;
  /** What the server wrote, once it answered; null while it waits for the body. */
  answer: string | null;
  /** Milliseconds from the request's head to the answer. */
  ms: number;
}

const receiving = () => t.services.media.capacity.received.uploads;

/**
 * Sends an upload's head and the start of a body of the largest size, then nothing more: resolves
 * once the server has either taken a receiving place for it or answered.
 */
async function stall(key: string): Promise<Stalled> {
  const before = receiving();
  const socket = net.connect(port, '127.0.0.1');
  const started = performance.now();
  const stalled: Stalled = { socket, answer: null, ms: 0 };
  let text = '';
  socket.on('error', () => {});
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const [head, body] = text.split('\r\n\r\n');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
      if (body !== undefined && Buffer.byteLength(body, 'latin1') >= length) {
        stalled.answer = text;
        stalled.ms = performance.now() - started;
        resolve();
      }
    });
  });
  socket.write(
    `POST /v1/logo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${MEDIA_BODY_LIMIT_BYTES}\r\n\r\n{"base64":"`,
  );
  const taken = (async () => {
    while (receiving() === before && stalled.answer === null) await new Promise((resolve) => setTimeout(resolve, 5));
  })();
  await Promise.race([answered, taken]);
  return stalled;
}

function post(key: string, body: Buffer): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/logo',
        agent: false,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('upload shares on a listening server', { timeout: 60_000 }, () => {
  let venues: VenueFixture[];
  let stalled: Stalled[][] = [];
  before(async () => {
    venues = [];
    for (let i = 0; i < 5; i += 1) venues.push(await createVenue(t.app));
  });
  after(async () => {
    for (const s of stalled.flat()) s.socket.destroy();
    while (receiving() > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it("holds each stalling venue to its share, refuses the next upload at once, and takes another venue's small logo", async () => {
    stalled = [];
    for (const venue of venues.slice(0, 4)) {
      const mine: Stalled[] = [];
      for (let i = 0; i < 4; i += 1) mine.push(await stall(venue.key));
      stalled.push(mine);
    }
    // Shares of the 294 MB for large bodies, among the venues receiving plus one: 147, 98, 73.5, 58.8 MB.
    assert.deepEqual(
      stalled.map((mine) => mine.filter((s) => s.answer === null).length),
      [4, 4, 3, 2],
    );
    for (const refused of stalled.flat().filter((s) => s.answer !== null)) {
      assert.match(refused.answer!, /^HTTP\/1\.1 503 [^]*\r\nretry-after: \d+\r\n[^]*"code":"MEDIA_BUSY"/i);
      assert.ok(refused.ms < 1000, `refused after ${Math.round(refused.ms)} ms`);
    }

    const logo = Buffer.from(JSON.stringify({ base64: toBase64(await makeImage(320, 320)) }));
    assert.ok(logo.length < MB);
    const fifth = await post(venues[4].key, logo);
    assert.equal(fifth.status, 201, JSON.stringify(fifth.body));

    // The stalled venues upload again once their clients let go.
    for (const s of stalled[0]) s.socket.destroy();
    while (t.services.media.capacity.received.venues.has(venues[0].id)) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal((await post(venues[0].key, logo)).status, 201);
  });
});
