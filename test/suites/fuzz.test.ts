import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fuzzWorld, missingSamples, runFuzz, type FuzzWorld } from '../helpers/fuzz.js';

// The bounded run of the fuzz suite (test/helpers/fuzz.ts) on a fixed seed, so `npm test` is
// repeatable; `npm run fuzz -- --seed N --runs N` runs it longer on any seed.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

describe('fuzzing every route', () => {
  let world: FuzzWorld;
  before(async () => {
    world = await fuzzWorld();
  });
  after(() => world?.t.close());

  it('has a sample body for every write route (a new route must join the fuzz suite)', () => {
    assert.deepEqual(missingSamples(world), []);
  });

  it(`holds every invariant for generated and mutated requests (seed ${SEED})`, async () => {
    const { runs } = await runFuzz(world, { seed: SEED, runs: 600, timeLimitMs: 8000 });
    assert.ok(runs >= 100, `only ${runs} cases ran`);
  });
});
