import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { Database, ReadScope } from '../../src/db/port.js';
import type { App } from '../../src/http/types.js';
import { MediaMisses } from '../../src/modules/media/media-misses.js';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';

// GET /media misses are remembered for a moment, so a client asking again and again
// for an image that is not there costs no look-up; a blob stored afterwards is served at once, by
// this instance (forgotten on store) and by another (the venue's write epoch moved).

describe('remembered /media misses, over HTTP', () => {
  let t: TestApp;
  /** A second instance on the same database. */
  let other: App;
  let v: VenueFixture;
  let lookups = 0;
  let base64: string;

  before(async () => {
    t = await startApp({}, (text) => {
      if (/from media_blobs where venue_id = \$1 and key = \$2/.test(text)) lookups += 1;
    });
    ({ app: other } = await buildApp({ config: t.config, db: t.database.db }));
    await other.ready();
    v = await createVenue(t.app);
    await syncOk(t.app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
    base64 = toBase64(await makeImage(400, 400, 'png', { noise: true }));
  });
  after(async () => {
    await other.close();
    await t.close();
  });

  const get = async (app: App, path: string) => (await app.inject({ method: 'GET', url: path })).statusCode;

  it('looks a missing image up once, then answers 404 from memory', async () => {
    const path = `/media/${v.id}/${randomBytes(32).toString('hex')}.webp`;
    const before = lookups;
    for (let i = 0; i < 5; i += 1) assert.equal(await get(t.app, path), 404);
    assert.equal(lookups - before, 1);
    // Another venue's id with the same key is its own look-up.
    assert.equal(await get(t.app, path.replace(v.id, randomUUID())), 404);
    assert.equal(lookups - before, 2);
  });

  it('serves an image stored after its miss at once, on this instance and on another', async () => {
    const upload = () => call(t.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { base64 } });
    const first = await upload();
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const paths = first.body.variants.map((variant: { url: string }) => new URL(variant.url).pathname);
    // Removed (nothing else uses the blobs, so they are deleted): each instance remembers a miss.
    assert.equal((await call(t.app, 'DELETE', '/v1/products/p1/image', { key: v.key })).status, 200);
    // PostgreSQL: the removal's own notification moves the venue's epoch once more when it comes
    // back through the change feed (forgetting a miss remembered before it); wait for it.
    await t.database.db.catchUp?.();
    for (const app of [t.app, other]) {
      for (const path of paths) assert.equal(await get(app, path), 404);
    }
    const before = lookups;
    for (const app of [t.app, other]) assert.equal(await get(app, paths[0]), 404);
    assert.equal(lookups, before, 'the misses were remembered');

    // The same bytes uploaded again are the same blobs, at the same URLs the misses were remembered for.
    const again = await upload();
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.deepEqual(
      again.body.variants.map((variant: { url: string }) => new URL(variant.url).pathname),
      paths,
    );
    for (const app of [t.app, other]) {
      for (const path of paths) assert.equal(await get(app, path), 200, path);
    }
  });
});

describe('MediaMisses', () => {
  /** Write epochs per venue, moved by hand: all MediaMisses reads of the database. */
  function epochs() {
    const byVenue = new Map<string, number>();
    const db = { writeEpoch: (scope?: ReadScope) => byVenue.get(scope?.venueId ?? '') ?? 0 } as unknown as Database;
    return { db, move: (venueId: string) => byVenue.set(venueId, (byVenue.get(venueId) ?? 0) + 1) };
  }

  it('forgets a miss after its time to live', () => {
    let now = 1_000;
    const { db } = epochs();
    const misses = new MediaMisses(db, 5_000, () => now);
    misses.remember('v1', 'k1', misses.mark('v1'));
    assert.equal(misses.has('v1', 'k1'), true);
    assert.equal(misses.has('v1', 'k2'), false);
    assert.equal(misses.has('v2', 'k1'), false);
    now += 4_999;
    assert.equal(misses.has('v1', 'k1'), true);
    now += 1;
    assert.equal(misses.has('v1', 'k1'), false);
  });

  it("forgets a venue's misses when its write epoch moves, and only that venue's", () => {
    const { db, move } = epochs();
    const misses = new MediaMisses(db);
    misses.remember('v1', 'k1', misses.mark('v1'));
    misses.remember('v2', 'k1', misses.mark('v2'));
    move('v1');
    assert.equal(misses.has('v1', 'k1'), false);
    assert.equal(misses.has('v2', 'k1'), true);
  });

  it('remembers no miss from a look-up that a store or a write overlapped', () => {
    const { db, move } = epochs();
    const misses = new MediaMisses(db);
    const stored = misses.mark('v1');
    misses.forget('v1', ['other-key']);
    misses.remember('v1', 'k1', stored);
    assert.equal(misses.has('v1', 'k1'), false, 'a store here since the look-up began');

    const written = misses.mark('v1');
    move('v1');
    misses.remember('v1', 'k1', written);
    assert.equal(misses.has('v1', 'k1'), false, 'a write anywhere since the look-up began');

    misses.remember('v1', 'k1', misses.mark('v1'));
    misses.forget('v1', ['k1']);
    assert.equal(misses.has('v1', 'k1'), false, 'forgotten when stored');
  });
});
