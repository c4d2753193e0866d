import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MB } from '../../src/limits.js';
import { createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';
import type { OversizeClient, OversizeResult, OversizeRun } from '../helpers/oversize-client.js';

// A body over its cap is answered 413 before it is read, and the answer must reach the client
// even though it is still writing: the server keeps reading (and dropping) what comes for a
// bounded time and size before it closes, so the close is a FIN after the answer, not a reset
// that loses it (docs/security.md, "Oversized bodies"). Over a real port, with the clients people
// use, each in a process of its own (test/helpers/oversize-client.ts says why): Node's fetch, the
// undici package's, Node's http.request, and curl when it is installed. The database plays no part,
// so the PostgreSQL pass of CI leaves this file to the PGlite one.
const skip = onPostgres ? 'the database plays no part: run on PGlite' : false;

const ROUNDS = 20;
/** The bounds of the drain for the clients that never stop (the others get the defaults, 5 s and 64 MB). */
const LINGER_MS = 3000;
const LINGER_BYTES = 8 * MB;

let t: TestApp;
let venue: VenueFixture;
let base: string;
let dir: string;
before(async () => {
  t = await startApp();
  venue = await createVenue(t.app);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-oversize-'));
});
after(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** The cases: a JSON route's 5 MB cap and an upload's 21 MB one, each passed by about a tenth. */
const CASES = [
  { path: '/v1/sync', bytes: Math.round(5.5 * MB), limit: '5 MB' },
  { path: '/v1/logo', bytes: 22 * MB, limit: '21 MB' },
];

const bodyOf = (bytes: number) => Buffer.alloc(bytes, 0x20);

function assertRefused(answer: Answer, route: string, limit: string): void {
  assert.equal(answer.status, 413, JSON.stringify(answer.body));
  assert.equal(answer.body.statusCode, 413);
  assert.equal(answer.body.code, 'PAYLOAD_TOO_LARGE');
  assert.ok(answer.body.message.includes(limit), answer.body.message);
  assert.equal(answer.body.path, route);
  assert.ok(answer.body.requestId);
  assert.ok(answer.body.timestamp);
  assert.equal(answer.headers.connection, 'close');
}

const headers = () => ({ authorization: `Bearer ${venue.key}`, 'content-type': 'application/json' });

/** `rounds` posts of `bytes` by `client`, in a child process. */
function viaChild(client: OversizeClient, route: string, bytes: number, chunked: boolean, rounds: number): Promise<OversizeResult[]> {
  const run: OversizeRun = { url: `${base}${route}`, key: venue.key, bytes, chunked, client, rounds };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/helpers/oversize-client.ts', JSON.stringify(run)],
      { maxBuffer: 16 * MB },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${client}: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as OversizeResult[]);
      },
    );
  });
}

const hasCurl = spawnSync('curl', ['--version']).status === 0;

/** curl with `Expect:` emptied, so it sends the body at once rather than waiting for 100 Continue. */
function viaCurl(route: string, file: string): Promise<Answer> {
  const args = ['-sS', '-D', '-', '-X', 'POST', '-H', 'Expect:', '--data-binary', `@${file}`, `${base}${route}`];
  for (const [name, value] of Object.entries(headers())) args.push('-H', `${name}: ${value}`);
  return new Promise((resolve, reject) => {
    execFile('curl', args, { maxBuffer: MB }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`curl: ${stderr || err.message}`));
        return;
      }
      const [head, text] = stdout.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const found: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const at = line.indexOf(':');
        found[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(lines[0].split(' ')[1]), body: JSON.parse(text), headers: found });
    });
  });
}

describe('a body over its cap is answered 413 that every client reads', { timeout: 600_000, skip }, () => {
  // Twenty in a row for the common clients with a Content-Length (where the answer comes before a
  // byte of the body is read); fewer for the rest, which take the same path (a chunked body is
  // refused once it passes the cap).
  const runs: Array<{ client: OversizeClient; chunked: boolean; rounds: number }> = [
    { client: 'fetch', chunked: false, rounds: ROUNDS },
    { client: 'http', chunked: false, rounds: ROUNDS },
    { client: 'undici', chunked: false, rounds: 5 },
    { client: 'fetch', chunked: true, rounds: 5 },
    { client: 'http', chunked: true, rounds: 5 },
  ];
  const names = { fetch: "Node's fetch", undici: "undici's fetch", http: 'http.request' };
  for (const { path: route, bytes, limit } of CASES) {
    const size = `${(bytes / MB).toFixed(1)} MB`;
    for (const { client, chunked, rounds } of runs) {
      it(`${names[client]} reads the 413 of ${size} ${chunked ? 'chunked' : 'with Content-Length'} to ${route}, ${rounds} times in a row`, async () => {
        const results = await viaChild(client, route, bytes, chunked, rounds);
        assert.equal(results.length, rounds);
        results.forEach((result, round) => {
          assert.ok('status' in result, `round ${round + 1} of ${rounds}: ${JSON.stringify(result)}`);
          assertRefused(
            { status: result.status, body: result.body, headers: { connection: result.connection ?? undefined } },
            route,
            limit,
          );
        });
      });
    }

    it(
      `curl reads the 413 of ${size} with Content-Length to ${route}, ${ROUNDS} times in a row`,
      { skip: hasCurl ? false : 'curl is not installed' },
      async () => {
        const file = path.join(dir, `${bytes}.json`);
        if (!fs.existsSync(file)) fs.writeFileSync(file, bodyOf(bytes));
        for (let round = 0; round < ROUNDS; round += 1) assertRefused(await viaCurl(route, file), route, limit);
      },
    );
  }
});

interface Endless {
  /** What the server wrote, as text. */
  head: string;
  /** Body bytes the client had written when the server closed. */
  written: number;
  /** From the request's head to the close. */
  ms: number;
}

/**
 * A client that never stops sending: `chunk` bytes every `everyMs` (0: as fast as the socket takes
 * them) until the server closes the connection, chunked or under a Content-Length of `declared`.
 */
function endless(
  port: number,
  key: string,
  route: string,
  { chunk, everyMs, declared }: { chunk: number; everyMs: number; declared?: number },
): Promise<Endless> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = performance.now();
    let head = '';
    let written = 0;
    let closed = false;
    const data = Buffer.alloc(chunk, 0x20);
    const piece = declared ? data : Buffer.concat([Buffer.from(`${chunk.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
    socket.on('data', (d) => (head += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      resolve({ head, written, ms: performance.now() - started });
    });
    const pump = () => {
      while (!closed && !socket.destroyed) {
        written += chunk;
        if (!socket.write(piece)) {
          socket.once('drain', pump);
          return;
        }
        if (everyMs > 0) {
          setTimeout(pump, everyMs);
          return;
        }
      }
    };
    const framing = declared ? `Content-Length: ${declared}` : 'Transfer-Encoding: chunked';
    socket.write(
      `POST ${route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
      pump,
    );
  });
}

describe('a client that keeps sending after its 413 is cut', { timeout: 60_000, skip }, () => {
  let short: TestApp;
  let port: number;
  let key: string;
  before(async () => {
    short = await startApp({}, undefined, { lingeringClose: { ms: LINGER_MS, bytes: LINGER_BYTES } });
    key = (await createVenue(short.app)).key;
    await short.app.listen({ port: 0, host: '127.0.0.1' });
    port = (short.app.server.address() as net.AddressInfo).port;
  });
  after(() => short.close());
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

  it('once the server has drained its bound of bytes, chunked past the cap', async () => {
    const cut = await endless(port, key, '/v1/sync', { chunk: 64 * 1024, everyMs: 0 });
    assert.match(cut.head, /^HTTP\/1\.1 413 [^]*\r\nconnection: close\r\n[^]*"PAYLOAD_TOO_LARGE"/i);
    // The cap, then the bound, give or take what the sockets' buffers hold.
    assert.ok(cut.written > 5 * MB + LINGER_BYTES && cut.written < 5 * MB + LINGER_BYTES + 32 * MB, `cut after ${mb(cut.written)}`);
  });

  it('once the server has drained its bound of bytes, under a Content-Length of 1 GB', async () => {
    const cut = await endless(port, key, '/v1/logo', { chunk: 64 * 1024, everyMs: 0, declared: 1024 * MB });
    assert.match(cut.head, /^HTTP\/1\.1 413 [^]*"PAYLOAD_TOO_LARGE"/);
    assert.ok(cut.written > LINGER_BYTES && cut.written < LINGER_BYTES + 32 * MB, `cut after ${mb(cut.written)}`);
  });

  it('once the server has drained for its bound of time, when it trickles', async () => {
    const cut = await endless(port, key, '/v1/sync', { chunk: 1024, everyMs: 5, declared: 6 * MB });
    assert.match(cut.head, /^HTTP\/1\.1 413 [^]*"PAYLOAD_TOO_LARGE"/);
    assert.ok(cut.ms > LINGER_MS - 100 && cut.ms < LINGER_MS + 3000, `cut after ${Math.round(cut.ms)} ms, ${mb(cut.written)}`);
  });
});
