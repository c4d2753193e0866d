// The guest menu with live availability: a venue with 50 sold-out marks and
// opening hours that have it closed now (so its `ordering` state is computed from its hours), against
// an otherwise identical venue with neither, both on the same server in interleaved rounds, the 200
// (full body) and the 304 (If-None-Match, each venue with its own ETag). Held to >= 0.9 of the plain read.
// `npm run bench -- --availability` runs only these figures on a fresh server.
import {
  ADMIN_TOKEN,
  api,
  benchAlone,
  informational,
  interleaved,
  LOCALES,
  log,
  measured,
  newVenue,
  ratioMetric,
  round,
} from './harness.js';
import { ingredientExternalId, menuFixture, productExternalId } from './workload.js';

/** Sold-out marks: 40 products and 10 ingredients, half of each until a week from now, half indefinitely. */
const MARKED_PRODUCTS = 40;
const MARKED_INGREDIENTS = 10;
const TIME_ZONE = 'Europe/Madrid';
const WEEK_MS = 7 * 86_400_000;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** The hour of the day now in `timeZone` (0..23). */
function hourIn(timeZone: string): number {
  const hour = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(new Date());
  return Number(hour);
}

/**
 * Every day open for half an hour starting two hours from now (wall time in TIME_ZONE): closed now and
 * for at least 90 minutes, longer than the bench, so the `ordering` state holds (and the cache version
 * with it) through every load.
 */
function closedNowHours() {
  const open = `${String((hourIn(TIME_ZONE) + 2) % 24).padStart(2, '0')}:00`;
  const close = open.replace(':00', ':30');
  return { weekly: DAYS.map((day) => ({ day, isOpen: true, openTime: open, closeTime: close })), exceptions: [] };
}

async function fixtureVenue(url: string, fixtureJson: string): Promise<{ id: string; key: string; slug: string }> {
  const venue = await newVenue(url);
  await api(url, 'PATCH', '/v1/settings', venue.key, { timezone: TIME_ZONE });
  await api(url, 'POST', '/v1/sync', venue.key, fixtureJson);
  await api(url, 'POST', '/v1/publish', venue.key);
  const slug: string = (await api(url, 'GET', `/admin/v1/venues/${venue.id}`, ADMIN_TOKEN)).body.slug;
  return { ...venue, slug };
}

interface GuestMenuShape {
  products: { availability: { available: boolean; reason: string | null } }[];
  ordering: { open: boolean; reason: string | null };
}

/** The guest menu's bytes and ETag, and what it says of sold-out products and ordering. */
async function guestMenu(url: string) {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const body = JSON.parse(bytes.toString('utf8')) as GuestMenuShape;
  const soldOut = body.products.filter(
    (p) => p.availability.reason === 'sold_out' || p.availability.reason === 'ingredient_sold_out',
  ).length;
  const again = await fetch(url, { headers: { 'if-none-match': res.headers.get('etag') ?? '' } });
  await again.arrayBuffer();
  return {
    status: res.status,
    bytes: bytes.length,
    etag: res.headers.get('etag') ?? '',
    soldOut,
    ordering: body.ordering,
    notModified: again.status === 304,
  };
}

/** A venue with the fixture (seed 1, LOCALES) synced and published: the main run's own, passed in. */
export interface FixtureVenue {
  key: string;
  slug: string;
}

/**
 * The two venues on a running server, their guest menu URLs and ETags, and whether they are as set
 * up. `plainVenue`, when given, is the plain side (its timezone set like the other's): the main run
 * passes its fixture venue, so the pair adds one venue's menus to the memory its RSS target counts.
 */
export async function availabilityVenues(url: string, plainVenue?: FixtureVenue) {
  const fixtureJson = JSON.stringify(menuFixture({ seed: 1, locales: LOCALES }));
  const plain = plainVenue ?? (await fixtureVenue(url, fixtureJson));
  if (plainVenue) await api(url, 'PATCH', '/v1/settings', plainVenue.key, { timezone: TIME_ZONE });
  const marked = await fixtureVenue(url, fixtureJson);
  const until = new Date(Date.now() + WEEK_MS).toISOString();
  const mark = (ref: string, i: number) => ({ ref, available: false, ...(i % 2 === 0 ? { until } : {}) });
  await api(url, 'PUT', '/v1/availability', marked.key, {
    products: Array.from({ length: MARKED_PRODUCTS }, (_, i) => mark(productExternalId(i * 10), i)),
    ingredients: Array.from({ length: MARKED_INGREDIENTS }, (_, i) => mark(ingredientExternalId(i * 20), i)),
  });
  await api(url, 'PATCH', '/v1/settings', marked.key, { openingHours: closedNowHours() });

  const plainUrl = `${url}/guest/v1/venues/${plain.slug}/menu`;
  const markedUrl = `${url}/guest/v1/venues/${marked.slug}/menu`;
  const [p, m] = [await guestMenu(plainUrl), await guestMenu(markedUrl)];
  // The reads must be what they claim: sold-out products and a closed venue on one side only, and
  // a 304 on each venue's own ETag.
  const valid =
    p.status === 200 &&
    m.status === 200 &&
    p.soldOut === 0 &&
    m.soldOut >= MARKED_PRODUCTS &&
    p.ordering.open &&
    !m.ordering.open &&
    m.ordering.reason === 'closed' &&
    p.notModified &&
    m.notModified;
  log(
    `guest menu: plain ${round(p.bytes / 1024)} KB (ordering ${p.ordering.reason ?? 'open'}); marked ${round(m.bytes / 1024)} KB, ${m.soldOut} products unavailable by marks, ordering ${m.ordering.reason ?? 'open'}${valid ? '' : ' (NOT AS SET UP)'}`,
  );
  return { plainUrl, markedUrl, plain: p, marked: m, valid };
}

/** The two targets on a running server (the one `measured.carta` names). */
export async function availabilityBench(url: string, plainVenue?: FixtureVenue): Promise<void> {
  const { plainUrl, markedUrl, plain: p, marked: m, valid } = await availabilityVenues(url, plainVenue);
  const pid = measured.carta;
  const [full, fullPlain] = await interleaved({ url: markedUrl, pid }, { url: plainUrl, pid }, {});
  const [cached, cachedPlain] = await interleaved(
    { url: markedUrl, pid, headers: { 'if-none-match': m.etag } },
    { url: plainUrl, pid, headers: { 'if-none-match': p.etag } },
    {},
  );
  // The 200 loads must answer nothing else (autocannon counts a 304 as non-2xx; the 304s were checked above).
  const fullOk = full.non2xx === 0 && fullPlain.non2xx === 0;
  log(
    `guest menu 200: marked ${round(full.rps)} req/s vs plain ${round(fullPlain.rps)}; 304: marked ${round(cached.rps)} vs plain ${round(cachedPlain.rps)}`,
  );
  const what = `${MARKED_PRODUCTS + MARKED_INGREDIENTS} sold-out marks and opening hours (closed now)`;
  ratioMetric(
    `GET /guest/v1/venues/:slug/menu (${round(m.bytes / 1024)} KB) with ${what}: req/s vs without`,
    full.rps,
    fullPlain.rps,
    'req/s',
    '>=',
    0.9,
    valid && fullOk,
  );
  ratioMetric(
    `GET /guest/v1/venues/:slug/menu If-None-Match (304) with ${what}: req/s vs without`,
    cached.rps,
    cachedPlain.rps,
    'req/s',
    '>=',
    0.9,
    valid,
  );
  for (const [name, withThem, without] of [
    ['200', full, fullPlain],
    ['304', cached, cachedPlain],
  ] as const) {
    if (withThem.cpuUs === null || without.cpuUs === null || withThem.cpuUs === 0) continue;
    informational.push({
      name: `guest menu ${name} with marks and hours: CPU per request, without / with`,
      value: round(withThem.cpuUs, 2),
      unit: 'µs',
      baseline: round(without.cpuUs, 2),
      ratio: round(without.cpuUs / withThem.cpuUs, 3),
    });
  }
}

/** `--availability`: only these figures, on a fresh server. */
export const availabilityBenchAlone = (): Promise<void> => benchAlone(availabilityBench);
