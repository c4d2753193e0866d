import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { MEDIA_BINARY_CAP_BYTES } from '../src/limits.js';
import { Base64BodyDecoder } from '../src/modules/media/media-body.js';
import { mulberry32 } from '../bench/workload.js';

// The upload routes' streaming decoder (media-body.ts): a `{"base64":"..."}` body decoded chunk by
// chunk must give exactly Buffer.from(value, 'base64') wherever the chunks are cut, and anything
// else must be left to the ordinary JSON parser (null).

function run(body: string | Buffer, cuts: number[]) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
  const decoder = new Base64BodyDecoder(bytes.length);
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    decoder.push(bytes.subarray(from, cut));
    from = cut;
  }
  return decoder.end();
}

function randomCuts(length: number, rng: () => number): number[] {
  const n = Math.floor(rng() * 8);
  return Array.from({ length: n }, () => Math.floor(rng() * length)).sort((a, b) => a - b);
}

describe('Base64BodyDecoder', () => {
  it('decodes {"base64":"..."} exactly, wherever the chunks are cut', () => {
    const rng = mulberry32(42);
    for (let round = 0; round < 300; round += 1) {
      const data = randomBytes(Math.floor(rng() * 300) + 1);
      const alphabet = rng() < 0.5 ? 'base64' : 'base64url';
      const value = data.toString(alphabet);
      const spaced = rng() < 0.5;
      const body = spaced ? ` {\n  "base64" : "${value}" }\n` : `{"base64":"${value}"}`;
      const result = run(body, randomCuts(body.length, rng));
      assert.ok(result && 'bytes' in result, `${body} -> ${JSON.stringify(result)}`);
      assert.ok(result.bytes.equals(data), `round ${round}`);
    }
  });

  it('cuts inside the head, inside a 4-character group, and one byte at a time', () => {
    const data = randomBytes(100);
    const body = `{ "base64": "${data.toString('base64')}" }`;
    const oneByOne = run(body, Array.from({ length: body.length - 1 }, (_, i) => i + 1));
    assert.ok(oneByOne && 'bytes' in oneByOne && oneByOne.bytes.equals(data));
  });

  it('leaves every other body to the ordinary parser', () => {
    for (const body of [
      '{"url":"https://example.com/a.png"}',
      '{"base64":"aGk=","url":"x"}',
      '{"url":"x","base64":"aGk="}',
      '{"base64":"aGk\\u003d"}',
      '{"base64":"aG\\nk="}',
      '{"base64":"aGk= "}',
      '{"base64":"aGk===="}',
      '{"base64":"aGk=a"}',
      '{"base64":"aGk="',
      '{"base64":"aGk="}}',
      '{"base64":"aGk="} x',
      '{"base64":""}',
      '{"base64":42}',
      '{"__proto__":{"x":1},"base64":"aGk="}',
      '[{"base64":"aGk="}]',
      '',
      '   ',
      'not json',
    ]) {
      assert.equal(run(body, [Math.floor(body.length / 2)]), null, body);
    }
  });

  it('reports a value over 15 MB decoded as too large, without keeping it', () => {
    const value = 'A'.repeat(Math.ceil(((MEDIA_BINARY_CAP_BYTES + 1) * 4) / 3) + 4);
    const body = `{"base64":"${value}"}`;
    const cuts = Array.from({ length: 20 }, (_, i) => Math.floor((body.length * (i + 1)) / 21));
    assert.deepEqual(run(body, cuts), { tooLarge: true });
    const fits = `{"base64":"${'A'.repeat(Math.floor((MEDIA_BINARY_CAP_BYTES * 4) / 3))}"}`;
    const ok = run(fits, [1000, 5_000_000]);
    assert.ok(ok && 'bytes' in ok);
    assert.ok(ok.bytes.length <= MEDIA_BINARY_CAP_BYTES);
  });
});
