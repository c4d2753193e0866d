import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, createVenue, syncOk, type VenueFixture } from '../helpers/app.js';
import { testDatabase, type TestDatabase } from '../helpers/db.js';
import { until } from '../helpers/net.js';

// An upload the client cuts off mid-body (a phone that loses its signal, a user who cancels) is
// the client's doing, not a fault of the server: one line at info without a stack, never an error
// with one, and never "The database is unavailable" (Node's abort error carries ECONNRESET, which
// is also a database socket's).

interface LogLine {
  level: number;
  msg?: string;
  requestId?: string;
  err?: unknown;
  [field: string]: unknown;
}

const CUT = 'the client closed the connection before its request body arrived';

describe('a request body the client cuts off', () => {
  let app: App;
  let database: TestDatabase;
  let base = '';
  let v: VenueFixture;
  const raw: string[] = [];
  /** The requests as the server received them, by their x-request-id. */
  const incoming = new Map<string, http.IncomingMessage>();
  const lines = () => raw.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as LogLine);

  before(async () => {
    database = await testDatabase();
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'info', ADMIN_TOKEN, DATA_DIR: '/nonexistent' });
    ({ app } = await buildApp({ config, db: database.db, logStream: { write: (line: string) => void raw.push(line) } }));
    await app.ready();
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    app.server.on('request', (req: http.IncomingMessage) => {
      const id = req.headers['x-request-id'];
      if (typeof id === 'string') incoming.set(id, req);
    });
    v = await createVenue(app);
    await syncOk(app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
  });
  after(async () => {
    await app.close();
    await database.dispose();
  });

  /** Sends the start of a body, then, once the server has read it, closes the connection. */
  async function cut(path: string, requestId: string, headers: Record<string, string>): Promise<LogLine[]> {
    const req = http.request(`${base}${path}`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json', 'x-request-id': requestId, ...headers },
    });
    req.on('error', () => {});
    req.write(`{"base64":"${'A'.repeat(64 * 1024)}`);
    // The client leaves once the server is reading the body (past the key check, in the body parser).
    await until('the body being read', () => incoming.get(requestId)?.readableFlowing === true);
    req.destroy();
    return until('the line of the cut request', () => {
      const own = lines().filter((l) => l.requestId === requestId);
      return own.some((l) => l.msg === CUT) && own;
    });
  }

  for (const [label, path, route, headers] of [
    [
      'an image upload with a Content-Length',
      '/v1/products/p1/image',
      '/v1/products/:ref/image',
      { 'content-length': String(1024 * 1024) },
    ],
    ['a chunked image upload', '/v1/products/p1/image', '/v1/products/:ref/image', { 'transfer-encoding': 'chunked' }],
    ['a chunked sync', '/v1/sync', '/v1/sync', { 'transfer-encoding': 'chunked' }],
  ] as const) {
    it(`logs ${label} cut mid-body once, at info, without a stack`, async () => {
      const requestId = `cut-${label.replace(/\W+/g, '-')}`;
      const own = await cut(path, requestId, headers);
      assert.deepEqual(
        own.map((l) => [l.level, l.msg]),
        [[30, CUT]],
        JSON.stringify(own),
      );
      assert.equal(own[0].err, undefined, 'no error object, so no stack');
      assert.equal(own[0].route, route);
      assert.doesNotMatch(JSON.stringify(own), /stack|database/i);
    });
  }
});
