// Availability and ordering hours in words, shared by the server's first paint and the page's
// script: "Sold out until 18:30", "Ordering is paused until 19:30.", the days and
// times a guest can order for. Times are instants, shown in the venue's timezone (the guest's own
// when Intl does not know the zone), in the page's language.
import type { AvailabilityValue, OrderingView } from '../../availability/index.js';
import { fill, type UiStrings } from './strings.js';

/** A product's or an option's `availability` in the guest menu (the server's schema; a type only, for the script). */
export type ItemAvailability = AvailabilityValue;

/** The guest menu's `ordering`. */
export type OrderingInfo = OrderingView;

/** Open windows of the venue's hours, [start, end) in epoch milliseconds, sorted and apart. */
export type OpenWindow = [number, number];

const DAY_MS = 86_400_000;
/** Scheduled orders are offered on the quarter hours. */
export const SLOT_MS = 15 * 60_000;
/** Kept between now + prepTimeMinutes and the first slot: the guest takes a moment to send. */
const SLOT_MARGIN_MS = 60_000;

function zoneOf(timeZone: string | null | undefined): string | undefined {
  if (!timeZone) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return undefined;
  }
}

function dateFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale, options);
  } catch {
    // A locale tag Intl does not know still gets the time right.
    return new Intl.DateTimeFormat('en', options);
  }
}

/** The first letter upper case, by the language's rules ("aujourd’hui" -> "Aujourd’hui"). */
function capitalised(text: string, locale: string): string {
  try {
    return text.charAt(0).toLocaleUpperCase(locale) + text.slice(1);
  } catch {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }
}

/** Instants as the page says them, in one language and timezone. */
export class When {
  readonly timeZone: string | undefined;
  private readonly timeFormat: Intl.DateTimeFormat;
  private readonly weekdayTimeFormat: Intl.DateTimeFormat;
  private readonly dateTimeFormat: Intl.DateTimeFormat;
  private readonly dayFormat: Intl.DateTimeFormat;
  private readonly keyFormat: Intl.DateTimeFormat;
  private readonly relative: Intl.RelativeTimeFormat | null;

  constructor(
    readonly locale: string,
    timeZone: string | null | undefined,
  ) {
    const zone = zoneOf(timeZone);
    this.timeZone = zone;
    const time = { hour: 'numeric', minute: '2-digit', timeZone: zone } as const;
    this.timeFormat = dateFormat(locale, time);
    this.weekdayTimeFormat = dateFormat(locale, { ...time, weekday: 'long' });
    this.dateTimeFormat = dateFormat(locale, { ...time, day: 'numeric', month: 'short' });
    this.dayFormat = dateFormat(locale, { weekday: 'long', day: 'numeric', month: 'long', timeZone: zone });
    this.keyFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'numeric', day: 'numeric', timeZone: zone });
    let relative: Intl.RelativeTimeFormat | null = null;
    try {
      relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
    } catch {
      relative = null;
    }
    this.relative = relative;
  }

  /** The calendar day of `t` in the zone, as days since 1970-01-01. */
  day(t: number): number {
    const parts = this.keyFormat.formatToParts(t);
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(part('year'), part('month') - 1, part('day')) / DAY_MS;
  }

  /** "18:30" (or "6:30 PM", as the language writes it). */
  time(t: number): string {
    return this.timeFormat.format(t);
  }

  /** "today", "tomorrow" in the language; null for other days. */
  private near(offset: number): string | null {
    if (!this.relative || offset < 0 || offset > 1) return null;
    return this.relative.format(offset, 'day');
  }

  /**
   * `t` seen from `now`: "18:30" today ("today 18:30" with `withToday`), "tomorrow 18:30",
   * "Saturday 18:30" within the week, "12 Dec, 18:30" further away.
   */
  at(t: number, now: number, withToday = false): string {
    const offset = this.day(t) - this.day(now);
    const word = this.near(offset);
    if (offset === 0 && !withToday) return this.time(t);
    if (word) return `${word} ${this.time(t)}`;
    if (offset > 1 && offset < 7) return this.weekdayTimeFormat.format(t);
    return this.dateTimeFormat.format(t);
  }

  /** A day to pick, seen from `now`: "Today", "Tomorrow", "Saturday 29 November". */
  dayLabel(t: number, now: number): string {
    const word = this.near(this.day(t) - this.day(now));
    return capitalised(word ?? this.dayFormat.format(t), this.locale);
  }
}

/** The first instant (ms) of the next calendar day of the zone after `now`. */
export function nextDayStart(when: When, now: number): number {
  const today = when.day(now);
  let lo = now;
  // A day lasts at most 25 hours (a DST change): the next one has started by then.
  let hi = now + 26 * 3_600_000;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (when.day(mid) > today) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Why an item cannot be ordered, in words; null when it can. */
export function availabilityLabel(availability: ItemAvailability | undefined, when: When, now: number, t: UiStrings): string | null {
  if (!availability || availability.available) return null;
  const until = availability.until === null ? null : Date.parse(availability.until);
  const valid = until !== null && Number.isFinite(until);
  if (availability.reason === 'category_schedule') return valid ? fill(t.availableFrom, { when: when.at(until, now) }) : t.notAvailableNow;
  return valid ? fill(t.soldOutUntil, { when: when.at(until, now) }) : t.soldOut;
}

/** Why ordering is closed, in one sentence ("Ordering is paused until 19:30."); null while open. */
export function orderingMessage(ordering: OrderingInfo, when: When, now: number, t: UiStrings): string | null {
  if (ordering.open) return null;
  const opens = ordering.opensAt === null ? null : Date.parse(ordering.opensAt);
  const at = opens !== null && Number.isFinite(opens) ? when.at(opens, now) : null;
  switch (ordering.reason) {
    case 'paused':
      return at ? fill(t.pausedUntil, { when: at }) : t.pausedNow;
    case 'closed':
      return at ? fill(t.closedUntil, { when: at }) : t.closedHours;
    default:
      return t.closedHours;
  }
}

/**
 * The notice under the header: why this link takes no orders, or why ordering is closed for now
 * and what the guest can still do (browse, or order ahead when scheduled orders are on).
 */
export function orderingNotice(ordering: OrderingInfo, linkTakesOrders: boolean, when: When, now: number, t: UiStrings): string | null {
  if (ordering.reason === 'not_accepting') return t.closedNow;
  if (!linkTakesOrders) return t.closedLink;
  const message = orderingMessage(ordering, when, now, t);
  if (message === null) return null;
  return `${message} ${ordering.scheduledOrders.enabled ? t.orderAhead : t.browseMenu}`;
}

/**
 * The times a guest can order for: the quarter hours from now + prepTimeMinutes
 * (and a minute to send) up to maxDaysAhead days ahead, inside the open windows.
 */
export function slotTimes(
  windows: readonly OpenWindow[],
  now: number,
  ordering: Pick<OrderingInfo, 'prepTimeMinutes' | 'scheduledOrders'>,
): number[] {
  const first = Math.ceil((now + ordering.prepTimeMinutes * 60_000 + SLOT_MARGIN_MS) / SLOT_MS) * SLOT_MS;
  const last = now + ordering.scheduledOrders.maxDaysAhead * DAY_MS;
  const out: number[] = [];
  for (const [start, end] of windows) {
    for (let slot = Math.max(first, Math.ceil(start / SLOT_MS) * SLOT_MS); slot < end && slot <= last; slot += SLOT_MS) out.push(slot);
  }
  return out;
}

/** Slots by the calendar day of the zone, in order. */
export function slotsByDay(slots: readonly number[], when: When): { day: number; slots: number[] }[] {
  const days: { day: number; slots: number[] }[] = [];
  for (const slot of slots) {
    const day = when.day(slot);
    const last = days[days.length - 1];
    if (last && last.day === day) last.slots.push(slot);
    else days.push({ day, slots: [slot] });
  }
  return days;
}
