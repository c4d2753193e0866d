import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { MB, MEDIA_BODY_LIMIT_BYTES } from '../../src/limits.js';
import { MediaCapacity, SMALL_UPLOAD_BYTES } from '../../src/modules/media/media-capacity.js';

describe('MediaCapacity', () => {
  it('admits slots + queue requests, refuses the next with MEDIA_BUSY, and admits again after a release', () => {
    const capacity = new MediaCapacity(2, 1);
    const releases = [capacity.admit(), capacity.admit(), capacity.admit()];
    assert.throws(
      () => capacity.admit(),
      (err: unknown) => err instanceof AppError && err.code === 'MEDIA_BUSY' && err.statusCode === 503,
    );
    releases[0]();
    releases[0](); // a second call changes nothing
    assert.equal(capacity.inFlight, 2);
    capacity.admit();
    assert.throws(() => capacity.admit());
  });

  it('runs at most `slots` jobs at once, the others in arrival order', async () => {
    const capacity = new MediaCapacity(2, 10);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const job = (n: number) => async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      order.push(n);
      running -= 1;
    };
    await Promise.all([1, 2, 3, 4, 5].map((n) => capacity.run(job(n))));
    assert.equal(peak, 2);
    assert.deepEqual(order.slice(2), [3, 4, 5]);
  });

  it('frees the slot of a job that throws', async () => {
    const capacity = new MediaCapacity(1, 0);
    await assert.rejects(
      capacity.run(async () => {
        throw new Error('boom');
      }),
    );
    assert.equal(await capacity.run(async () => 'next'), 'next');
  });
});

describe('MediaCapacity while bodies arrive', () => {
  it('lets each venue receive slots + queue uploads at once, whatever the others receive', () => {
    const capacity = new MediaCapacity(1, 1);
    const a = [capacity.receive('a'), capacity.receive('a')];
    assert.throws(
      () => capacity.receive('a'),
      (err: unknown) => err instanceof AppError && err.code === 'MEDIA_BUSY',
    );
    const b = capacity.receive('b');
    assert.equal(capacity.inFlight, 0, 'receiving takes no processing admission');
    a[0]();
    a[0]();
    capacity.receive('a');
    b();
    assert.throws(() => capacity.receive('a'));
  });
});

describe('MediaCapacity receiving budget', () => {
  it('refuses a body that would take all venues past the bytes they may receive at once, and frees them as they end', () => {
    const capacity = new MediaCapacity(2, 2, { budget: 100 });
    const first = capacity.receive('a', 60);
    assert.throws(
      () => capacity.receive('b', 50),
      (err: unknown) => err instanceof AppError && err.code === 'MEDIA_BUSY',
    );
    const second = capacity.receive('b', 40);
    first();
    second();
    capacity.receive('c', 100);
  });
});

describe('MediaCapacity shares of the receiving budget', () => {
  const LARGEST = MEDIA_BODY_LIMIT_BYTES;
  const busy = (err: unknown) =>
    err instanceof AppError && err.code === 'MEDIA_BUSY' && err.statusCode === 503 && Number(err.headers?.['retry-after']) >= 1;

  /** Tries `n` uploads of `bytes` for `venue`: the releases of those taken, and how many were refused. */
  function take(capacity: MediaCapacity, venue: string, n: number, bytes: number) {
    const taken: Array<() => void> = [];
    let refused = 0;
    for (let i = 0; i < n; i += 1) {
      try {
        taken.push(capacity.receive(venue, bytes));
      } catch (err) {
        assert.ok(busy(err), String(err));
        refused += 1;
      }
    }
    return { taken, refused };
  }

  it('has the documented numbers by default: 336 MB in all, 42 MB of it kept for bodies of at most 1.5 MB', () => {
    const capacity = new MediaCapacity(2, 2);
    assert.equal(capacity.limits.budget, 336 * MB);
    assert.equal(capacity.reserve, 42 * MB);
    assert.equal(SMALL_UPLOAD_BYTES, 1.5 * MB);
  });

  it("lets four venues stall four largest bodies each only up to their shares, and still takes a fifth venue's small and large uploads", () => {
    const capacity = new MediaCapacity(2, 2);
    // The shared 294 MB divided by the venues receiving plus one: 147, 98, 73.5, then 58.8 MB each.
    const held = ['a', 'b', 'c', 'd'].map((venue) => take(capacity, venue, 4, LARGEST));
    assert.deepEqual(
      held.map((h) => h.taken.length),
      [4, 4, 3, 2],
    );
    assert.equal(capacity.received.bytes, 13 * LARGEST);
    // A fifth venue: its logo, and one largest body (the room left for a venue yet to come).
    const logo = capacity.receive('e', 300_000);
    const photo = capacity.receive('e', LARGEST);
    // Now the shared part is full: a sixth venue's large body is refused, its small ones are not.
    assert.throws(() => capacity.receive('f', LARGEST), busy);
    assert.throws(() => capacity.receive('e', LARGEST), busy);
    const small = take(capacity, 'f', 4, SMALL_UPLOAD_BYTES);
    assert.equal(small.refused, 0);
    // Released, the places come back.
    for (const release of held[0].taken) release();
    logo();
    photo();
    capacity.receive('g', LARGEST);
  });

  it('refuses at once a venue whose large bodies would pass its share, and takes them again once another venue is done', () => {
    const capacity = new MediaCapacity(2, 2);
    const others = ['a', 'b', 'c', 'd'].map((venue) => take(capacity, venue, 2, LARGEST));
    assert.ok(others.every((h) => h.taken.length === 2));
    // Five venues with large bodies: 294 / 6 = 49 MB each, two largest bodies.
    take(capacity, 'e', 2, LARGEST);
    assert.throws(() => capacity.receive('e', LARGEST), busy);
    // A small body is no share's business.
    capacity.receive('e', MB);
    for (const release of others[0].taken) release();
    assert.throws(() => capacity.receive('e', LARGEST), busy, 'four venues now: 58.8 MB each, still two bodies');
    for (const release of others[1].taken) release();
    capacity.receive('e', LARGEST);
  });

  it('never lets the small bodies of many venues take more than the whole budget', () => {
    const capacity = new MediaCapacity(1, 1, { budget: 40 * MB });
    let taken = 0;
    for (let venue = 0; venue < 100; venue += 1) taken += take(capacity, `v${venue}`, 2, MB).taken.length;
    assert.equal(taken, 40);
    assert.throws(() => capacity.receive('late', 1), busy);
  });
});
