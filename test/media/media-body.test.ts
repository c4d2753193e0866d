import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { MEDIA_BINARY_CAP_BYTES } from '../../src/limits.js';
import { Base64BodyDecoder } from '../../src/modules/media/media-body.js';
import { mulberry32 } from '../../bench/workload.js';

// The upload routes' streaming decoder (media-body.ts): a `{"base64":"..."}` body decoded chunk by
// chunk must give exactly Buffer.from(value, 'base64') wherever the chunks are cut; any other body
// must reach the ordinary parser as text that parses to the same thing (a base64 value may come back
// in the other alphabet, which decodes to the same bytes).

function run(body: string | Buffer, cuts: number[]) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
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

/** What the ordinary parser makes of a text, with base64 values compared by their bytes. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text, (key, value) =>
      key === 'base64' && typeof value === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value)
        ? `bytes:${Buffer.from(value, 'base64').toString('hex')}`
        : value,
    );
  } catch {
    return 'invalid JSON';
  }
}

describe('Base64BodyDecoder', () => {
  it('decodes {"base64":"..."} exactly, wherever the chunks are cut', () => {
    const rng = mulberry32(42);
    for (let round = 0; round < 300; round += 1) {
      const data = randomBytes(Math.floor(rng() * 300) + 1);
      const value = data.toString(rng() < 0.5 ? 'base64' : 'base64url');
      const body = rng() < 0.5 ? ` {\n  "base64" : "${value}" }\n` : `{"base64":"${value}"}`;
      const result = run(body, randomCuts(body.length, rng));
      assert.ok('decoded' in result && 'bytes' in result.decoded, `${body} -> ${JSON.stringify(result)}`);
      assert.ok(result.decoded.bytes.equals(data), `round ${round}`);
    }
  });

  it('cuts inside the head, inside a 4-character group, and one byte at a time', () => {
    const data = randomBytes(100);
    const body = `{ "base64": "${data.toString('base64')}" }`;
    const result = run(
      body,
      Array.from({ length: body.length - 1 }, (_, i) => i + 1),
    );
    assert.ok('decoded' in result && 'bytes' in result.decoded && result.decoded.bytes.equals(data));
  });

  it('hands every other body to the ordinary parser as the same JSON, wherever the chunks are cut', () => {
    const value = randomBytes(90).toString('base64');
    const bodies = [
      '{"url":"https://example.com/a.png"}',
      `{"base64":"${value}","url":"x"}`,
      `{"url":"x","base64":"${value}"}`,
      `{"base64":"${value}", "file": {"name": "ü.png"}}`,
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
      `{"base64":"${value}`,
      '',
      '   ',
      'not json',
      '{"base64":"Zm9v","base64":"YmFy"}',
      '\u000b{"base64":"aGk="}',
      '{\u00a0"base64":"aGk="}',
    ];
    const rng = mulberry32(7);
    for (const body of bodies) {
      for (let round = 0; round < 20; round += 1) {
        const result = run(body, randomCuts(Buffer.byteLength(body), rng));
        assert.ok('text' in result, `${body} was taken as a plain upload`);
        assert.deepEqual(parsed(result.text), parsed(body), `${body} came back as ${result.text}`);
      }
    }
  });

  it('reports a value over 15 MB decoded as too large, without keeping it, even when the body goes on', () => {
    const value = 'A'.repeat(Math.ceil(((MEDIA_BINARY_CAP_BYTES + 1) * 4) / 3) + 4);
    const body = `{"base64":"${value}"}`;
    const cuts = Array.from({ length: 20 }, (_, i) => Math.floor((body.length * (i + 1)) / 21));
    assert.deepEqual(run(body, cuts), { decoded: { tooLarge: true } });
    const more = run(`{"base64":"${value}","url":"https://example.com/"}`, cuts);
    assert.ok('text' in more);
    assert.deepEqual(JSON.parse(more.text), { base64: value, url: 'https://example.com/' });
    const fits = run(`{"base64":"${'A'.repeat(Math.floor((MEDIA_BINARY_CAP_BYTES * 4) / 3))}"}`, [1000, 5_000_000]);
    assert.ok('decoded' in fits && 'bytes' in fits.decoded && fits.decoded.bytes.length <= MEDIA_BINARY_CAP_BYTES);
  });
});
