// `npm run fuzz -- --seed N --runs N [--time-limit-ms N]`: the fuzz suite of test/suites/fuzz.test.ts,
// longer and on any seed, against a database of its own (PGlite, or DATABASE_URL's server).
// A failure prints fast-check's report: the seed and path that replay the shrunk request.
import { parseArgs } from 'node:util';
import { fuzzWorld, runFuzz } from '../test/helpers/fuzz.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    runs: { type: 'string', default: '5000' },
    'time-limit-ms': { type: 'string' },
  },
});
const seed = Number(values.seed);
const runs = Number(values.runs);
process.stdout.write(`carta fuzz: seed ${seed}, ${runs} runs on ${process.env.DATABASE_URL ? 'postgres' : 'pglite'}\n`);
const world = await fuzzWorld();
const started = Date.now();
try {
  const result = await runFuzz(world, { seed, runs, timeLimitMs: values['time-limit-ms'] ? Number(values['time-limit-ms']) : undefined });
  process.stdout.write(`ok: ${result.runs} requests, every invariant held (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
} catch (err) {
  process.stdout.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await world.t.close();
}
