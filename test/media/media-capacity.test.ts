import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { MediaCapacity } from '../../src/modules/media/media-capacity.js';

describe('MediaCapacity', () => {
  it('admits slots + queue requests, refuses the next with MEDIA_BUSY, and admits again after a release', () => {
    const capacity = new MediaCapacity(2, 1);
    const releases = [capacity.admit(), capacity.admit(), capacity.admit()];
    assert.throws(() => capacity.admit(), (err: unknown) => err instanceof AppError && err.code === 'MEDIA_BUSY' && err.statusCode === 503);
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
    await assert.rejects(capacity.run(async () => { throw new Error('boom'); }));
    assert.equal(await capacity.run(async () => 'next'), 'next');
  });
});

describe('MediaCapacity while bodies arrive', () => {
  it('lets each venue receive slots + queue uploads at once, whatever the others receive', () => {
    const capacity = new MediaCapacity(1, 1);
    const a = [capacity.receive('a'), capacity.receive('a')];
    assert.throws(() => capacity.receive('a'), (err: unknown) => err instanceof AppError && err.code === 'MEDIA_BUSY');
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
    const capacity = new MediaCapacity(2, 2, 100);
    const first = capacity.receive('a', 60);
    assert.throws(() => capacity.receive('b', 50), (err: unknown) => err instanceof AppError && err.code === 'MEDIA_BUSY');
    const second = capacity.receive('b', 40);
    first();
    second();
    capacity.receive('c', 100);
  });
});
