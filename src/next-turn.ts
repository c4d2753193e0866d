/**
 * Lets the event loop answer what is waiting (a health probe, other venues' requests) between two
 * long synchronous steps of one request, such as building and then serialising a whole menu.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** UTF-16 code units encoded per turn by utf8InTurns: a few milliseconds of work. */
const UTF8_SLICE = 1 << 19;

/**
 * `text` as UTF-8, encoded a slice per turn. V8 keeps a text with any character past Latin-1 as
 * two-byte text, and encoding a menu's 3.5 MB document of it at once took 90-200 ms.
 */
export async function utf8InTurns(text: string): Promise<Buffer> {
  const parts = await utf8PartsInTurns(text);
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** utf8InTurns's parts, one per turn, in order: each slice's bytes, not joined. */
export async function utf8PartsInTurns(text: string): Promise<Buffer[]> {
  if (text.length <= UTF8_SLICE) return [Buffer.from(text, 'utf8')];
  const parts: Buffer[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + UTF8_SLICE, text.length);
    // Never between the two halves of a surrogate pair: each half alone would be encoded as U+FFFD.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    parts.push(Buffer.from(text.slice(start, end), 'utf8'));
    start = end;
    await nextTurn();
  }
  return parts;
}

/** Items serialised per turn by jsonArrayInTurns. */
const JSON_ITEMS_PER_TURN = 50;

/**
 * JSON.stringify(items) for an array of plain rows, JSON_ITEMS_PER_TURN of them per turn: a
 * 500-product sync's rows (6 MB of JSON) took 16-100 ms at once.
 */
export async function jsonArrayInTurns(items: readonly unknown[]): Promise<string> {
  const parts: string[] = [];
  for (let start = 0; start < items.length; start += JSON_ITEMS_PER_TURN) {
    if (start > 0) await nextTurn();
    // An item JSON cannot hold (undefined, a function) is null in an array, as JSON.stringify makes it.
    parts.push(
      items
        .slice(start, start + JSON_ITEMS_PER_TURN)
        .map((item) => JSON.stringify(item) ?? 'null')
        .join(','),
    );
  }
  return `[${parts.join(',')}]`;
}
