import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLocal, parseDuration, parseUntil } from '../../src/cli/venue-time.js';

// What `carta availability off --until` and `carta pause` read, and how the CLI shows instants:
// the venue's wall clock (settings.timezone), DST included. Pure, at a fixed now.

const at = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString();
const MADRID = 'Europe/Madrid';

describe('carta --until: a time in the venue timezone', () => {
  // Friday 2026-11-27, 16:00 in Madrid (UTC+1).
  const now = at('2026-11-27T15:00:00Z');

  it('HH:MM is today at that time, or tomorrow once it has passed today', () => {
    assert.equal(iso(parseUntil('18:30', MADRID, now)), '2026-11-27T17:30:00.000Z');
    assert.equal(iso(parseUntil('10:00', MADRID, now)), '2026-11-28T09:00:00.000Z');
    assert.equal(iso(parseUntil('16:00', MADRID, now)), '2026-11-28T15:00:00.000Z', 'now itself has passed');
    assert.equal(iso(parseUntil('9:05', MADRID, now)), '2026-11-28T08:05:00.000Z');
    assert.equal(iso(parseUntil('18:30', 'UTC', now)), '2026-11-27T18:30:00.000Z');
  });

  it('reads today as the venue’s date, not the UTC one', () => {
    // 23:30 in Madrid: 00:15 is the next local date, still 2026-11-27 in UTC.
    assert.equal(iso(parseUntil('00:15', MADRID, at('2026-11-27T22:30:00Z'))), '2026-11-27T23:15:00.000Z');
    // 01:00 on the 28th in Tokyo while UTC is on the 27th: 09:00 is later that Tokyo day.
    assert.equal(iso(parseUntil('09:00', 'Asia/Tokyo', at('2026-11-27T16:00:00Z'))), '2026-11-28T00:00:00.000Z');
  });

  it('"tomorrow HH:MM", a local date and time, and an instant with an offset', () => {
    assert.equal(iso(parseUntil('tomorrow 18:30', MADRID, now)), '2026-11-28T17:30:00.000Z');
    assert.equal(iso(parseUntil('Tomorrow  07:00', MADRID, now)), '2026-11-28T06:00:00.000Z');
    assert.equal(iso(parseUntil('2026-11-28T10:00', MADRID, now)), '2026-11-28T09:00:00.000Z');
    assert.equal(iso(parseUntil('2026-11-28 10:00', MADRID, now)), '2026-11-28T09:00:00.000Z');
    assert.equal(iso(parseUntil('2026-07-01T10:00', MADRID, now)), '2026-07-01T08:00:00.000Z', 'summer time on that date');
    assert.equal(iso(parseUntil('2026-11-28T10:00:00Z', MADRID, now)), '2026-11-28T10:00:00.000Z');
    assert.equal(iso(parseUntil('2026-11-28T10:00+02:00', MADRID, now)), '2026-11-28T08:00:00.000Z');
  });

  it('crosses DST changes by the wall clock: a skipped time is after the gap, a repeated one its first occurrence', () => {
    // Saturday 2026-03-28, 21:00 CET; at 02:00 on Sunday the clocks go to 03:00 CEST (UTC+2).
    const spring = at('2026-03-28T20:00:00Z');
    assert.equal(iso(parseUntil('10:00', MADRID, spring)), '2026-03-29T08:00:00.000Z');
    assert.equal(iso(parseUntil('02:30', MADRID, spring)), '2026-03-29T01:30:00.000Z', '03:30 CEST');
    // Saturday 2026-10-24, 22:00 CEST; at 03:00 on Sunday the clocks go back to 02:00 CET (UTC+1).
    const autumn = at('2026-10-24T20:00:00Z');
    assert.equal(iso(parseUntil('02:30', MADRID, autumn)), '2026-10-25T00:30:00.000Z', 'the first 02:30 (CEST)');
    assert.equal(iso(parseUntil('10:00', MADRID, autumn)), '2026-10-25T09:00:00.000Z');
  });

  it('refuses what is not a time, naming it and the forms', () => {
    for (const bad of ['25:00', '18.30', 'soon', 'tomorrow', 'tomorrow 25:00', '2026-02-30T10:00', '2026-11-28']) {
      assert.throws(
        () => parseUntil(bad, MADRID, now),
        (err: Error) => err.message.includes(`"${bad}" is not a time`) && err.message.includes('HH:MM'),
        bad,
      );
    }
  });
});

describe('carta pause: a duration', () => {
  it('takes minutes, m and h', () => {
    assert.equal(parseDuration('30'), 30 * 60_000);
    assert.equal(parseDuration('45m'), 45 * 60_000);
    assert.equal(parseDuration('2h'), 2 * 3_600_000);
    assert.equal(parseDuration('1h30m'), 90 * 60_000);
    assert.equal(parseDuration('1h30'), 90 * 60_000);
  });

  it('is null for zero and for what is not a duration', () => {
    for (const text of ['0', '0m', '', 'off', '18:30', 'h', 'm', '-5', '1.5h']) assert.equal(parseDuration(text), null, text);
  });
});

describe('carta: instants shown in the venue timezone', () => {
  const now = at('2026-11-27T15:00:00Z');
  it('today, tomorrow, else the weekday and date', () => {
    assert.equal(formatLocal(at('2026-11-27T17:30:00Z'), MADRID, now), 'today 18:30');
    assert.equal(formatLocal(at('2026-11-27T23:15:00Z'), MADRID, now), 'tomorrow 00:15');
    assert.equal(formatLocal(at('2026-11-29T09:00:00Z'), MADRID, now), 'Sun 2026-11-29 10:00');
    assert.equal(formatLocal(at('2026-11-27T23:15:00Z'), 'UTC', now), 'today 23:15');
  });
});
