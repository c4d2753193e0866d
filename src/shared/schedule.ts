// Banner and promotion schedules, read in the venue's settings.timezone.
//
// `startsAt` / `endsAt` take an ISO 8601 date and time. Without an offset it is a wall-clock time in
// the venue's timezone ("starts at 18:00" means 18:00 where the venue is, whatever the season);
// with `Z` or an offset it is that instant. A wall-clock time that a DST change skips is taken as
// the same moment after the jump (01:30 on a night that jumps from 01:00 to 02:00 is 02:30), and one
// that happens twice, as its first occurrence (the rule of Temporal's 'compatible' disambiguation).
import { DAY_MS } from '../limits.js';

/** The days of a week, Monday first (opening hours, category schedules). */
export const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-](?:0\d|1[0-4]):[0-5]\d)?$/;

/**
 * The stored form of a schedule time, or null when it is not one: `YYYY-MM-DDTHH:MM:SS` for a
 * wall-clock time, `YYYY-MM-DDTHH:MM:SS.sssZ` for an instant.
 */
export function normaliseScheduleTime(raw: string): string | null {
  const m = TIME.exec(raw);
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '00', ms = '0', zone] = m;
  const wall = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, +ms.padEnd(3, '0'));
  const back = new Date(wall);
  // Date.UTC rolls 2026-02-30 over to March: a date that does not round-trip does not exist.
  if (back.getUTCFullYear() !== +y || back.getUTCMonth() !== +mo - 1 || back.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59)
    return null;
  if (zone === undefined) return `${y}-${mo}-${d}T${h}:${mi}:${s}`;
  const offsetMin = zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (+zone.slice(1, 3) * 60 + +zone.slice(4, 6));
  return new Date(wall - offsetMin * 60_000).toISOString();
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock in `timeZone` at instant `t` (month 1-12). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function wallClock(t: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(t))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
}

/** The zone's offset from UTC at instant `t` (ms): local wall clock minus UTC. */
function offsetAt(t: number, timeZone: string): number {
  const w = wallClock(t, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(t / 1000) * 1000;
}

/** The instant of a wall-clock time (as ms since the epoch, read as UTC) in `timeZone`. */
export function zonedToInstant(wall: number, timeZone: string): number {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const candidates = [...new Set([before, after])].map((o) => wall - o).filter((t) => offsetAt(t, timeZone) === wall - t);
  if (candidates.length > 0) return Math.min(...candidates);
  // Skipped by a jump forward: read with the offset in force before it, which lands after the gap.
  return wall - before;
}

/** A stored schedule time as an instant, in the venue's timezone when it is a wall-clock time. */
export function scheduleInstant(stored: string, timeZone: string): number {
  if (stored.endsWith('Z')) return Date.parse(stored);
  return zonedToInstant(Date.parse(`${stored}Z`), timeZone);
}

export interface Scheduled {
  isActive: boolean;
  startsAt: string | null;
  endsAt: string | null;
}

/** The instants a schedule runs between (null: open-ended), for checking against a clock. */
export interface Window {
  from: number | null;
  until: number | null;
}

export function windowOf(s: Scheduled, timeZone: string): Window | null {
  if (!s.isActive) return null;
  return {
    from: s.startsAt === null ? null : scheduleInstant(s.startsAt, timeZone),
    until: s.endsAt === null ? null : scheduleInstant(s.endsAt, timeZone),
  };
}

/** Guests see it: active, started (inclusive) and not yet ended (exclusive). */
export function isLive(window: Window | null, now: number): boolean {
  return window !== null && (window.from === null || window.from <= now) && (window.until === null || now < window.until);
}
