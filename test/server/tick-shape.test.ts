// The tick-shape keeper (src/server/internals/tick-shape.ts): after full collections that find no tick object
// alive, Node's process.nextTick must keep its monomorphic literal feedback, so that its optimised
// code defines a tick's keys inline instead of through V8's runtime. Read from V8's own feedback
// vector (%DebugPrint), in a child process per case; a control without the keeper shows that the
// check can fail on this Node.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { keptTick } from '../../src/server/internals/tick-shape.js';

const keeperModule = pathToFileURL(path.resolve(import.meta.dirname, '../../src/server/internals/tick-shape.ts')).href;

// Plain JavaScript (V8's `%` syntax is not TypeScript): warm nextTick up until it records its
// feedback and its optimised code is in (the pause lets a compile on a busy machine finish), collect
// with no tick alive, tick again, print nextTick's feedback. V8 keeps a map that optimised code
// names for two more full collections, so it takes more than two; eight leave room.
const script = (withKeeper: boolean) => `
${withKeeper ? `await import(${JSON.stringify(keeperModule)});` : ''}
const burst = (n) => new Promise((resolve) => {
  let left = n;
  const step = () => { if (--left === 0) resolve(); };
  for (let i = 0; i < n; i++) process.nextTick(step);
});
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < 20; i++) await burst(1000);
await pause(100);
for (let i = 0; i < 20; i++) await burst(1000);
for (let i = 0; i < 8; i++) { await pause(5); globalThis.gc(); }
await burst(1000);
%DebugPrint(process.nextTick);
`;

/** The states of nextTick's literal-key feedback slots, e.g. ['MONOMORPHIC', 'MEGAMORPHIC', ...]. */
function literalFeedback(withKeeper: boolean): string[] {
  // V8 prints through C's stdio, which loses its last buffer on a pipe at exit; a file keeps it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-tick-'));
  const out = path.join(dir, 'stdout');
  const fd = fs.openSync(out, 'w');
  try {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--allow-natives-syntax', '--expose-gc', '--input-type=module', '-e', script(withKeeper)],
      { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    return [...fs.readFileSync(out, 'utf8').matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the tick-shape keeper', () => {
  it("holds one of Node's own tick objects once a tick has run", async () => {
    await new Promise((resolve) => process.nextTick(resolve));
    const tick = keptTick() as { callback?: unknown } | undefined;
    assert.ok(tick);
    assert.equal(typeof tick.callback, 'function');
    assert.ok(Object.getOwnPropertySymbols(tick).some((key) => key.description === 'async_id_symbol'));
  });

  it('keeps process.nextTick monomorphic through full collections that find no tick alive', (t) => {
    const control = literalFeedback(false);
    if (control.length === 0) return t.skip('no literal feedback printed for nextTick (a Node whose ticks are not such literals?)');
    if (!control.includes('MEGAMORPHIC')) return t.skip(`nextTick kept its feedback without the keeper this time: ${control.join(', ')}`);
    const kept = literalFeedback(true);
    assert.ok(kept.length > 0);
    assert.deepEqual(
      kept.filter((state) => state !== 'MONOMORPHIC'),
      [],
      `nextTick's literal feedback: ${kept.join(', ')}`,
    );
  });
});
