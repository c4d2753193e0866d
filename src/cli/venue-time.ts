// Times on the command line, read and shown in the venue's timezone (settings.timezone): what
// `carta availability off --until` and `carta pause` take, and how `carta availability list` and
// `carta hours` print instants. Pure: every function takes `now` (ms), no clock is read here.
//
// Wall-clock times become instants through zonedToInstant (src/modules/merch/schedule.ts), the rule
// the server reads schedules and opening hours by: a time a DST jump forward skips is the moment
// after the gap, a time that happens twice its first occurrence.

import { normaliseScheduleTime, scheduleInstant, wallClock, zonedToInstant, type WallClock } from '../shared/schedule.js';

const MINUTE = 60_000;
const HHMM = /^([01]?\d|2[0-3]):([0-5]\d)$/;
const DURATION = /^(?:(\d+)h)?(?:(\d+)m?)?$/;

/** What `--until` takes, for help texts and errors. */
export const UNTIL_FORMS =
  'HH:MM (the next one: today, or tomorrow once passed), "tomorrow HH:MM", YYYY-MM-DDTHH:MM (both in the venue timezone), or an ISO 8601 time with Z or an offset';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** A wall clock's short weekday name (its date's, whatever the zone). */
const weekdayOf = (w: WallClock) => WEEKDAYS[new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay()];

const pad = (n: number) => String(n).padStart(2, '0');
export const dateOf = (w: WallClock) => `${w.year}-${pad(w.month)}-${pad(w.day)}`;
const timeOf = (w: WallClock) => `${pad(w.hour)}:${pad(w.minute)}`;

/** The instant of `hh:mm` on the local date `days` after the one of `now`, in `timeZone`. */
function atLocalTime(now: number, timeZone: string, days: number, hh: number, mm: number): number {
  const today = wallClock(now, timeZone);
  return zonedToInstant(Date.UTC(today.year, today.month - 1, today.day + days, hh, mm), timeZone);
}

/**
 * The instant a `--until` value names, in ms (see UNTIL_FORMS). `HH:MM` is today at that time in
 * the venue's timezone, or tomorrow when that time has passed today. Throws an Error naming the
 * value when it is none of the forms.
 */
export function parseUntil(text: string, timeZone: string, now: number): number {
  const value = text.trim();
  const time = HHMM.exec(value);
  if (time) {
    const today = atLocalTime(now, timeZone, 0, +time[1], +time[2]);
    return today > now ? today : atLocalTime(now, timeZone, 1, +time[1], +time[2]);
  }
  const tomorrow = /^tomorrow\s+(.+)$/i.exec(value);
  if (tomorrow) {
    const t = HHMM.exec(tomorrow[1]);
    if (t) return atLocalTime(now, timeZone, 1, +t[1], +t[2]);
  }
  // `2026-11-28 10:00` reads as `2026-11-28T10:00`.
  const stored = normaliseScheduleTime(value.replace(/^(\d{4}-\d{2}-\d{2})\s+(?=\d)/, '$1T'));
  if (stored !== null) return scheduleInstant(stored, timeZone);
  throw new Error(`"${text}" is not a time: use ${UNTIL_FORMS}`);
}

/** A duration in ms: `30` (minutes), `45m`, `2h`, `1h30m`; null when `text` is not one, or is zero. */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text.trim());
  if (!m || (m[1] === undefined && m[2] === undefined)) return null;
  const ms = (Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * MINUTE;
  return ms > 0 ? ms : null;
}

/** An instant as the venue's wall clock, for people: `today 18:30`, `tomorrow 10:00`, else `Sat 2026-11-28 10:00`. */
export function formatLocal(t: number, timeZone: string, now: number): string {
  const w = wallClock(t, timeZone);
  const today = wallClock(now, timeZone);
  const dayNumber = (p: WallClock) => Date.UTC(p.year, p.month - 1, p.day) / 86_400_000;
  const days = dayNumber(w) - dayNumber(today);
  if (days === 0) return `today ${timeOf(w)}`;
  if (days === 1) return `tomorrow ${timeOf(w)}`;
  return `${weekdayOf(w)} ${dateOf(w)} ${timeOf(w)}`;
}
