import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CartaError, createCartaClient, unwrap, type RetryEvent } from '../src/index.js';
import { sleep } from '../../../test/helpers/orders.js';
import { createVenue, recordingFetch, startServer, type TestServer } from './server.js';

// Rate limits on, with a Redis key prefix of this file's own when
// REDIS_URL is set. Every request comes from 127.0.0.1, so the per-IP `short` bucket (10 per
// second, Retry-After 1) is the one a burst meets first; a free venue's `general` bucket (30 per
// minute) is the one that says "wait most of a minute".
describe('the client under rate limits', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ rateLimits: true, redisKeyPrefix: `carta:client-test:${randomBytes(4).toString('hex')}:` });
  });
  after(() => s.close());

  it('waits out 429 RATE_LIMITED for Retry-After and retries until every request of a burst succeeds (free plan)', async (ctx) => {
    const v = await createVenue(s.t.app, { plan: 'free' });
    const log: Parameters<typeof recordingFetch>[0] = [];
    const retries: RetryEvent[] = [];
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, fetch: recordingFetch(log), onRetry: (e) => retries.push(e) });

    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 25 }, () => unwrap(client.api.GET('/v1/reference'))));
    const elapsed = Date.now() - started;
    assert.ok(results.every((r) => r.planLimits.plan === 'free'));

    const limited = log.filter((r) => r.status === 429);
    assert.ok(limited.length >= 15, `${limited.length} answers were 429`);
    assert.equal(log.filter((r) => r.status === 200).length, 25);
    assert.ok(
      retries.every((r) => r.statusCode === 429 && r.code === 'RATE_LIMITED' && r.delayMs >= 1000),
      'Retry-After: 1 honoured',
    );
    assert.equal(retries.length, limited.length);
    assert.ok(elapsed >= 2000, `two rounds of waiting for 10 slots a second, took ${elapsed} ms`);
    ctx.diagnostic(`25 requests: ${limited.length} answered 429, all done in ${elapsed} ms`);
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs: the 429 is a CartaError with its code and delay', async () => {
    const v = await createVenue(s.t.app, { plan: 'free' });
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, maxRetryAfterMs: 5_000 });
    // Use up the free venue's 30 requests a minute from addresses of their own (past the per-IP buckets).
    for (let i = 0; i < 30; i += 1) {
      const res = await s.t.app.inject({
        method: 'GET',
        url: '/v1/menu',
        remoteAddress: `10.9.0.${i + 1}`,
        headers: { authorization: `Bearer ${v.key}` },
      });
      assert.equal(res.statusCode, 200);
    }
    await sleep(1100);
    const started = Date.now();
    await assert.rejects(client.getMenu(), (err: unknown) => {
      assert.ok(err instanceof CartaError);
      assert.deepEqual([err.statusCode, err.code], [429, 'RATE_LIMITED']);
      assert.match(err.message, /general/);
      assert.ok(err.retryAfter !== undefined && err.retryAfter > 5 && err.retryAfter <= 60, `Retry-After ${err.retryAfter}`);
      assert.match(err.requestId ?? '', /\S/);
      return true;
    });
    assert.ok(Date.now() - started < 1000, 'answered without waiting');
  });
});
