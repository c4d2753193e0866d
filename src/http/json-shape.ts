// JSON.parse is one synchronous call, and some 5 MB texts cost it seconds: 1.7 million empty
// objects in one array (about 1 s), half a million distinct property names (about 2 s, each name is
// interned). No valid body comes near these shapes, so one linear scan of the raw text refuses them
// before parsing, in a few milliseconds. The limits sit far above what any route's schema allows.

export const JSON_SHAPE_LIMITS = {
  /** Objects and arrays nested in one another; valid bodies nest 6 deep at most. */
  maxDepth: 32,
  /** Elements of one array; the largest schema cap is 1,000. */
  maxArrayItems: 10_000,
  /** Objects and arrays in the whole body; a 5 MB sync of minimal options holds about 170,000. */
  maxContainers: 200_000,
  /** Distinct property names in the whole body; the schemas name about a hundred. */
  maxPropertyNames: 1_000,
} as const;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const OPEN_ARRAY = 91;
const CLOSE_OBJECT = 125;
const CLOSE_ARRAY = 93;
const COMMA = 44;

/** Index of the quote that closes the string opened at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}

/**
 * The first limit of JSON_SHAPE_LIMITS that `text` breaks, as a validation message, or null.
 * Malformed text is left to JSON.parse to refuse.
 */
export function jsonShapeProblem(text: string): string | null {
  const { maxDepth, maxArrayItems, maxContainers, maxPropertyNames } = JSON_SHAPE_LIMITS;
  // Per open container: whether it is an object, and its commas so far.
  const isObject = new Uint8Array(maxDepth + 1);
  const commas = new Uint32Array(maxDepth + 1);
  const names = new Set<string>();
  let depth = 0;
  let containers = 0;
  let expectName = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return null;
      if (expectName) {
        names.add(text.slice(i + 1, end));
        if (names.size > maxPropertyNames) return `body has more than ${maxPropertyNames} different property names`;
        expectName = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      containers += 1;
      if (depth > maxDepth) return `body is nested more than ${maxDepth} levels deep`;
      if (containers > maxContainers) return `body has more than ${maxContainers} objects and arrays`;
      isObject[depth] = c === OPEN_OBJECT ? 1 : 0;
      commas[depth] = 0;
      expectName = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth -= 1;
      if (depth < 0) return null;
      expectName = false;
    } else if (c === COMMA && depth > 0) {
      commas[depth] += 1;
      if (isObject[depth] === 1) expectName = true;
      else if (commas[depth] >= maxArrayItems) return `body has an array of more than ${maxArrayItems} items`;
    }
  }
  return null;
}
