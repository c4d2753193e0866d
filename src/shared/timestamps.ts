// Times PostgreSQL stores and gives back as sent: year 1 to 9999 in UTC with a day to spare at each
// end (year 0, or year 1 at +14:00, is BC there and would fail on the way back).
const MIN_TIMESTAMP = Date.parse('0001-01-02T00:00:00Z');
const MAX_TIMESTAMP = Date.parse('9999-12-30T00:00:00Z');

/** True for a time PostgreSQL stores and gives back as sent (the validator's date-time format and the query parsers). */
export const inTimestampRange = (ms: number) => ms >= MIN_TIMESTAMP && ms <= MAX_TIMESTAMP;

/**
 * The instant a timestamp the validator accepted names. A date goes to SQL as this (a Date, or
 * its ISO text in UTC), never as the client's text: RFC 3339 allows offsets to ±23:59, PostgreSQL
 * only to ±15:59 (a `+23:59` sent through as text was a 500), and the engines differ on the rest.
 */
export function instantOf(text: string): Date {
  const ms = Date.parse(text);
  if (!inTimestampRange(ms)) throw new RangeError(`not a timestamp the validator accepts: ${JSON.stringify(text.slice(0, 40))}`);
  return new Date(ms);
}
