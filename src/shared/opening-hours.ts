// Opening hours and category schedules, read against an instant.
//
// Hours are `null` (always open) or `{ weekly, exceptions }` in the venue's timezone. Several
// entries of one day or date are split shifts (at most 3); a day missing from `weekly` is closed;
// `openTime` equal to `closeTime` is 24 hours from `openTime`; `closeTime` before `openTime` runs
// past midnight, into the next date, even when that date has an exception closing it. An exception
// replaces the weekly hours of its date. A category schedule has the weekly shape only: [] is
// always open, and a non-empty schedule closes the days it does not list.
//
// Times are wall-clock times: a 09:00-17:00 shift is 8 hours of wall time, so a 00:00-00:00 day is
// 23 or 25 real hours on a DST day. Wall times become instants through `zonedToInstant` (a time a
// jump forward skips is the moment after the gap, a repeated one its first occurrence).
//
// Everything here is pure: each question takes the instant `t` (ms), no clock is read.

import { DAYS, zonedToInstant } from './schedule.js';
import { remember } from '../lru.js';
import { DAY_MS } from '../limits.js';

export type Day = (typeof DAYS)[number];

export interface HoursEntry {
  isOpen: boolean;
  openTime?: string;
  closeTime?: string;
}
export interface WeeklyHours extends HoursEntry {
  day: Day;
}
export interface DatedHours extends HoursEntry {
  date: string;
}
export interface OpeningHoursValue {
  weekly: WeeklyHours[];
  exceptions: DatedHours[];
}

const MINUTE = 60_000;
const DAY_MINUTES = 1440;
const WEEK_MINUTES = 7 * DAY_MINUTES;
/** How far ahead the questions look by default (opensAt/closesAt within 14 days). */
export const HOURS_HORIZON_MS = 14 * DAY_MS;
/** Shifts of one day or date. */
export const MAX_SHIFTS = 3;
/** Entries of `exceptions`. */
export const MAX_EXCEPTIONS = 100;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const YMD = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_INDEX = new Map<string, number>(DAYS.map((d, i) => [d, i]));

/** Minutes after midnight of an `HH:MM` time (00:00-23:59), or null when it is not one. */
function minutesOf(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const m = HHMM.exec(v);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date, or null when it is not a real date. */
function dayNumberOf(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const m = YMD.exec(v);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it reads years 0-99 as 1900-1999
  return Math.round(date.getTime() / DAY_MS);
}

/** Monday 0 ... Sunday 6 of a day number (1970-01-01 was a Thursday). */
function weekdayOf(dayNumber: number): number {
  return (((dayNumber + 3) % 7) + 7) % 7;
}

/** A shift of a day: from `open` minutes after its midnight, for `length` minutes of wall time (1..1440). */
interface Shift {
  open: number;
  length: number;
}

/** The shift of an open entry with good times, else null (closed, or not valid: it opens nothing). */
function shiftOf(entry: HoursEntry): Shift | null {
  if (entry.isOpen !== true) return null;
  const open = minutesOf(entry.openTime);
  const close = minutesOf(entry.closeTime);
  if (open === null || close === null) return null;
  return { open, length: close > open ? close - open : close - open + DAY_MINUTES };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every problem of an openingHours value, each message starting with the path of the entry it is
 * about (`openingHours.weekly[3] overlaps openingHours.weekly[1]`). Empty: valid (null is: always open).
 *
 * Checked: the shape of each entry (a known day, a real date, HH:MM times from 00:00 to 23:59,
 * openTime and closeTime when isOpen is true), at most 3 entries per day or date (a date given
 * twice is two shifts of it), an isOpen false entry alone on its day or date, at most 100
 * exceptions, and no overlap: weekly shifts on the week as a cycle (Sunday 22:00-02:00 meets
 * Monday's), exceptions on the calendar (a shift past midnight meets the next date's). Where the
 * weekly hours of a day run past midnight into an exception date, the two are merged, not refused.
 */
export function openingHoursProblems(hours: OpeningHoursValue | null, path = 'openingHours'): string[] {
  if (hours === null) return []; // always open
  if (!isObject(hours)) return [`${path} must be null or an object of weekly and exceptions`];
  const problems: string[] = [];
  const listOf = (key: 'weekly' | 'exceptions'): unknown[] => {
    const v = hours[key];
    if (v === undefined) return [];
    if (Array.isArray(v)) return v;
    problems.push(`${path}.${key} must be an array`);
    return [];
  };
  const weekly = listOf('weekly');
  const exceptions = listOf('exceptions');
  if (exceptions.length > MAX_EXCEPTIONS) problems.push(`${path}.exceptions has ${exceptions.length} entries, at most ${MAX_EXCEPTIONS}`);

  checkSection(weekly, `${path}.weekly`, 'day', problems, (v) => {
    const i = typeof v === 'string' ? DAY_INDEX.get(v) : undefined;
    return i === undefined ? null : { key: i, label: v as string, start: i * DAY_MINUTES };
  });
  checkSection(
    exceptions,
    `${path}.exceptions`,
    'date',
    problems,
    (v) => {
      const n = dayNumberOf(v);
      return n === null ? null : { key: n, label: v as string, start: n * DAY_MINUTES };
    },
    exceptions.length <= MAX_EXCEPTIONS,
  );
  return problems;
}

interface Keyed {
  /** The day or date, as a number. */
  key: number;
  label: string;
  /** Minutes of its midnight on the section's line: the week, or the calendar. */
  start: number;
}

function checkSection(
  entries: unknown[],
  path: string,
  keyField: 'day' | 'date',
  problems: string[],
  keyOf: (v: unknown) => Keyed | null,
  checkOverlaps = true,
): void {
  const groups = new Map<number, { index: number; isOpen: boolean; label: string }[]>();
  const spans: { index: number; from: number; to: number }[] = [];
  entries.forEach((entry, index) => {
    const p = `${path}[${index}]`;
    if (!isObject(entry)) {
      problems.push(`${p} must be an object`);
      return;
    }
    const keyed = keyOf(entry[keyField]);
    if (keyed === null) {
      problems.push(keyField === 'day' ? `${p}.day must be one of ${DAYS.join(', ')}` : `${p}.date must be a real date (YYYY-MM-DD)`);
    }
    if (typeof entry.isOpen !== 'boolean') problems.push(`${p}.isOpen must be true or false`);
    let timesOk = true;
    for (const field of ['openTime', 'closeTime'] as const) {
      const v = entry[field];
      if (v === undefined) {
        if (entry.isOpen === true) {
          problems.push(`${p}.${field} is required when isOpen is true`);
          timesOk = false;
        }
      } else if (minutesOf(v) === null) {
        problems.push(`${p}.${field} must be a time HH:MM from 00:00 to 23:59`);
        timesOk = false;
      }
    }
    if (keyed === null) return;
    let group = groups.get(keyed.key);
    if (!group) groups.set(keyed.key, (group = []));
    group.push({ index, isOpen: entry.isOpen !== false, label: keyed.label });
    if (group.length > MAX_SHIFTS) {
      problems.push(`${p} is entry ${group.length} of ${keyed.label}: at most ${MAX_SHIFTS} shifts per ${keyField}`);
      return;
    }
    const shift = timesOk ? shiftOf(entry as unknown as HoursEntry) : null;
    if (shift) spans.push({ index, from: keyed.start + shift.open, to: keyed.start + shift.open + shift.length });
  });

  for (const group of groups.values()) {
    if (group.length < 2) continue;
    for (const closed of group.filter((g) => !g.isOpen)) {
      const other = group.find((g) => g !== closed)!;
      problems.push(`${path}[${closed.index}] closes ${closed.label} (isOpen false), which ${path}[${other.index}] also lists`);
    }
  }

  if (!checkOverlaps) return;
  // At most 3 spans a day or date, and 100 exceptions: pairs are few.
  const cyclic = keyField === 'day';
  for (let j = 0; j < spans.length; j++) {
    for (let i = 0; i < j; i++) {
      const a = spans[i];
      const b = spans[j];
      const overlap = cyclic
        ? mod(b.from - a.from, WEEK_MINUTES) < a.to - a.from || mod(a.from - b.from, WEEK_MINUTES) < b.to - b.from
        : a.from < b.to && b.from < a.to;
      if (overlap) problems.push(`${path}[${b.index}] overlaps ${path}[${a.index}]`);
    }
  }
}

const mod = (n: number, m: number): number => ((n % m) + m) % m;

// ---- wall clock to instants, per zone ----------------------------------------------------------

/** Per zone: the instants of wall-clock times (ms read as UTC) already converted, local midnights mostly. */
const zoneMemos = new Map<string, Map<number, number>>();
const ZONE_MEMO_MAX = 20_000;

function converter(timeZone: string): (wall: number) => number {
  const memo = zoneMemos.get(timeZone) ?? new Map<number, number>();
  zoneMemos.set(timeZone, memo);
  const exact = (wall: number): number => {
    let t = memo.get(wall);
    if (t === undefined) {
      if (memo.size >= ZONE_MEMO_MAX) memo.clear();
      t = zonedToInstant(wall, timeZone);
      memo.set(wall, t);
    }
    return t;
  };
  return (wall) => {
    const midnight = Math.floor(wall / DAY_MS) * DAY_MS;
    const start = exact(midnight);
    // A date that is 24 hours long keeps one offset all day (a change at its very end included):
    // read its times from its midnight. On a date the clocks change, ask the zone for each time.
    if (exact(midnight + DAY_MS) - start === DAY_MS) return start + (wall - midnight);
    return exact(wall);
  };
}

// ---- a week of hours, at an instant --------------------------------------------------------------

/** Local offsets stay within this of UTC (they are within -12 h..+14 h today). */
const MAX_OFFSET = 16 * 3_600_000;

/** A week of hours in a timezone, answering questions at an instant. Built cheaply; intervals are computed when asked. */
export class Hours {
  /** Hours that are null, or a category schedule []. */
  readonly alwaysOpen: boolean;
  private readonly weekly: Shift[][];
  private readonly exceptions: Map<number, Shift[]>;
  private readonly neverOpen: boolean;
  private readonly toInstant: (wall: number) => number;
  /** Merged open intervals [starts[i], ends[i]), sorted, exact for instants in [lo, hi). */
  private starts: number[] = [];
  private ends: number[] = [];
  private lo = Infinity;
  private hi = -Infinity;

  private constructor(timeZone: string, weekly: readonly unknown[] | null, exceptions: readonly unknown[]) {
    this.alwaysOpen = weekly === null;
    this.weekly = DAYS.map(() => []);
    this.exceptions = new Map();
    let shifts = 0;
    for (const entry of weekly ?? []) {
      if (!isObject(entry)) continue;
      const day = typeof entry.day === 'string' ? DAY_INDEX.get(entry.day) : undefined;
      const shift = shiftOf(entry as unknown as HoursEntry);
      if (day !== undefined && shift) {
        this.weekly[day].push(shift);
        shifts++;
      }
    }
    for (const entry of exceptions) {
      if (!isObject(entry)) continue;
      const date = dayNumberOf(entry.date);
      if (date === null) continue;
      // Any entry of a date, open or not, replaces the weekly hours of it.
      let list = this.exceptions.get(date);
      if (!list) this.exceptions.set(date, (list = []));
      const shift = shiftOf(entry as unknown as HoursEntry);
      if (shift) {
        list.push(shift);
        shifts++;
      }
    }
    this.neverOpen = !this.alwaysOpen && shifts === 0;
    this.toInstant = this.alwaysOpen || this.neverOpen ? (wall) => wall : converter(timeZone);
  }

  /** Opening hours of a venue: `null` is always open. */
  static of(hours: OpeningHoursValue | null, timeZone: string): Hours {
    if (hours === null) return new Hours(timeZone, null, []);
    return new Hours(timeZone, hours.weekly ?? [], hours.exceptions ?? []);
  }

  /** A category schedule: [] is always open; otherwise the days it does not list are closed. */
  static ofSchedule(schedule: readonly WeeklyHours[], timeZone: string): Hours {
    return new Hours(timeZone, schedule.length === 0 ? null : schedule, []);
  }

  isOpenAt(t: number): boolean {
    if (this.alwaysOpen) return true;
    if (this.neverOpen) return false;
    this.cover(t, 0);
    const i = this.indexAt(t);
    return i >= 0 && t < this.ends[i];
  }

  /**
   * The end of the open window containing t (intervals merged where they touch or overlap), or
   * null when it does not end within `horizonMs` after t, and null when closed at t.
   */
  closesAfter(t: number, horizonMs = HOURS_HORIZON_MS): number | null {
    if (this.alwaysOpen || this.neverOpen) return null;
    this.cover(t, horizonMs);
    const i = this.indexAt(t);
    if (i < 0 || t >= this.ends[i]) return null;
    return this.ends[i] <= t + horizonMs ? this.ends[i] : null;
  }

  /** The first instant >= t at which it is open (t itself when open now), or null when none within `horizonMs`. */
  opensAt(t: number, horizonMs = HOURS_HORIZON_MS): number | null {
    if (this.alwaysOpen) return t;
    if (this.neverOpen) return null;
    this.cover(t, horizonMs);
    const i = this.indexAt(t);
    if (i >= 0 && t < this.ends[i]) return t;
    const next = this.starts[i + 1];
    return next !== undefined && next <= t + horizonMs ? next : null;
  }

  /** The next instant > t at which `isOpenAt` changes, or null when none within `horizonMs` (for cache expiry). */
  nextChange(t: number, horizonMs = HOURS_HORIZON_MS): number | null {
    if (this.alwaysOpen || this.neverOpen) return null;
    this.cover(t, horizonMs);
    const i = this.indexAt(t);
    const change = i >= 0 && t < this.ends[i] ? this.ends[i] : this.starts[i + 1];
    return change !== undefined && change <= t + horizonMs ? change : null;
  }

  /** The index of the last interval starting at or before t, -1 when none. */
  private indexAt(t: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid] <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /**
   * Makes the intervals exact from t to t + horizonMs, reusing those computed when they cover it.
   * A negative horizon covers t alone (the answers looking ahead are then null).
   */
  private cover(t: number, horizonMs: number): void {
    if (!Number.isFinite(horizonMs)) throw new RangeError(`horizonMs must be a finite number, not ${horizonMs}`);
    horizonMs = Math.max(horizonMs, 0);
    if (t >= this.lo && t + horizonMs < this.hi) return;
    if (!Number.isFinite(t)) {
      this.starts = [];
      this.ends = [];
      this.lo = Infinity;
      this.hi = -Infinity;
      return;
    }
    // A little behind t and a day past the default horizon, so the next questions reuse them.
    const from = Math.floor((t - DAY_MS) / DAY_MS) - 2;
    const to = Math.floor((t + Math.max(horizonMs, HOURS_HORIZON_MS) + DAY_MS) / DAY_MS) + 1;
    const raw: [number, number][] = [];
    for (let d = from; d <= to; d++) {
      const midnight = d * DAY_MS;
      for (const s of this.exceptions.get(d) ?? this.weekly[weekdayOf(d)]) {
        const start = this.toInstant(midnight + s.open * MINUTE);
        const end = this.toInstant(midnight + (s.open + s.length) * MINUTE);
        // A shift inside a skipped hour can come out empty (or reversed): it opens nothing.
        if (end > start) raw.push([start, end]);
      }
    }
    raw.sort((a, b) => a[0] - b[0]);
    const starts: number[] = [];
    const ends: number[] = [];
    for (const [start, end] of raw) {
      const last = ends.length - 1;
      if (last >= 0 && start <= ends[last]) ends[last] = Math.max(ends[last], end);
      else {
        starts.push(start);
        ends.push(end);
      }
    }
    this.starts = starts;
    this.ends = ends;
    // A shift of date d starts at or after its local midnight and ends before the midnight two
    // dates on: those of dates before `from` end before lo, those after `to` start at or after hi.
    this.lo = (from + 1) * DAY_MS + MAX_OFFSET;
    this.hi = (to + 1) * DAY_MS - MAX_OFFSET;
  }
}

const shared = new Map<string, Hours>();

/**
 * Hours shared by every venue and category with the same hours (or schedule) and zone, so the
 * intervals each computes are computed once. A schedule is an array of weekly entries; hours are
 * null or `{ weekly, exceptions }`.
 */
export function sharedHours(hours: OpeningHoursValue | readonly WeeklyHours[] | null, timeZone: string): Hours {
  const key = `${timeZone}|${JSON.stringify(hours)}`;
  let h = shared.get(key);
  if (!h) {
    h = Array.isArray(hours) ? Hours.ofSchedule(hours, timeZone) : Hours.of(hours as OpeningHoursValue | null, timeZone);
    remember(shared, key, h, 5000);
  }
  return h;
}
