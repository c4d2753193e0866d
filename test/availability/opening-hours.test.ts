import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hours, openingHoursProblems, type DatedHours, type OpeningHoursValue, type WeeklyHours } from '../../src/shared/opening-hours.js';

const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const open = (day: WeeklyHours['day'], openTime: string, closeTime: string): WeeklyHours => ({ day, isOpen: true, openTime, closeTime });
const on = (date: string, openTime: string, closeTime: string): DatedHours => ({ date, isOpen: true, openTime, closeTime });
const closedOn = (date: string): DatedHours => ({ date, isOpen: false });
const hours = (weekly: WeeklyHours[], exceptions: DatedHours[] = []): OpeningHoursValue => ({ weekly, exceptions });

/** Asserts it is open from `from` (inclusive) to `to` (exclusive), and closed just around. */
function assertWindow(h: Hours, from: string, to: string) {
  assert.equal(h.isOpenAt(at(from) - 1), false, `closed just before ${from}`);
  assert.equal(h.isOpenAt(at(from)), true, `open at ${from}`);
  assert.equal(h.isOpenAt(at(to) - 1), true, `open just before ${to}`);
  assert.equal(h.isOpenAt(at(to)), false, `closed at ${to}`);
  assert.equal(h.closesAfter(at(from)), at(to));
  assert.equal(h.opensAt(at(from) - 1), at(from));
}

describe('opening hours: always open', () => {
  for (const [name, h] of [
    ['null hours', Hours.of(null, 'Europe/London')],
    ['a category schedule []', Hours.ofSchedule([], 'Europe/London')],
  ] as const) {
    it(`${name} is open at any instant, and never closes`, () => {
      assert.equal(h.alwaysOpen, true);
      for (const t of [at('2026-03-29T01:30:00Z'), at('2026-12-25T12:00:00Z'), 0]) {
        assert.equal(h.isOpenAt(t), true);
        assert.equal(h.opensAt(t), t);
        assert.equal(h.closesAfter(t), null);
        assert.equal(h.nextChange(t), null);
      }
    });
  }

  it('a non-empty schedule or hours without entries is not always open', () => {
    assert.equal(Hours.ofSchedule([{ day: 'monday', isOpen: false }], 'UTC').alwaysOpen, false);
    const never = Hours.of(hours([]), 'UTC');
    assert.equal(never.alwaysOpen, false);
    assert.equal(never.isOpenAt(at('2026-03-02T12:00:00Z')), false);
    assert.equal(never.opensAt(at('2026-03-02T12:00:00Z')), null);
    assert.equal(never.nextChange(at('2026-03-02T12:00:00Z')), null);
  });
});

describe('opening hours: weekly', () => {
  it('opens a simple weekday, closed at its closing time; a day missing from weekly is closed', () => {
    // 2026-03-02 is a Monday.
    const h = Hours.of(hours([open('monday', '09:00', '17:00')]), 'UTC');
    assert.equal(h.alwaysOpen, false);
    assertWindow(h, '2026-03-02T09:00:00Z', '2026-03-02T17:00:00Z');
    assert.equal(h.closesAfter(at('2026-03-02T10:00:00Z')), at('2026-03-02T17:00:00Z'));
    assert.equal(h.closesAfter(at('2026-03-02T18:00:00Z')), null, 'closed: no window to close');
    // Tuesday to Sunday are missing: closed, the next opening is the next Monday.
    assert.equal(h.isOpenAt(at('2026-03-03T12:00:00Z')), false);
    assert.equal(h.opensAt(at('2026-03-02T17:00:00Z')), at('2026-03-09T09:00:00Z'));
    assert.equal(h.opensAt(at('2026-03-02T10:00:00Z')), at('2026-03-02T10:00:00Z'), 'open now: now');
  });

  it('reads the times in the venue timezone', () => {
    // Kyiv is UTC+2 in winter: 09:00 local is 07:00 UTC.
    const h = Hours.of(hours([open('monday', '09:00', '17:00')]), 'Europe/Kyiv');
    assertWindow(h, '2026-03-02T07:00:00Z', '2026-03-02T15:00:00Z');
    // Auckland is UTC+13 in its summer: Monday 09:00 there is Sunday 20:00 UTC.
    assertWindow(Hours.of(hours([open('monday', '09:00', '17:00')]), 'Pacific/Auckland'), '2026-03-01T20:00:00Z', '2026-03-02T04:00:00Z');
  });

  it('runs split shifts of a day (2 and 3)', () => {
    const h = Hours.of(
      hours([
        open('monday', '18:00', '22:00'),
        open('monday', '08:00', '11:00'),
        open('monday', '12:00', '15:00'),
        open('tuesday', '12:00', '14:00'),
        open('tuesday', '17:00', '23:00'),
      ]),
      'Europe/Kyiv',
    );
    assertWindow(h, '2026-03-02T06:00:00Z', '2026-03-02T09:00:00Z');
    assertWindow(h, '2026-03-02T10:00:00Z', '2026-03-02T13:00:00Z');
    assertWindow(h, '2026-03-02T16:00:00Z', '2026-03-02T20:00:00Z');
    assertWindow(h, '2026-03-03T10:00:00Z', '2026-03-03T12:00:00Z');
    assertWindow(h, '2026-03-03T15:00:00Z', '2026-03-03T21:00:00Z');
    assert.equal(h.opensAt(at('2026-03-02T09:30:00Z')), at('2026-03-02T10:00:00Z'), 'between shifts: the next one');
    assert.equal(h.opensAt(at('2026-03-03T21:00:00Z')), at('2026-03-09T06:00:00Z'));
  });

  it('runs a shift past midnight into the next day, which it belongs to the day it starts on', () => {
    // Friday 2026-03-06 18:00 to Saturday 02:00, Kyiv (UTC+2); Saturday itself is closed.
    const h = Hours.of(hours([open('friday', '18:00', '02:00')]), 'Europe/Kyiv');
    assertWindow(h, '2026-03-06T16:00:00Z', '2026-03-07T00:00:00Z');
    const sat0130 = at('2026-03-06T23:30:00Z');
    assert.equal(h.isOpenAt(sat0130), true);
    assert.equal(h.closesAfter(sat0130), at('2026-03-07T00:00:00Z'));
    // Thursday night is not open: Friday's hours do not run backwards, and Thursday is missing.
    assert.equal(h.isOpenAt(at('2026-03-05T23:30:00Z')), false);
  });

  it('is open all day with 00:00-00:00, and merges consecutive whole days into one window', () => {
    const weekdays = (['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const).map((d) => open(d, '00:00', '00:00'));
    const h = Hours.of(hours(weekdays), 'UTC');
    assertWindow(h, '2026-03-02T00:00:00Z', '2026-03-07T00:00:00Z');
    assert.equal(h.closesAfter(at('2026-03-04T10:00:00Z')), at('2026-03-07T00:00:00Z'), 'the true end, days ahead');
    assert.equal(h.closesAfter(at('2026-03-04T10:00:00Z'), DAY), null, 'not within a horizon of a day');
    assert.equal(h.nextChange(at('2026-03-04T10:00:00Z')), at('2026-03-07T00:00:00Z'));

    const everyDay = Hours.of(hours([...weekdays, open('saturday', '00:00', '00:00'), open('sunday', '00:00', '00:00')]), 'UTC');
    assert.equal(everyDay.isOpenAt(at('2026-03-04T10:00:00Z')), true);
    assert.equal(everyDay.closesAfter(at('2026-03-04T10:00:00Z')), null, 'open beyond the horizon');
    assert.equal(everyDay.nextChange(at('2026-03-04T10:00:00Z')), null);
  });

  it('merges hours that touch across midnight: Mon 18:00-00:00 and Tue 00:00-02:00 are one window', () => {
    const h = Hours.of(hours([open('monday', '18:00', '00:00'), open('tuesday', '00:00', '02:00')]), 'Europe/Kyiv');
    assertWindow(h, '2026-03-02T16:00:00Z', '2026-03-03T00:00:00Z');
    assert.equal(h.nextChange(at('2026-03-02T17:00:00Z')), at('2026-03-03T00:00:00Z'));
  });

  it('is open 24 hours from openTime when openTime equals closeTime', () => {
    // Wednesday 2026-03-04 10:00 to Thursday 10:00.
    const h = Hours.of(hours([open('wednesday', '10:00', '10:00')]), 'UTC');
    assertWindow(h, '2026-03-04T10:00:00Z', '2026-03-05T10:00:00Z');
    assert.equal(h.isOpenAt(at('2026-03-05T09:59:00Z')), true);
    assert.equal(h.isOpenAt(at('2026-03-04T09:59:00Z')), false);
  });

  it('honours a category schedule: listed days as given, closed days and unlisted days closed', () => {
    const h = Hours.ofSchedule([open('monday', '11:00', '15:00'), { day: 'tuesday', isOpen: false }], 'UTC');
    assert.equal(h.alwaysOpen, false);
    assertWindow(h, '2026-03-02T11:00:00Z', '2026-03-02T15:00:00Z');
    assert.equal(h.isOpenAt(at('2026-03-03T12:00:00Z')), false);
    assert.equal(h.isOpenAt(at('2026-03-04T12:00:00Z')), false);
    assert.equal(h.opensAt(at('2026-03-03T12:00:00Z')), at('2026-03-09T11:00:00Z'));
  });
});

describe('opening hours: exceptions', () => {
  // 2026-12-24 is a Thursday, 12-25 a Friday, 12-26 a Saturday, 12-31 a Thursday.
  const weekly = [open('thursday', '22:00', '02:00'), open('friday', '10:00', '20:00'), open('saturday', '10:00', '20:00')];

  it('closes a date, while the hours of the day before still run past midnight into it', () => {
    const h = Hours.of(hours(weekly, [closedOn('2026-12-25')]), 'UTC');
    assertWindow(h, '2026-12-24T22:00:00Z', '2026-12-25T02:00:00Z');
    assert.equal(h.isOpenAt(at('2026-12-25T01:00:00Z')), true);
    assert.equal(h.closesAfter(at('2026-12-25T01:00:00Z')), at('2026-12-25T02:00:00Z'));
    assert.equal(h.isOpenAt(at('2026-12-25T12:00:00Z')), false, 'the Friday hours do not apply');
    assert.equal(h.opensAt(at('2026-12-25T02:00:00Z')), at('2026-12-26T10:00:00Z'));
    // Without the exception, Friday opens as usual.
    assert.equal(Hours.of(hours(weekly), 'UTC').isOpenAt(at('2026-12-25T12:00:00Z')), true);
  });

  it('replaces the weekly hours of a date with its own (split shifts too)', () => {
    const h = Hours.of(
      hours(weekly, [on('2026-12-31', '18:00', '03:00'), on('2026-12-26', '09:00', '12:00'), on('2026-12-26', '15:00', '17:00')]),
      'Europe/Kyiv',
    );
    // New Year's Eve (Kyiv, UTC+2): 18:00 to 03:00 instead of 22:00-02:00.
    assertWindow(h, '2026-12-31T16:00:00Z', '2027-01-01T01:00:00Z');
    assert.equal(h.closesAfter(at('2027-01-01T00:30:00Z')), at('2027-01-01T01:00:00Z'));
    // Boxing Day: two shifts instead of 10:00-20:00.
    assertWindow(h, '2026-12-26T07:00:00Z', '2026-12-26T10:00:00Z');
    assertWindow(h, '2026-12-26T13:00:00Z', '2026-12-26T15:00:00Z');
    assert.equal(h.isOpenAt(at('2026-12-26T17:00:00Z')), false);
    // The other Thursday keeps its weekly hours.
    assertWindow(h, '2026-12-24T20:00:00Z', '2026-12-25T00:00:00Z');
  });
});

describe('opening hours: looking ahead', () => {
  // Mondays 09:00-10:00 UTC only; 2026-03-03 is a Tuesday.
  const weekly = [open('monday', '09:00', '10:00')];
  const tuesday = at('2026-03-03T12:00:00Z');

  it('finds the next opening across several closed days, and null beyond the horizon', () => {
    const h = Hours.of(hours(weekly), 'UTC');
    assert.equal(h.opensAt(tuesday), at('2026-03-09T09:00:00Z'));
    assert.equal(h.opensAt(tuesday, 3 * DAY), null);
    const until = at('2026-03-09T09:00:00Z') - tuesday;
    assert.equal(h.opensAt(tuesday, until), at('2026-03-09T09:00:00Z'), 'the horizon is inclusive');
    assert.equal(h.opensAt(tuesday, until - 1), null);

    // Two Mondays closed: the next opening is 20 days ahead, beyond the default 14.
    const closed = Hours.of(hours(weekly, [closedOn('2026-03-09'), closedOn('2026-03-16')]), 'UTC');
    assert.equal(closed.opensAt(tuesday), null);
    assert.equal(closed.nextChange(tuesday), null);
    assert.equal(closed.opensAt(tuesday, 21 * DAY), at('2026-03-23T09:00:00Z'));
    assert.equal(closed.opensAt(tuesday, 60 * DAY), at('2026-03-23T09:00:00Z'));
  });

  it('gives the next change of isOpenAt: the closing while open, the opening while closed', () => {
    const h = Hours.of(hours(weekly), 'UTC');
    assert.equal(h.nextChange(tuesday), at('2026-03-09T09:00:00Z'));
    assert.equal(h.nextChange(at('2026-03-09T09:00:00Z')), at('2026-03-09T10:00:00Z'), 'at the opening instant: the closing');
    assert.equal(h.nextChange(at('2026-03-09T09:30:00Z')), at('2026-03-09T10:00:00Z'));
    assert.equal(h.nextChange(at('2026-03-09T10:00:00Z')), at('2026-03-16T09:00:00Z'), 'at the closing instant: the next opening');
    assert.equal(h.nextChange(tuesday, DAY), null);
    // A horizon already past looks at nothing ahead; one without an end is refused.
    assert.equal(h.nextChange(tuesday, -DAY), null);
    assert.equal(h.opensAt(tuesday, -DAY), null);
    assert.throws(() => h.opensAt(tuesday, Infinity), RangeError);
  });

  it('answers questions in any order, far apart, from one object', () => {
    const h = Hours.of(hours(weekly), 'Europe/London');
    const instants = [
      at('2026-03-09T09:30:00Z'),
      at('2030-01-07T09:30:00Z'),
      at('2026-03-03T12:00:00Z'),
      at('2026-03-09T08:30:00Z'),
      at('2020-06-01T08:30:00Z'),
    ];
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(
        instants.map((t) => h.isOpenAt(t)),
        [true, true, false, false, true],
      );
    }
    assert.equal(h.opensAt(at('2026-03-03T12:00:00Z')), at('2026-03-09T09:00:00Z'));
    assert.equal(h.closesAfter(at('2020-06-01T08:30:00Z')), at('2020-06-01T09:00:00Z'), 'BST in June');
  });
});

describe('opening hours: DST, by the wall clock', () => {
  // Europe/London: 2026-03-29 (a Sunday) jumps from 01:00 GMT to 02:00 BST; 2026-10-25 (a
  // Sunday) falls back from 02:00 BST to 01:00 GMT.
  it('makes a whole day 23 hours on the spring-forward day and 25 on the fall-back day (London)', () => {
    const h = Hours.of(hours([open('sunday', '00:00', '00:00')]), 'Europe/London');
    assertWindow(h, '2026-03-29T00:00:00Z', '2026-03-29T23:00:00Z');
    assertWindow(h, '2026-10-24T23:00:00Z', '2026-10-26T00:00:00Z');
    assert.equal(h.closesAfter(at('2026-03-29T00:00:00Z'))! - at('2026-03-29T00:00:00Z'), 23 * HOUR);
    assert.equal(h.closesAfter(at('2026-10-24T23:00:00Z'))! - at('2026-10-24T23:00:00Z'), 25 * HOUR);
  });

  it('opens a shift that starts in the skipped hour at the jump (London, 01:00-03:00 on 29 March)', () => {
    const h = Hours.of(hours([open('sunday', '01:00', '03:00')]), 'Europe/London');
    // 01:00 local does not exist: the shift opens at the jump (01:00 UTC = 02:00 BST), and closes at
    // 03:00 BST (02:00 UTC): one real hour.
    assertWindow(h, '2026-03-29T01:00:00Z', '2026-03-29T02:00:00Z');
    assert.equal(h.isOpenAt(at('2026-03-29T00:59:00Z')), false, '00:59 GMT');
    // On the fall-back night 01:00 is its first occurrence (BST) and 03:00 is GMT: three real hours.
    assertWindow(h, '2026-10-25T00:00:00Z', '2026-10-25T03:00:00Z');
  });

  it('keeps a 09:00-17:00 shift 8 hours of wall time on a DST day', () => {
    const h = Hours.of(hours([open('sunday', '09:00', '17:00')]), 'Europe/London');
    assertWindow(h, '2026-03-29T08:00:00Z', '2026-03-29T16:00:00Z');
    assertWindow(h, '2026-10-25T09:00:00Z', '2026-10-25T17:00:00Z');
    assertWindow(h, '2026-03-22T09:00:00Z', '2026-03-22T17:00:00Z');
  });

  it('runs a past-midnight shift across the change (London)', () => {
    // Saturday 22:00 to Sunday 04:00: 5 real hours into BST, 7 into GMT.
    const h = Hours.of(hours([open('saturday', '22:00', '04:00')]), 'Europe/London');
    assertWindow(h, '2026-03-28T22:00:00Z', '2026-03-29T03:00:00Z');
    assertWindow(h, '2026-10-24T21:00:00Z', '2026-10-25T04:00:00Z');
  });

  // Australia/Sydney: 2026-04-05 (a Sunday) falls back from 03:00 AEDT (UTC+11) to 02:00 AEST
  // (UTC+10); 2026-10-04 (a Sunday) jumps from 02:00 AEST to 03:00 AEDT.
  it('makes a whole day 25 hours when DST ends and 23 when it starts (Sydney)', () => {
    const h = Hours.of(hours([open('sunday', '00:00', '00:00')]), 'Australia/Sydney');
    assertWindow(h, '2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z');
    assertWindow(h, '2026-10-03T14:00:00Z', '2026-10-04T13:00:00Z');
  });

  it('runs past-midnight shifts across the change (Sydney)', () => {
    const h = Hours.of(hours([open('saturday', '20:00', '03:00')]), 'Australia/Sydney');
    // 20:00 AEDT to 03:00 AEST: 8 real hours for 7 of wall time.
    assertWindow(h, '2026-04-04T09:00:00Z', '2026-04-04T17:00:00Z');
    // 20:00 AEST to 03:00 AEDT: 6 real hours.
    assertWindow(h, '2026-10-03T10:00:00Z', '2026-10-03T16:00:00Z');
    // A closing time the jump skips (02:30) is the moment after the gap, 03:30 AEDT.
    const skipped = Hours.of(hours([open('saturday', '22:00', '02:30')]), 'Australia/Sydney');
    assertWindow(skipped, '2026-10-03T12:00:00Z', '2026-10-03T16:30:00Z');
  });

  it('merges whole days across a change into one window', () => {
    const h = Hours.of(hours([open('saturday', '00:00', '00:00'), open('sunday', '00:00', '00:00')]), 'Europe/London');
    // Saturday 00:00 GMT to Monday 00:00 BST.
    assertWindow(h, '2026-03-28T00:00:00Z', '2026-03-29T23:00:00Z');
  });
});

describe('opening hours: problems', () => {
  it('accepts valid hours: split shifts, touching shifts, past midnight, 24 hours, exceptions', () => {
    const valid = hours(
      [
        open('monday', '09:00', '12:00'),
        open('monday', '12:00', '15:00'),
        open('monday', '18:00', '22:00'),
        open('friday', '18:00', '02:00'),
        open('saturday', '10:00', '10:00'),
        open('sunday', '10:00', '11:00'),
        { day: 'tuesday', isOpen: false },
      ],
      [
        closedOn('2026-12-25'),
        on('2026-12-31', '18:00', '03:00'),
        on('2027-01-01', '03:00', '05:00'),
        on('2026-12-24', '09:00', '12:00'),
        on('2026-12-24', '13:00', '16:00'),
      ],
    );
    assert.deepEqual(openingHoursProblems(valid), []);
    assert.deepEqual(openingHoursProblems(hours([])), []);
    assert.deepEqual(openingHoursProblems(null), []);
    // Exactly 100 exceptions is fine.
    const hundred = Array.from({ length: 100 }, (_, i) =>
      closedOn(new Date(at('2027-01-01T00:00:00Z') + i * DAY).toISOString().slice(0, 10)),
    );
    assert.deepEqual(openingHoursProblems(hours([], hundred)), []);
  });

  it('names overlapping entries, on the same day, across midnight, and around the week', () => {
    assert.deepEqual(
      openingHoursProblems(hours([open('monday', '09:00', '12:00'), open('tuesday', '09:00', '12:00'), open('monday', '11:00', '14:00')])),
      ['openingHours.weekly[2] overlaps openingHours.weekly[0]'],
    );
    assert.deepEqual(openingHoursProblems(hours([open('friday', '18:00', '02:00'), open('saturday', '01:00', '05:00')])), [
      'openingHours.weekly[1] overlaps openingHours.weekly[0]',
    ]);
    assert.deepEqual(openingHoursProblems(hours([open('monday', '01:00', '05:00'), open('sunday', '22:00', '02:00')])), [
      'openingHours.weekly[1] overlaps openingHours.weekly[0]',
    ]);
    assert.deepEqual(openingHoursProblems(hours([open('wednesday', '10:00', '10:00'), open('thursday', '09:00', '10:00')])), [
      'openingHours.weekly[1] overlaps openingHours.weekly[0]',
    ]);
    assert.deepEqual(openingHoursProblems(hours([open('monday', '09:00', '12:00'), open('monday', '09:00', '12:00')])), [
      'openingHours.weekly[1] overlaps openingHours.weekly[0]',
    ]);
    assert.deepEqual(
      openingHoursProblems(
        hours([], [on('2026-12-24', '22:00', '02:00'), on('2026-12-25', '01:00', '05:00'), on('2026-12-24', '10:00', '23:00')]),
      ),
      ['openingHours.exceptions[1] overlaps openingHours.exceptions[0]', 'openingHours.exceptions[2] overlaps openingHours.exceptions[0]'],
    );
  });

  it('names bad times and dates, and open entries without times', () => {
    const bad = {
      weekly: [
        { day: 'monday', isOpen: true, openTime: '09:00', closeTime: '24:00' },
        { day: 'tuesday', isOpen: true, openTime: '9:00', closeTime: '17:60' },
        { day: 'wednesday', isOpen: true },
        { day: 'funday', isOpen: true, openTime: '09:00', closeTime: '17:00' },
      ],
      exceptions: [
        { date: '2026-02-30', isOpen: false },
        { date: '2026-13-01', isOpen: false },
        { date: '26-12-25', isOpen: false },
        { date: '2028-02-29', isOpen: true, closeTime: '12:00' },
      ],
    } as unknown as OpeningHoursValue;
    assert.deepEqual(openingHoursProblems(bad), [
      'openingHours.weekly[0].closeTime must be a time HH:MM from 00:00 to 23:59',
      'openingHours.weekly[1].openTime must be a time HH:MM from 00:00 to 23:59',
      'openingHours.weekly[1].closeTime must be a time HH:MM from 00:00 to 23:59',
      'openingHours.weekly[2].openTime is required when isOpen is true',
      'openingHours.weekly[2].closeTime is required when isOpen is true',
      'openingHours.weekly[3].day must be one of monday, tuesday, wednesday, thursday, friday, saturday, sunday',
      'openingHours.exceptions[0].date must be a real date (YYYY-MM-DD)',
      'openingHours.exceptions[1].date must be a real date (YYYY-MM-DD)',
      'openingHours.exceptions[2].date must be a real date (YYYY-MM-DD)',
      'openingHours.exceptions[3].openTime is required when isOpen is true',
    ]);
    // Under another path, and an entry that is not an object.
    assert.deepEqual(openingHoursProblems({ weekly: [null], exceptions: [] } as unknown as OpeningHoursValue, 'settings.openingHours'), [
      'settings.openingHours.weekly[0] must be an object',
    ]);
    // The Hours of invalid entries open nothing for them (and do not throw).
    assert.equal(Hours.of(bad, 'UTC').isOpenAt(at('2026-03-02T12:00:00Z')), false);
  });

  it('allows at most 3 shifts a day or date, and an isOpen false entry alone on its day or date', () => {
    const four = ['08:00-09:00', '10:00-11:00', '12:00-13:00', '14:00-15:00'].map((s) => s.split('-'));
    assert.deepEqual(openingHoursProblems(hours(four.map(([a, b]) => open('friday', a, b)))), [
      'openingHours.weekly[3] is entry 4 of friday: at most 3 shifts per day',
    ]);
    assert.deepEqual(
      openingHoursProblems(
        hours(
          [],
          four.map(([a, b]) => on('2026-12-24', a, b)),
        ),
      ),
      ['openingHours.exceptions[3] is entry 4 of 2026-12-24: at most 3 shifts per date'],
    );
    assert.deepEqual(openingHoursProblems(hours([open('monday', '09:00', '12:00'), { day: 'monday', isOpen: false }])), [
      'openingHours.weekly[1] closes monday (isOpen false), which openingHours.weekly[0] also lists',
    ]);
    assert.deepEqual(openingHoursProblems(hours([], [closedOn('2026-12-25'), on('2026-12-25', '10:00', '12:00')])), [
      'openingHours.exceptions[0] closes 2026-12-25 (isOpen false), which openingHours.exceptions[1] also lists',
    ]);
  });

  it('allows at most 100 exceptions', () => {
    const many = Array.from({ length: 101 }, (_, i) => closedOn(new Date(at('2027-01-01T00:00:00Z') + i * DAY).toISOString().slice(0, 10)));
    assert.deepEqual(openingHoursProblems(hours([], many)), ['openingHours.exceptions has 101 entries, at most 100']);
  });
});

describe('opening hours: cost', () => {
  it('builds and asks 200 different category schedules quickly', () => {
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
    const hhmm = (m: number) => `${String(Math.floor(m / 60) % 24).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    const schedules = Array.from({ length: 200 }, (_, i) =>
      days
        .filter((_, d) => (i + d) % 4 !== 0)
        .map((day, d) => open(day, hhmm(360 + ((i * 37 + d * 60) % 720)), hhmm(360 + ((i * 53 + d * 90) % 1080)))),
    );
    const t = at('2026-03-27T12:00:00Z'); // two days before London's change
    const run = () => {
      let count = 0;
      for (const s of schedules) {
        const h = Hours.ofSchedule(s, 'Europe/London');
        if (h.isOpenAt(t)) count++;
        h.opensAt(t);
      }
      return count;
    };
    run(); // warm
    const started = performance.now();
    run();
    const took = performance.now() - started;
    assert.ok(took < 200, `200 schedules took ${took.toFixed(1)} ms`);
  });
});
