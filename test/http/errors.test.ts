import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, admin, call, createVenue, startApp, type TestApp } from '../helpers/app.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function assertEnvelope(body: any, status: number, path: string): void {
  assert.equal(body.statusCode, status);
  assert.equal(typeof body.message, 'string');
  assert.ok(body.message.length > 0);
  assert.equal(typeof body.requestId, 'string');
  assert.ok(body.requestId.length > 0);
  assert.match(body.timestamp, ISO_UTC_MS);
  assert.equal(body.path, path);
}

describe('error envelope and request ids', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('renders a 401 in the envelope with the request id in header and body', async () => {
    const res = await call(t.app, 'GET', '/v1/reference');
    assert.equal(res.status, 401);
    assertEnvelope(res.body, 401, '/v1/reference');
    assert.equal(res.headers['x-request-id'], res.body.requestId);
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await call(t.app, 'GET', '/v1/nothing-here');
    assert.equal(res.status, 404);
    assertEnvelope(res.body, 404, '/v1/nothing-here');
    assert.equal(res.headers['x-request-id'], res.body.requestId);
  });

  it('leaves the query string out of path', async () => {
    const res = await call(t.app, 'GET', '/v1/nothing-here?secret=1&page=2');
    assert.equal(res.status, 404);
    assert.equal(res.body.path, '/v1/nothing-here');
  });

  it('sends x-request-id on success responses too', async () => {
    for (const url of ['/health', '/ready', '/v1/openapi.json']) {
      const res = await call(t.app, 'GET', url);
      assert.equal(res.status, 200, url);
      assert.equal(typeof res.headers['x-request-id'], 'string', url);
      assert.ok(String(res.headers['x-request-id']).length > 0, url);
    }
    const v = await createVenue(t.app);
    const ref = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(typeof ref.headers['x-request-id'], 'string');
  });

  it('gives every request a distinct id when none is sent', async () => {
    const a = await call(t.app, 'GET', '/health');
    const b = await call(t.app, 'GET', '/health');
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  it('echoes a well-formed inbound x-request-id in the header and the body', async () => {
    for (const id of ['abc-123', 'req.2026:01_x', 'A'.repeat(128)]) {
      const res = await call(t.app, 'GET', '/v1/reference', { headers: { 'x-request-id': id } });
      assert.equal(res.status, 401);
      assert.equal(res.headers['x-request-id'], id);
      assert.equal(res.body.requestId, id);
    }
    const ok = await call(t.app, 'GET', '/health', { headers: { 'x-request-id': 'health-check-1' } });
    assert.equal(ok.headers['x-request-id'], 'health-check-1');
  });

  it('replaces a malformed inbound x-request-id', async () => {
    for (const id of ['A'.repeat(129), 'has space', 'semi;colon', 'quote"d', 'slash/ed']) {
      const res = await call(t.app, 'GET', '/v1/reference', { headers: { 'x-request-id': id } });
      assert.notEqual(res.headers['x-request-id'], id, id);
      assert.equal(res.body.requestId, res.headers['x-request-id'], id);
      assert.match(String(res.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/);
    }
  });

  it('replaces an inbound x-request-id that would forge a log line', async () => {
    for (const id of ['abc\ndef', 'abc\r\n{"level":60}', 'tab\there']) {
      const res = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': id } });
      assert.notEqual(res.headers['x-request-id'], id);
      assert.match(String(res.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/);
    }
  });

  it("answers malformed JSON with 400 'Validation failed'", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/venues',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: '{"name": "Cafe", ',
    });
    const body = JSON.parse(res.body);
    assert.equal(res.statusCode, 400);
    assert.equal(body.message, 'Validation failed');
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0);
    assertEnvelope(body, 400, '/admin/v1/venues');
  });

  it('refuses a text/plain body with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/venues',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
      payload: JSON.stringify({ name: 'Cafe', currency: 'EUR' }),
    });
    const body = JSON.parse(res.body);
    assert.equal(res.statusCode, 400);
    assert.equal(body.message, 'Validation failed');
    assertEnvelope(body, 400, '/admin/v1/venues');
  });

  it("lists an unknown property as '<field> is not allowed'", async () => {
    const res = await admin(t.app, 'POST', '/venues', { name: 'Cafe', currency: 'EUR', foo: 1 });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
    assert.deepEqual(res.body.errors, ['foo is not allowed']);
  });

  it('starts every validation error with the field path and a rule', async () => {
    const res = await admin(t.app, 'POST', '/venues', { name: '', currency: 'XXX', slug: 'A!' });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
    const errs: string[] = res.body.errors;
    assert.ok(
      errs.some((e) => e.startsWith('name must ')),
      errs.join('; '),
    );
    assert.ok(
      errs.some((e) => e.startsWith('currency must be one of: ')),
      errs.join('; '),
    );
    assert.ok(
      errs.some((e) => e.startsWith('slug must ')),
      errs.join('; '),
    );
  });

  it('names a missing required field', async () => {
    const res = await admin(t.app, 'POST', '/venues', { name: 'Cafe' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, ['currency is required']);
  });

  it('lists the missing required fields of a request sent without a body', async () => {
    const res = await call(t.app, 'POST', '/admin/v1/venues', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
    assert.deepEqual([...res.body.errors].sort(), ['currency is required', 'name is required']);
  });

  it('answers a body over 5 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await admin(t.app, 'POST', '/venues', { name: 'x'.repeat(6 * 1024 * 1024), currency: 'EUR' });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'PAYLOAD_TOO_LARGE');
    assertEnvelope(res.body, 413, '/admin/v1/venues');
  });

  it('accepts a body just under 5 MB up to validation', async () => {
    const res = await admin(t.app, 'POST', '/venues', { name: 'x'.repeat(5 * 1024 * 1024 - 100), currency: 'EUR' });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
  });
});

describe('internal errors', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('answers a database failure with a 500 envelope that shows no stack or SQL, and /ready with 503', async () => {
    const db = t.database.db;
    await db.close();
    // dispose() closes the database again when the suite ends; once is enough.
    db.close = async () => {};
    const res = await call(t.app, 'GET', '/v1/reference?x=1', {
      key: 'carta_live_0123456789abcdefghijABCDEFGHIJ01',
      headers: { 'x-request-id': 'boom-1' },
    });
    assert.equal(res.status, 500);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'path', 'requestId', 'statusCode', 'timestamp']);
    assert.equal(res.body.message, 'Internal server error');
    assert.equal(res.body.requestId, 'boom-1');
    assert.equal(res.body.path, '/v1/reference');
    assert.equal(res.headers['x-request-id'], 'boom-1');
    assert.doesNotMatch(res.raw.body, /select|api_keys|at \w+ \(|\.ts:|\.js:|Error:/i);

    const ready = await call(t.app, 'GET', '/ready');
    assert.equal(ready.status, 503);
    const health = await call(t.app, 'GET', '/health');
    assert.equal(health.status, 200);
  });
});
