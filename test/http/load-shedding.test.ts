import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LoadShedder } from '../../src/http/load-shedding.js';
import { createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { sleep, until } from '../helpers/net.js';

/** Keeps the event loop slow turn after turn (each turn `turnMs` of work) for `forMs`. */
function slowTurns(turnMs: number, forMs: number): Promise<void> {
  const end = Date.now() + forMs;
  return new Promise((resolve) => {
    const turn = () => {
      const started = Date.now();
      while (Date.now() - started < turnMs) {
        // busy: the load
      }
      if (Date.now() < end) setImmediate(turn);
      else resolve();
    };
    turn();
  });
}

describe('LoadShedder', () => {
  it('is overloaded while the median turn is slower than its limit for two samples, and not after one long turn', async () => {
    const shedder = new LoadShedder({ maxDelayMs: 30, maxHeapShare: 1, sampleIntervalMs: 60_000 });
    try {
      shedder.sample();
      await slowTurns(300, 300);
      await sleep(200);
      shedder.sample();
      assert.equal(shedder.overloaded, false, 'one long turn is not overload');
      await slowTurns(60, 500);
      shedder.sample();
      assert.equal(shedder.overloaded, false, 'one slow second is not overload');
      await slowTurns(60, 500);
      shedder.sample();
      assert.equal(shedder.overloaded, true, 'two in a row are');
      assert.throws(
        () => shedder.check(),
        (err: { code?: string; headers?: Record<string, string> }) =>
          err.code === 'SERVER_BUSY' && Number(err.headers?.['retry-after']) >= 1,
      );
      await sleep(300);
      shedder.sample();
      assert.equal(shedder.overloaded, false);
    } finally {
      shedder.close();
    }
  });

  it('is overloaded past its share of the heap limit', () => {
    const shedder = new LoadShedder({ maxDelayMs: 1000, maxHeapShare: 0, sampleIntervalMs: 60_000 });
    try {
      shedder.sample();
      assert.equal(shedder.overloaded, true);
    } finally {
      shedder.close();
    }
  });
});

describe('a server under pressure', () => {
  let t: TestApp;
  let v: VenueFixture;
  before(async () => {
    // The other suites run with shedding out of reach (test/helpers/app.ts); this one sets it low.
    t = await startApp({ overloadDelayMs: 20 });
    v = await createVenue(t.app);
  });
  after(async () => t.close());

  it('answers new requests 503 SERVER_BUSY with Retry-After, still answers /health and /ready, and serves again once the load is gone', async () => {
    const load = slowTurns(60, 4000);
    const busy = await until(
      'a request shed',
      async () => {
        const res = await t.app.inject({ method: 'GET', url: '/v1/reference', headers: { authorization: `Bearer ${v.key}` } });
        return res.statusCode === 503 ? res : undefined;
      },
      6000,
    );
    assert.equal(busy.json().code, 'SERVER_BUSY');
    assert.ok(Number(busy.headers['retry-after']) >= 1);
    assert.equal((await t.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
    await load;
    await until(
      'served again',
      async () => {
        const res = await t.app.inject({ method: 'GET', url: '/v1/reference', headers: { authorization: `Bearer ${v.key}` } });
        return res.statusCode === 200;
      },
      5000,
    );
  });
});
