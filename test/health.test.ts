import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startApp, type TestApp } from './helpers/app.js';

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
});
