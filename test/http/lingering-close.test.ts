import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// An answer to a request whose body has been read whole goes out at once: the lingering close
// (drain what a client still sends after an early answer) is for bodies still arriving. With a
// drain bound of a minute, an answer that waited for it would time this test out.
let t: TestApp;
let venue: VenueFixture;
before(async () => {
  t = await startApp({}, undefined, { lingeringClose: { ms: 60_000, bytes: 64 * 1024 * 1024 } });
  venue = await createVenue(t.app);
});
after(() => t.close());

it('answers a refused, wholly read body at once, not after the drain bound', { timeout: 20_000 }, async () => {
  for (let i = 0; i < 3; i += 1) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${venue.key}`, 'content-type': 'application/json' },
      payload: { categories: 'not a list' },
    });
    assert.equal(res.statusCode, 400);
  }
});
