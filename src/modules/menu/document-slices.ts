// The items of a serialised menu document, found without parsing it. Parsing two documents of a
// 2,000-product menu (14 MB each) was nearly all of a diff's time, and most items of two menus
// being compared are the same bytes in both: only items whose bytes differ need to be parsed.

export type SectionName = 'categories' | 'ingredients' | 'products';

/** One item of a section: its ref (externalId, else id) and its bytes, a view of the document's. */
export interface ItemSlice {
  ref: string;
  bytes: Buffer;
}

export type DocumentSlices = Record<SectionName, ItemSlice[]>;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index of the quote that closes the string opened at `start`. */
function stringEnd(bytes: Buffer, start: number): number {
  let end = bytes.indexOf(QUOTE, start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (bytes[end - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
    end = bytes.indexOf(QUOTE, end + 1);
  }
  throw new Error('menu document: unterminated string');
}

/** Whether the string ending at `end` is a property name: a colon follows it. */
function isName(bytes: Buffer, end: number): boolean {
  let i = end + 1;
  while (isSpace(bytes[i])) i += 1;
  return bytes[i] === COLON;
}

/**
 * The items of `categories`, `ingredients` and `products` in a menu document serialised as JSON
 * (the read shape), in document order. One pass over the bytes: strings are
 * skipped whole, and only the top-level names and each item's own `externalId` and `id` are read.
 */
export function documentSlices(bytes: Buffer): DocumentSlices {
  const out: DocumentSlices = { categories: [], ingredients: [], products: [] };
  // 1: in the document; 2: in a top-level value (a section's array); 3: in one of its items.
  let depth = 0;
  let name = '';
  let section: ItemSlice[] | null = null;
  let itemStart = 0;
  let externalId: string | null = null;
  let id: string | null = null;
  for (let i = 0; i < bytes.length; i += 1) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i);
      if (depth === 1 || (depth === 3 && section !== null)) {
        if (isName(bytes, end)) name = bytes.toString('utf8', i + 1, end);
        else if (depth === 3 && (name === 'externalId' || name === 'id')) {
          const value = JSON.parse(bytes.toString('utf8', i, end + 1)) as string;
          if (name === 'externalId') externalId = value;
          else id = value;
        }
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth += 1;
      if (depth === 2) section = c === OPEN_ARRAY && Object.hasOwn(out, name) ? out[name as SectionName] : null;
      else if (depth === 3 && section !== null) {
        itemStart = i;
        externalId = null;
        id = null;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 3 && section !== null) {
        const ref = externalId ?? id;
        if (ref === null) throw new Error('menu document: an item without externalId or id');
        section.push({ ref, bytes: bytes.subarray(itemStart, i + 1) });
      }
      depth -= 1;
    }
  }
  return out;
}
