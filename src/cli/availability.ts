import { unwrap, type OpeningHours, type Settings } from '@carta/client';
import { sharedHours } from '../shared/opening-hours.js';
import { orderingAt } from '../modules/availability/ordering.js';
import { client, defaultTerminal, type Terminal } from './integrator.js';
import { printJson as json, table } from './table.js';
import { wallClock } from '../shared/schedule.js';
import { dateOf, formatLocal, parseDuration, parseUntil, UNTIL_FORMS } from './venue-time.js';

// The service-day commands, over HTTP with CARTA_URL and CARTA_API_KEY like the other
// integrator commands: `carta availability list|off|on` (sold out, live, no publish), `carta hours`
// (the opening hours and whether guests can order now) and `carta pause` (orderConfig.pausedUntil).
// Times given or shown are the venue's wall clock (settings.timezone).

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

async function settings(): Promise<Settings> {
  return unwrap(client().api.GET('/v1/settings'));
}

/** `carta availability list`: what is sold out now, with when each comes back in the venue's time. */
export async function listSoldOut(options: { json?: boolean }, term: Terminal = defaultTerminal()): Promise<number> {
  const carta = client();
  const [list, { timezone }] = await Promise.all([carta.listAvailability(), settings()]);
  if (options.json) {
    json(term, list);
    return 0;
  }
  const now = Date.now();
  const rows = (['products', 'ingredients'] as const).flatMap((section) =>
    list[section].map((item) => [
      section === 'products' ? 'product' : 'ingredient',
      item.ref,
      item.name,
      item.until === null ? 'until marked available' : formatLocal(Date.parse(item.until), timezone, now),
    ]),
  );
  if (rows.length === 0) {
    term.out.write('nothing is sold out\n');
    return 0;
  }
  term.out.write(`sold out now (times in ${timezone})\n${table([['KIND', 'REF', 'NAME', 'UNTIL'], ...rows])}\n`);
  return 0;
}

/**
 * `carta availability off|on <ref...>`: one PUT /v1/availability for every ref (all or nothing:
 * an unknown ref fails the command and nothing is written).
 */
export async function setAvailable(
  refs: string[],
  options: { available: boolean; ingredient?: boolean; until?: string; json?: boolean },
  term: Terminal = defaultTerminal(),
): Promise<number> {
  const carta = client();
  let until: number | null = null;
  let timezone: string | null = null;
  if (options.until !== undefined) {
    timezone = (await settings()).timezone;
    const now = Date.now();
    until = parseUntil(options.until, timezone, now);
    if (until <= now) throw new Error(`--until ${options.until} (${new Date(until).toISOString()}) has passed; give a time ahead`);
  }
  const section = options.ingredient ? 'ingredients' : 'products';
  const entries = [...new Set(refs)].map((ref) => ({
    ref,
    available: options.available,
    ...(until === null ? {} : { until: new Date(until).toISOString() }),
  }));
  const result = await carta.setAvailability({ [section]: entries });
  if (options.json) {
    json(term, { ...result, until: until === null ? null : new Date(until).toISOString() });
    return 0;
  }
  const state = options.available
    ? 'available again'
    : until === null || timezone === null
      ? 'sold out until marked available'
      : `sold out until ${formatLocal(until, timezone, Date.now())} ${timezone} (${new Date(until).toISOString()})`;
  const changed = result[section].updated;
  term.out.write(`${section} ${entries.map((e) => e.ref).join(', ')}: ${state} (${changed} changed)\n`);
  return 0;
}

type Shift = OpeningHours['weekly'][number] | OpeningHours['exceptions'][number];

/** A day's or date's entries: `closed`, or its shifts by opening time. */
function shiftsText(entries: Shift[], nextDay: string): string {
  const open = entries.filter((e) => e.isOpen && e.openTime !== undefined && e.closeTime !== undefined);
  if (open.length === 0) return 'closed';
  return open
    .sort((a, b) => (a.openTime! < b.openTime! ? -1 : 1))
    .map((e) => {
      const span = `${e.openTime}-${e.closeTime}`;
      if (e.openTime === e.closeTime) return `${span} (24 h)`;
      return e.closeTime! < e.openTime! ? `${span} (into ${nextDay})` : span;
    })
    .join(', ');
}

function hoursText(s: Settings, now: number): string {
  const lines = [`opening hours (${s.timezone})`];
  const hours = s.openingHours;
  if (hours === null) {
    lines.push('  always open (no opening hours set)');
  } else {
    DAYS.forEach((day, i) => {
      lines.push(
        `  ${day.padEnd(10)} ${shiftsText(
          hours.weekly.filter((e) => e.day === day),
          i === 6 ? 'monday' : DAYS[i + 1],
        )}`,
      );
    });
    const todayDate = dateOf(wallClock(now, s.timezone));
    const dates = [...new Set(hours.exceptions.map((e) => e.date))].sort();
    const ahead = dates.filter((d) => d >= todayDate);
    if (ahead.length > 0) {
      lines.push('exceptions');
      for (const date of ahead)
        lines.push(
          `  ${date} ${shiftsText(
            hours.exceptions.filter((e) => e.date === date),
            'the next day',
          )}`,
        );
    }
    if (ahead.length < dates.length)
      lines.push(`  (${dates.length - ahead.length} past exception date${dates.length - ahead.length === 1 ? '' : 's'} not shown)`);
  }
  const config = s.orderConfig;
  const { view } = orderingAt(config, sharedHours(hours, s.timezone), now);
  const at = (iso: string | null) => (iso === null ? null : formatLocal(Date.parse(iso), s.timezone, now));
  let ordering: string;
  if (view.open) ordering = `open now${view.closesAt ? `, until ${at(view.closesAt)}` : ''}`;
  else if (view.reason === 'not_accepting') ordering = 'closed: not accepting orders (orderConfig.acceptingOrders is false)';
  else if (view.reason === 'paused')
    ordering = `paused until ${at(config.pausedUntil)}${view.opensAt ? `, opens ${at(view.opensAt)}` : ''}`;
  else ordering = `closed now${view.opensAt ? `, opens ${at(view.opensAt)}` : ''}`;
  lines.push(`ordering   ${ordering}`);
  if (view.reason !== 'paused' && config.pausedUntil !== null && Date.parse(config.pausedUntil) > now) {
    lines.push(`paused     until ${at(config.pausedUntil)}`);
  }
  const scheduled = config.scheduledOrders.enabled ? `up to ${config.scheduledOrders.maxDaysAhead} days ahead` : 'off';
  lines.push(`prep time  ${config.prepTimeMinutes} min; scheduled orders ${scheduled}`);
  return lines.join('\n');
}

/** `carta hours`: the week's opening hours, the exceptions ahead, and whether guests can order now. */
export async function showHours(options: { json?: boolean }, term: Terminal = defaultTerminal()): Promise<number> {
  const s = await settings();
  if (options.json) {
    json(term, { timezone: s.timezone, openingHours: s.openingHours, orderConfig: s.orderConfig });
    return 0;
  }
  term.out.write(`${hoursText(s, Date.now())}\n`);
  return 0;
}

/** `carta pause 30m|18:30|off`: orderConfig.pausedUntil set (at most 24 hours ahead) or cleared. */
export async function pauseOrdering(arg: string, options: { json?: boolean }, term: Terminal = defaultTerminal()): Promise<number> {
  const carta = client();
  let pausedUntil: string | null = null;
  if (arg.trim().toLowerCase() !== 'off') {
    const duration = parseDuration(arg);
    // An end time is read in the venue's timezone; a duration needs none.
    const timezone = duration === null ? (await settings()).timezone : 'UTC';
    const now = Date.now();
    let until: number;
    try {
      until = duration === null ? parseUntil(arg, timezone, now) : now + duration;
    } catch {
      throw new Error(`"${arg}" is not a pause: use off, minutes (30, 45m, 2h, 1h30m) or an end time: ${UNTIL_FORMS}`);
    }
    if (until <= now) throw new Error(`${arg} (${new Date(until).toISOString()}) has passed; give a time ahead`);
    pausedUntil = new Date(until).toISOString();
  }
  const updated = await unwrap(carta.api.PATCH('/v1/settings', { body: { orderConfig: { pausedUntil } } }));
  if (options.json) {
    json(term, { pausedUntil: updated.orderConfig.pausedUntil, timezone: updated.timezone });
    return 0;
  }
  const until = updated.orderConfig.pausedUntil;
  term.out.write(
    until === null
      ? 'ordering is not paused\n'
      : `ordering paused until ${formatLocal(Date.parse(until), updated.timezone, Date.now())} ${updated.timezone} (${until})\n`,
  );
  return 0;
}
