// Bodies whose shape, not their size, is the attack: each costs the server seconds or
// gigabytes if it is parsed or validated naively. `scale` 1 fills a 5 MB body; the fuzz suite
// draws them at a small scale, the stall suite (test/server/stall.test.ts) at full size.

const BODY_BYTES = 5 * 1024 * 1024 - 1024;

/** The first array-valued property of `sample` (the one the route iterates), or `items`. */
function arrayKey(sample: unknown): string {
  if (sample && typeof sample === 'object' && !Array.isArray(sample)) {
    const key = Object.entries(sample).find(([, v]) => Array.isArray(v))?.[0];
    if (key) return key;
  }
  return 'items';
}

/** Raw JSON texts of pathological shapes, named, for a route whose valid body is `sample`. */
export function pathologicalBodies(sample: unknown, scale = 1): Record<string, string> {
  const bytes = Math.floor(BODY_BYTES * scale);
  const key = arrayKey(sample);
  const fill = (unit: string, head: string, tail: string) =>
    head +
    Array(Math.max(1, Math.floor((bytes - head.length - tail.length) / (unit.length + 1))))
      .fill(unit)
      .join(',') +
    tail;
  let n = 0;
  const uniqueNames = '{' + Array.from({ length: Math.floor(bytes / 12) }, () => `"k${(n++).toString(36)}":0`).join(',') + '}';
  const text = JSON.stringify(sample ?? {});
  const longValue = text.includes('":"')
    ? text.replace(/":"[^"]*"/, `":"${'x'.repeat(Math.max(1, bytes - text.length))}"`)
    : `{"name":"${'x'.repeat(bytes)}"}`;
  return {
    // 1.7 million empty items: each one an error to a validator that lists them all.
    emptyItems: fill('{}', `{"${key}":[`, ']}'),
    // Invalid items in arrays that are each within a parser's array limit.
    emptyItemsNested: fill('[' + Array(5000).fill('{}').join(',') + ']', `{"${key}":[`, ']}'),
    // Distinct property names, each interned by JSON.parse.
    uniqueNames: uniqueNames.length > bytes ? uniqueNames.slice(0, uniqueNames.lastIndexOf(',', bytes)) + '}' : uniqueNames,
    deepest: '['.repeat(Math.floor(bytes / 2)) + ']'.repeat(Math.floor(bytes / 2)),
    widestNumbers: fill('0', `{"${key}":[`, ']}'),
    longValue,
  };
}
