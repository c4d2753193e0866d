// Times PostgreSQL stores and gives back as sent: year 1 to 9999 in UTC with a day to spare at each
// end (year 0, or year 1 at +14:00, is BC there and would fail on the way back).
const MIN_TIMESTAMP = Date.parse('0001-01-02T00:00:00Z');
const MAX_TIMESTAMP = Date.parse('9999-12-30T00:00:00Z');

/** True for a time PostgreSQL stores and gives back as sent (the validator's date-time format and the query parsers). */
export const inTimestampRange = (ms: number) => ms >= MIN_TIMESTAMP && ms <= MAX_TIMESTAMP;
