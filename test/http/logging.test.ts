import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, admin, call } from '../helpers/app.js';
import { testDatabase, type TestDatabase } from '../helpers/db.js';

interface LogLine {
  level: number;
  msg?: string;
  requestId?: string;
  req?: unknown;
  res?: unknown;
  [key: string]: unknown;
}

describe('request logging', () => {
  let app: App;
  let database: TestDatabase;
  const raw: string[] = [];
  const lines = () => raw.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as LogLine);

  before(async () => {
    database = await testDatabase();
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'info', ADMIN_TOKEN, DATA_DIR: '/nonexistent' });
    ({ app } = await buildApp({ config, db: database.db, logStream: { write: (line: string) => void raw.push(line) } }));
    await app.ready();
  });
  after(async () => {
    await app.close();
    await database.dispose();
  });

  it('writes one access line per request, at completion: method, route pattern, status, duration, request id, venue', async () => {
    raw.length = 0;
    const res = await call(app, 'GET', '/health', { headers: { 'x-request-id': 'log-probe-1' } });
    assert.equal(res.status, 200);
    const own = lines().filter((l) => l.requestId === 'log-probe-1');
    assert.equal(own.length, 1, JSON.stringify(own));
    const [line] = own;
    assert.equal(line.msg, 'request');
    assert.equal(line.level, 30);
    assert.deepEqual([line.method, line.route, line.status], ['GET', '/health', 200]);
    assert.equal(typeof line.ms, 'number');
    assert.equal(line.req, undefined, 'no serialised request');
    assert.doesNotMatch(raw.join(''), /incoming request/, 'no incoming line at info');

    // The route pattern, never the path: ids and tokens stay out, and the label set stays bounded.
    raw.length = 0;
    const venue = await admin(app, 'POST', '/venues', { name: 'Access Log Cafe', currency: 'EUR' });
    const key = await admin(app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'live' });
    raw.length = 0;
    await call(app, 'GET', '/v1/products/some-ref', { key: key.body.key, headers: { 'x-request-id': 'log-probe-2' } });
    const read = lines().filter((l) => l.requestId === 'log-probe-2');
    assert.equal(read.length, 1, JSON.stringify(read));
    assert.deepEqual([read[0].route, read[0].status, read[0].venueId], ['/v1/products/:ref', 404, venue.body.id]);
  });

  it('writes the access line byte for byte as pino would (it is built by hand for speed)', async () => {
    // A venue's request and one without a venue, with a path that needs escaping in JSON.
    const venue = await admin(app, 'POST', '/venues', { name: 'Byte Cafe', currency: 'EUR' });
    const key = await admin(app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'live' });
    raw.length = 0;
    await call(app, 'GET', '/v1/reference', { key: key.body.key, headers: { 'x-request-id': 'log-bytes-1' } });
    await call(app, 'GET', '/nowhere/%22quoted%5C"', { headers: { 'x-request-id': 'log-bytes-2' } });
    const written = raw
      .join('')
      .split('\n')
      .filter((l) => l.includes('"log-bytes-'));
    assert.equal(written.length, 2, written.join('\n'));
    for (const line of written) {
      const { level, time, pid, hostname, msg, ...fields } = JSON.parse(line) as LogLine;
      assert.deepEqual([level, msg, typeof time, typeof pid, typeof hostname], [30, 'request', 'number', 'number', 'string']);
      raw.length = 0;
      app.log.info(fields, 'request');
      const byPino = raw.join('').trimEnd();
      assert.equal(line, byPino.replace(/"time":\d+/, `"time":${time}`));
    }
  });

  it('never logs an API key, the Authorization header, the admin token or a request body', async () => {
    raw.length = 0;
    const secretName = 'Distinctive-Body-Value-7f3a9c';
    const venue = await admin(app, 'POST', '/venues', { name: secretName, currency: 'EUR' });
    assert.equal(venue.status, 201);
    const key = await admin(app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'live', label: 'Distinctive-Label-91b2' });
    assert.equal(key.status, 201);
    const apiKey: string = key.body.key;

    const ids: string[] = [];
    const track = (r: { headers: Record<string, unknown> }) => ids.push(String(r.headers['x-request-id']));
    track(venue);
    track(key);
    track(await call(app, 'GET', '/v1/reference', { key: apiKey }));
    track(await call(app, 'GET', '/v1/reference', { key: 'carta_live_UnknownKeyUnknownKeyUnknownKey12' }));
    track(await call(app, 'GET', '/v1/reference', { key: 'not-a-carta-key-secret-42' }));
    track(
      await call(app, 'POST', '/admin/v1/venues', {
        body: { name: 'Another-Secret-Name-33', currency: 'ZZZ' },
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      }),
    );
    track(await call(app, 'GET', '/v1/unknown-route', { key: apiKey }));

    const text = raw.join('');
    assert.ok(text.length > 0);
    for (const secret of [
      apiKey,
      apiKey.slice('carta_live_'.length),
      'carta_live_UnknownKeyUnknownKeyUnknownKey12',
      'not-a-carta-key-secret-42',
      ADMIN_TOKEN,
      'Bearer',
      secretName,
      'Distinctive-Label-91b2',
      'Another-Secret-Name-33',
    ]) {
      assert.equal(text.includes(secret), false, `the log contains ${secret}`);
    }
    assert.doesNotMatch(text, /authorization/i);

    // Every access line carries one of the requests' ids.
    const requestLines = lines().filter((l) => l.msg === 'request');
    assert.equal(requestLines.length, ids.length);
    for (const l of requestLines) assert.ok(ids.includes(String(l.requestId)), JSON.stringify(l));
    for (const id of ids)
      assert.ok(
        requestLines.some((l) => l.requestId === id),
        `no line for ${id}`,
      );
  });

  it('logs a 500 with its request id, and not to the client', async () => {
    const db = await testDatabase();
    const logs: string[] = [];
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'info', ADMIN_TOKEN, DATA_DIR: '/nonexistent' });
    const built = await buildApp({ config, db: db.db, logStream: { write: (line: string) => void logs.push(line) } });
    await built.app.ready();
    try {
      const dbHandle = db.db;
      await dbHandle.close();
      dbHandle.close = async () => {};
      const res = await call(built.app, 'GET', '/v1/reference', {
        key: 'carta_live_0123456789abcdefghijABCDEFGHIJ01',
        headers: { 'x-request-id': 'fail-500' },
      });
      assert.equal(res.status, 500);
      const errorLines = logs
        .flatMap((c) => c.split('\n').filter(Boolean))
        .map((l) => JSON.parse(l) as LogLine)
        .filter((l) => l.level >= 50);
      assert.ok(errorLines.length > 0);
      for (const l of errorLines) assert.equal(l.requestId, 'fail-500');
      assert.equal(logs.join('').includes('carta_live_0123456789abcdefghijABCDEFGHIJ01'), false);
    } finally {
      await built.app.close();
      await db.dispose();
    }
  });

  it("gives each request a logger with its request id, which Fastify's own warnings use too", async () => {
    const db = await testDatabase();
    const logs: string[] = [];
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'info', ADMIN_TOKEN, DATA_DIR: '/nonexistent' });
    const built = await buildApp({ config, db: db.db, logStream: { write: (line: string) => void logs.push(line) } });
    // Request loggers come from the request gate, not from a factory Fastify calls per request.
    assert.equal(built.app.childLoggerFactory.name, 'defaultChildLoggerFactory');
    built.app.get('/log-probe', (request, reply) => {
      request.log.info({ probe: 'request' }, 'from the request');
      reply.log.info({ probe: 'reply' }, 'from the reply');
      request.log.debug({ probe: 'debug' }, 'below the level');
      reply.send({ first: true });
      // Fastify warns through reply.log that the reply was already sent.
      reply.send({ second: true });
    });
    await built.app.ready();
    try {
      const res = await call(built.app, 'GET', '/log-probe', { headers: { 'x-request-id': 'log-probe-3' } });
      assert.equal(res.status, 200);
      const own = logs
        .flatMap((c) => c.split('\n').filter(Boolean))
        .map((l) => JSON.parse(l) as LogLine)
        .filter((l) => l.requestId === 'log-probe-3');
      assert.ok(own.some((l) => l.probe === 'request' && l.level === 30));
      assert.ok(own.some((l) => l.probe === 'reply' && l.level === 30));
      assert.ok(!own.some((l) => l.probe === 'debug'));
      assert.ok(
        own.some((l) => l.level === 40 && JSON.stringify(l).includes('already sent')),
        JSON.stringify(own),
      );
      // A path the router refuses never reaches the request gate: one access line, with the id.
      const bad = await call(built.app, 'GET', '/v1/products/%E0%A4%A', { headers: { 'x-request-id': 'log-probe-4' } });
      assert.equal(bad.status, 400);
      const badLines = logs
        .flatMap((c) => c.split('\n').filter(Boolean))
        .map((l) => JSON.parse(l) as LogLine)
        .filter((l) => l.requestId === 'log-probe-4');
      assert.deepEqual(
        badLines.map((l) => [l.msg, l.status]),
        [['request', 400]],
      );
    } finally {
      await built.app.close();
      await db.dispose();
    }
  });

  it('at LOG_LEVEL=warn logs nothing for a good request, and a 500 with its request id', async () => {
    const db = await testDatabase();
    const logs: string[] = [];
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'warn', ADMIN_TOKEN, DATA_DIR: '/nonexistent' });
    const built = await buildApp({ config, db: db.db, logStream: { write: (line: string) => void logs.push(line) } });
    await built.app.ready();
    try {
      // Request loggers are made only when a request logs (src/http/request-logger.ts).
      const health = await call(built.app, 'GET', '/health');
      assert.equal(health.status, 200);
      assert.equal(logs.length, 0, 'nothing at warn for a good request');
      const dbHandle = db.db;
      await dbHandle.close();
      dbHandle.close = async () => {};
      const res = await call(built.app, 'GET', '/v1/reference', {
        key: 'carta_live_0123456789abcdefghijABCDEFGHIJ01',
        headers: { 'x-request-id': 'fail-500' },
      });
      assert.equal(res.status, 500);
      const errorLines = logs
        .flatMap((c) => c.split('\n').filter(Boolean))
        .map((l) => JSON.parse(l) as LogLine)
        .filter((l) => l.level >= 50);
      assert.ok(errorLines.length > 0);
      assert.ok(
        logs.flatMap((c) => c.split('\n').filter(Boolean)).every((l) => (JSON.parse(l) as LogLine).level >= 40),
        'only warn and above',
      );
      for (const l of errorLines) assert.equal(l.requestId, 'fail-500');
      assert.equal(logs.join('').includes('carta_live_0123456789abcdefghijABCDEFGHIJ01'), false);
    } finally {
      await built.app.close();
      await db.dispose();
    }
  });
});
