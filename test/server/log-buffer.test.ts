import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LogBuffer } from '../../src/server/log-buffer.js';

function output() {
  const writes: string[] = [];
  let synced = 0;
  return { writes, synced: () => synced, out: { write: (text: string) => void writes.push(text), flushSync: () => void (synced += 1) } };
}

describe('log buffer', () => {
  it('writes the lines gathered, in order, once they reach the threshold', () => {
    const { writes, out } = output();
    const buffer = new LogBuffer(out, 30, 60_000);
    buffer.write('{"a":1}\n');
    buffer.write('{"b":"é"}\n');
    assert.deepEqual(writes, []);
    buffer.write('{"c":3333333333}\n');
    assert.deepEqual(writes, ['{"a":1}\n{"b":"é"}\n{"c":3333333333}\n']);
    buffer.write('{"d":4}\n');
    assert.equal(writes.length, 1);
  });

  it('writes what has gathered after the flush interval, and nothing when nothing has', async () => {
    const { writes, out } = output();
    const buffer = new LogBuffer(out, 4096, 20);
    buffer.write('one\n');
    await sleep(80);
    assert.deepEqual(writes, ['one\n']);
    await sleep(60);
    assert.deepEqual(writes, ['one\n']);
  });

  it('flushSync hands over the rest and flushes the output (the exit path)', () => {
    const { writes, out, synced } = output();
    const buffer = new LogBuffer(out, 4096, 60_000);
    buffer.write('last\n');
    buffer.flushSync();
    assert.deepEqual(writes, ['last\n']);
    assert.equal(synced(), 1);
  });
});
