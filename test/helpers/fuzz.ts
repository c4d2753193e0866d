import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, admin, call, createVenue, startApp, type TestApp, type VenueFixture } from './app.js';
import { makeImage, toBase64 } from './images.js';
import { burgerLine, createOrder, orderBody, setUpOrderMenu, type MenuIds } from './orders.js';
import { injectBounded } from './inject-bounded.js';
import { routeTable, type RouteKey } from './route-table.js';
import { pathologicalBodies } from './stall-bodies.js';
import { sessionCsrf } from '../../src/modules/console/csrf.js';
import { signedIn } from '../console/console-client.js';
import { DAY_MS } from '../../src/limits.js';

// Property-based fuzzing of every route the router serves (docs/security.md). Each case
// is one request: a route from the live route table, its path parameters (real ids of the fuzzed
// venue, another venue's, or odd text), a query string, a content type, a credential, and a body
// (a valid sample mutated at one spot, arbitrary JSON, or raw text no JSON encoder would write).
// Invariants: no 5xx; every error in the error envelope; a refused write changes no row of any
// table; the server keeps answering.

export interface FuzzWorld {
  t: TestApp;
  routes: RouteKey[];
  keys: Record<Credential, string | undefined>;
  params: Record<string, string[]>;
  bodies: Record<string, unknown>;
  tables: string[];
}

const CREDENTIALS = ['live', 'live', 'live', 'live', 'readOnly', 'test', 'other', 'none', 'malformed', 'operator', 'console'] as const;
type Credential = (typeof CREDENTIALS)[number];

const READS = new Set(['GET', 'HEAD']);

/** A write route without a sample body here fails the suite: every route is fuzzed from a valid start. */
function sampleBodies(ids: MenuIds, refs: Record<string, string>, image: string, wide: string): Record<string, unknown> {
  return {
    'POST /v1/sync': {
      categories: [{ externalId: 'fz-cat', name: 'Fuzz category', sortOrder: 1 }],
      ingredients: [
        { externalId: 'fz-ing', name: 'Fuzz ingredient', translations: { uk: { name: 'Інгредієнт' } }, allergens: ['milk', 'gluten'] },
      ],
      products: [
        {
          externalId: 'fz-prod',
          name: 'Fuzz product',
          priceMinor: 450,
          categoryExternalId: 'fz-cat',
          ingredientExternalIds: ['fz-ing'],
          modifierGroups: [
            {
              name: 'Extras',
              type: 'add_ingredients',
              minSelections: 0,
              maxSelections: 2,
              maxQuantityPerOption: 2,
              options: [{ ingredientExternalId: 'fz-ing', priceAdjustment: 50, isDefault: false }],
            },
          ],
          translations: { uk: { name: 'Продукт', description: 'Опис' } },
          // Food information.
          allergens: ['sesame', 'eggs'],
          mayContain: ['nuts'],
          dietaryLabels: ['vegetarian'],
          spiceLevel: 1,
          calories: 450,
          nutrition: { fat: 12.5, protein: 8, salt: 1.5 },
        },
      ],
    },
    'POST /v1/publish': {},
    'POST /v1/cleanup': { items: [{ type: 'product', ref: 'fz-prod' }] },
    'POST /v1/publications/:id/restore': { publish: true },
    'PATCH /v1/products/:ref': {
      name: 'Patched',
      priceMinor: 900,
      description: 'Fuzzed',
      categoryRef: 'mains',
      allergens: ['milk', 'gluten'],
      mayContain: ['sesame'],
      dietaryLabels: ['vegan', 'gluten_free'],
      spiceLevel: 2,
      calories: 650,
      nutrition: { fat: 21.5, carbohydrate: 40, sugars: 5, protein: 30 },
    },
    'DELETE /v1/products/:ref': undefined,
    // Opening hours open around the clock (a split Sunday and a dated exception), so the guest order sample still goes through.
    'PATCH /v1/settings': {
      theme: { accentColor: '#1a5fb4' },
      name: 'Fuzz venue',
      enabledLanguages: ['en', 'uk'],
      timezone: 'Europe/Kyiv',
      openingHours: {
        weekly: [
          ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].map((day) => ({
            day,
            isOpen: true,
            openTime: '00:00',
            closeTime: '00:00',
          })),
          { day: 'sunday', isOpen: true, openTime: '00:00', closeTime: '12:00' },
          { day: 'sunday', isOpen: true, openTime: '12:00', closeTime: '00:00' },
        ],
        exceptions: [{ date: '2030-12-25', isOpen: true, openTime: '09:00', closeTime: '02:00' }],
      },
      orderConfig: { pausedUntil: null, prepTimeMinutes: 20, scheduledOrders: { enabled: true, maxDaysAhead: 7 } },
    },
    'PUT /v1/translations': {
      products: [{ ref: 'burger', translations: { uk: { name: 'Бургер' } } }],
      categories: [{ ref: 'mains', translations: { uk: { name: 'Основні' } } }],
    },
    // Until an hour from when the world is made (it must lie ahead, at most 30 days); by externalId and by id.
    'PUT /v1/availability': {
      products: [
        { ref: 'fries', available: false, until: new Date(Date.now() + 3_600_000).toISOString() },
        { ref: ids.productIds.soda, available: true },
      ],
      ingredients: [{ ref: 'cheese', available: false }],
    },
    'PATCH /v1/orders/:id/status': { status: 'confirmed' },
    'POST /v1/products/:ref/image': { base64: image },
    'DELETE /v1/products/:ref/image': undefined,
    'POST /v1/banners/:id/image': { base64: wide },
    'DELETE /v1/banners/:id/image': undefined,
    'POST /v1/logo': { base64: image },
    'DELETE /v1/logo': undefined,
    'POST /v1/banners': {
      title: 'Fuzz banner',
      subtitle: 'Sub',
      productRef: 'burger',
      startsAt: '2026-01-01T10:00',
      endsAt: '2027-01-01T10:00',
    },
    'PATCH /v1/banners/:id': { title: 'Patched banner', isActive: false },
    'DELETE /v1/banners/:id': undefined,
    'POST /v1/promotions': { name: 'Fuzz promo', description: 'Deal', startsAt: '2026-01-01T10:00:00Z', endsAt: null },
    'PATCH /v1/promotions/:id': { name: 'Patched promo' },
    'DELETE /v1/promotions/:id': undefined,
    'POST /v1/promotions/:id/items': { productRef: 'soda', promoPriceMinor: 150 },
    'PATCH /v1/promotions/:id/items/:itemId': { promoPriceMinor: 10, sortOrder: 2 },
    'DELETE /v1/promotions/:id/items/:itemId': undefined,
    'POST /v1/tables': { name: 'Fuzz table', zone: 'Terrace' },
    'PATCH /v1/tables/:id': { name: 'Patched table', isActive: true },
    'DELETE /v1/tables/:id': undefined,
    'POST /v1/tables/:id/regenerate-token': undefined,
    'POST /v1/webhooks': {
      url: 'https://pos.example.com/carta/hooks',
      events: ['order.created', 'menu.published'],
      description: 'Fuzz endpoint',
    },
    'PATCH /v1/webhooks/:id': { url: 'https://pos.example.com/v2', events: ['order.updated'], description: 'Patched', enabled: false },
    'DELETE /v1/webhooks/:id': undefined,
    'POST /v1/webhooks/:id/rotate-secret': undefined,
    'POST /v1/webhooks/:id/test': undefined,
    'POST /v1/webhooks/:id/deliveries/:deliveryId/retry': undefined,
    // Scheduled two days ahead (within maxDaysAhead, past any prepTimeMinutes): a respelled date reaches the database.
    'POST /guest/v1/venues/:slug/orders': orderBody(ids, {
      type: 'pickup',
      items: [burgerLine(ids, 2)],
      customerEmail: 'ada@example.com',
      comment: 'No ice',
      scheduledFor: new Date(Date.now() + 2 * DAY_MS).toISOString(),
    }),
    'POST /admin/v1/venues': { name: 'Fuzz admin venue', currency: 'EUR', plan: 'standard' },
    'PATCH /admin/v1/venues/:id': { plan: 'pro', subscriptionStatus: 'active' },
    'POST /admin/v1/venues/:id/api-keys': { mode: 'live', readOnly: true },
    'DELETE /admin/v1/api-keys/:id': undefined,
    'POST /admin/v1/api-keys/:id/regenerate': undefined,
    'POST /admin/v1/venues/:id/staff': { email: 'fuzz.staff@example.com', name: 'Fuzz staff', role: 'manager' },
    'PATCH /admin/v1/staff/:id': { name: 'Patched staff', role: 'staff', disabled: false },
    'POST /admin/v1/staff/:id/invite': undefined,
    'DELETE /admin/v1/staff/:id': undefined,
    // The console's forms post url-encoded fields with a CSRF token no generated request holds.
    'POST /console/sign-in': { csrf: 'x'.repeat(32), email: 'fuzz.staff@example.com', password: 'fuzz password' },
    'POST /console/sign-out': { csrf: 'x'.repeat(32) },
    'POST /console/invite/:token': { csrf: 'x'.repeat(32), password: 'fuzz password' },
    // The board's API (docs/console.md), called with an owner's session and CSRF header (the `console` credential).
    'POST /console/api/orders/:id/status': { status: 'confirmed' },
    'PUT /console/api/availability': {
      products: [{ ref: 'fries', available: false, until: null }],
      ingredients: [{ ref: 'cheese', available: true }],
    },
    'POST /console/api/pause': { minutes: 15 },
    'PATCH /console/api/ordering': { prepTimeMinutes: 20 },
    'POST /console/api/staff': { email: 'fuzz.invited@example.com', name: 'Fuzz invited', role: 'staff' },
    'PATCH /console/api/staff/:id': { name: 'Fuzz renamed', role: 'manager', disabled: false },
    'POST /console/api/staff/:id/invite': undefined,
    'DELETE /console/api/staff/:id': undefined,
    _refs: refs,
  };
}

/** The venue every case runs against, with data behind every route; another venue; keys of every kind. */
export async function fuzzWorld(overrides: Partial<Config> = {}): Promise<FuzzWorld> {
  // Deliveries are queued, not sent: the dispatcher's writes would change the tables between a
  // refused request's checksums. Validators compiled before serving, as the server does: the stall
  // suite times the first invalid bodies.
  const t = await startApp(overrides, undefined, { webhookDispatch: { paused: true }, warmValidators: true });
  const a = await createVenue(t.app, { plan: 'pro' });
  const ids = await setUpOrderMenu(t.app, a);
  const b = await createVenue(t.app);
  // Admin routes act on a venue of their own, so a revoked or regenerated key never locks the
  // fuzzed venue out of the rest of the run.
  const c = await createVenue(t.app);
  const key = async (v: VenueFixture, body: object) => (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, body)).body;
  const readOnly = await key(a, { mode: 'live', readOnly: true });
  const test = await key(a, { mode: 'test' });
  const ok = async (method: 'POST' | 'PATCH', url: string, body: unknown) => {
    const res = await call(t.app, method, url, { key: a.key, body });
    assert.ok(res.status < 300, `${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await ok('PATCH', '/v1/settings', { enabledLanguages: ['en', 'uk'] });
  const banner = await ok('POST', '/v1/banners', { title: 'Banner' });
  const promotion = await ok('POST', '/v1/promotions', { name: 'Promo' });
  const item = await ok('POST', `/v1/promotions/${promotion.id}/items`, { productRef: 'fries', promoPriceMinor: 300 });
  const table = await ok('POST', '/v1/tables', { name: 'Table 1' });
  const member = (
    await admin(t.app, 'POST', `/venues/${c.id}/staff`, { email: 'fuzz.member@example.com', name: 'Fuzz member', role: 'staff' })
  ).body;
  // An owner of the fuzzed venue, signed in: the board's API is called with their session.
  const owner = await signedIn(t.app, a.id, 'fuzz.owner@example.com', 'owner');
  const colleague = (
    await admin(t.app, 'POST', `/venues/${a.id}/staff`, { email: 'fuzz.colleague@example.com', name: 'Fuzz colleague', role: 'staff' })
  ).body;
  const webhook = await ok('POST', '/v1/webhooks', { url: 'https://pos.example.com/hooks', events: ['order.created'] });
  const delivery = await ok('POST', `/v1/webhooks/${webhook.id}/test`, undefined);
  const order = await createOrder(t.app, a.slug, orderBody(ids));
  const image = toBase64(await makeImage(320, 320));
  const wide = toBase64(await makeImage(960, 320));
  await ok('POST', '/v1/products/burger/image', { base64: image });
  const imageUrl: string = (await call(t.app, 'GET', '/v1/products/burger', { key: a.key })).body.image?.variants?.[0]?.url ?? '';
  const mediaFile = imageUrl.split('/').pop() ?? 'x.webp';
  const docsPage = String((await call(t.app, 'GET', '/docs')).body);
  const docsFiles = [...docsPage.matchAll(/\/docs\/assets\/([^"]+)"/g)].map((m) => m[1]);

  const routes = routeTable(t.app);
  const { rows } = await t.database.db.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'
     and table_name not in ('schema_migrations', 'idempotency_keys') order by 1`,
  );
  return {
    t,
    routes,
    keys: {
      live: a.key,
      readOnly: readOnly.key,
      test: test.key,
      other: b.key,
      none: undefined,
      malformed: 'carta_live_not-a-real-key',
      operator: ADMIN_TOKEN,
      console: owner.client.jar.get('carta_session'),
    },
    params: {
      'products/:ref': ['burger', ids.productIds.fries, 'soda'],
      'banners/:id': [banner.id],
      'promotions/:id': [promotion.id],
      'items/:itemId': [item.id],
      'tables/:id': [table.id],
      'webhooks/:id': [webhook.id],
      'deliveries/:deliveryId': [delivery.id],
      'orders/:id': [order.id],
      'publications/:id': [ids.publicationId],
      'venues/:slug': [a.slug, b.slug],
      'tables/:token': [String(table.qrUrl).split('/t/')[1] ?? 'x'],
      'venues/:id': [c.id],
      'api-keys/:id': [c.keyId],
      'staff/:id': [member.id, colleague.id],
      'invite/:token': [String(member.inviteUrl).split('/console/invite/')[1] ?? 'x'],
      'media/:venueId': [a.id],
      ':venueId/:file': [mediaFile],
      'docs/:api': ['guest', 'operator', 'v1'],
      'assets/:file': docsFiles,
    },
    bodies: sampleBodies(ids, {}, image, wide),
    tables: rows.map((r) => r.table_name),
  };
}

// ---- generators --------------------------------------------------------------------------------

const ODD_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\udfff',
  '\ud800x',
  '🌶️',
  'ي',
  '\u202e',
  'x'.repeat(300),
  'x'.repeat(5000),
  '<script>alert(1)</script>',
  "'; drop table venues; --",
  '../../etc/passwd',
  '%00',
  '%c0%ae',
  '${jndi:x}',
  '__proto__',
  'null',
];

const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -0,
    -1,
    0.5,
    1e308,
    -1e308,
    2 ** 53 + 1,
    2 ** 31,
    -(2 ** 31) - 1,
    1e-320,
    [],
    {},
    [[[[]]]],
    { a: { b: { c: { d: {} } } } },
    ...ODD_TEXT,
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(null).map(() => Array.from({ length: 1200 }, (_, i) => i)),
);

// ---- dates: every date field and date query parameter gets these -------------------------------

/**
 * Zones as text with their offset in minutes: RFC 3339 allows any offset to ±23:59 (beyond
 * PostgreSQL's ±15:59, so one passed to SQL as text was a 500), in either case of `Z`.
 */
const ZONES: ReadonlyArray<readonly [string, number]> = [
  ['Z', 0],
  ['z', 0],
  ['+00:00', 0],
  ['-00:00', 0],
  ['+23:59', 23 * 60 + 59],
  ['-23:59', -(23 * 60 + 59)],
  ['+14:00', 14 * 60],
  ['-12:00', -12 * 60],
  ['+05:45', 5 * 60 + 45],
  ['-09:30', -(9 * 60 + 30)],
  ['+16:00', 16 * 60],
  ['-15:59', -(15 * 60 + 59)],
];
/** Zones no date-time format allows (the local time is read as UTC first). */
const BAD_ZONES = ['+24:00', '-24:00', '+23:60', '+99:99', '+05', '+0545', '+5:45', '+05:45:00', ' +01:00', 'UTC', '', 'Z+01:00'];

interface DateSpelling {
  /** Minutes from the value's own instant (0 mostly: the same instant, respelled). */
  shift: number;
  zone: number;
  bad: number;
  separator: 'T' | 't' | ' ';
  precision: 'minutes' | 'seconds' | 'millis' | 'nanos';
}

const dateSpelling: fc.Arbitrary<DateSpelling> = fc.record({
  shift: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -3 * 24 * 60, max: 40 * 24 * 60 }) }),
  zone: fc.nat(),
  bad: fc.oneof({ weight: 4, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat() }),
  separator: fc.constantFrom('T', 'T', 'T', 't', ' '),
  precision: fc.constantFrom('minutes', 'seconds', 'seconds', 'millis', 'nanos'),
});

/** `ms` (plus the shift) as date-time text in one of the zones, or with a zone no format allows. */
export function spellDate(ms: number, s: DateSpelling): string {
  const [zoneText, offset] = s.bad >= 0 ? [BAD_ZONES[s.bad % BAD_ZONES.length], 0] : ZONES[s.zone % ZONES.length];
  const local = new Date(ms + (s.shift + offset) * 60_000).toISOString();
  const time = {
    minutes: local.slice(11, 16),
    seconds: local.slice(11, 19),
    millis: local.slice(11, 23),
    nanos: `${local.slice(11, 23)}456789`,
  }[s.precision];
  return `${local.slice(0, 10)}${s.separator}${time}${zoneText}`;
}

/** The fields that hold a date (a null among them gets one too). */
const DATE_KEYS = new Set(['scheduledFor', 'until', 'pausedUntil', 'startsAt', 'endsAt']);
const LOOKS_DATED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

type PathStep = string | number;

/** Every node of a JSON value, by path (the root included). */
function nodePaths(value: unknown, at: PathStep[] = [], out: PathStep[][] = []): PathStep[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => nodePaths(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) nodePaths(v, [...at, k], out);
  return out;
}

function getAt(value: unknown, path: PathStep[]): unknown {
  return path.reduce<unknown>((v, step) => (v as Record<PathStep, unknown>)?.[step], value);
}

function setAt(value: unknown, path: PathStep[], replacement: unknown, remove = false): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<PathStep, unknown>;
  const parent = getAt(copy, path.slice(0, -1)) as Record<PathStep, unknown> | unknown[];
  const last = path[path.length - 1];
  if (remove && Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (remove) delete (parent as Record<PathStep, unknown>)[last];
  else (parent as Record<PathStep, unknown>)[last] = replacement;
  return copy;
}

type Mutation =
  | { op: 'replace'; pick: number; value: unknown }
  | { op: 'date'; pick: number; spelling: DateSpelling }
  | { op: 'remove'; pick: number }
  | { op: 'unknownKey'; pick: number; key: string; value: unknown }
  | { op: 'oversize'; pick: number; copies: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('replace' as const), pick: fc.nat(), value: weirdValue }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('unknownKey' as const),
      pick: fc.nat(),
      key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'id', 'venueId')),
      value: weirdValue,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('oversize' as const), pick: fc.nat(), copies: fc.constantFrom(2, 201, 1001, 5001) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('date' as const), pick: fc.nat(), spelling: dateSpelling }) },
);

/** A date node's instant: its own when it has one (a wall-clock time read as UTC), else an hour ahead. */
function instantAt(node: unknown): number {
  if (typeof node !== 'string' || !LOOKS_DATED.test(node)) return Date.now() + 3_600_000;
  const ms = Date.parse(/(Z|[+-]\d{2}:\d{2})$/i.test(node) ? node : `${node}Z`);
  return Number.isFinite(ms) ? ms : Date.now() + 3_600_000;
}

function mutate(sample: unknown, m: Mutation): unknown {
  const paths = nodePaths(sample);
  const path = paths[m.pick % paths.length];
  const node = getAt(sample, path);
  switch (m.op) {
    case 'replace':
      return setAt(sample, path, m.value);
    case 'date': {
      const dated = paths.filter(
        (p) =>
          DATE_KEYS.has(String(p[p.length - 1])) || (typeof getAt(sample, p) === 'string' && LOOKS_DATED.test(getAt(sample, p) as string)),
      );
      if (dated.length === 0) return sample;
      const at = dated[m.pick % dated.length];
      return setAt(sample, at, spellDate(instantAt(getAt(sample, at)), m.spelling));
    }
    case 'remove':
      return path.length === 0 ? undefined : setAt(sample, path, undefined, true);
    case 'unknownKey':
      return node !== null && typeof node === 'object' && !Array.isArray(node)
        ? setAt(sample, path, { ...node, [m.key]: m.value })
        : setAt(sample, path, m.value);
    case 'oversize': {
      const arrays = paths.filter((p) => Array.isArray(getAt(sample, p)) && (getAt(sample, p) as unknown[]).length > 0);
      if (arrays.length === 0) return sample;
      const at = arrays[m.pick % arrays.length];
      const first = (getAt(sample, at) as unknown[])[0];
      return setAt(
        sample,
        at,
        Array.from({ length: m.copies }, () => first),
      );
    }
  }
}

const pathological = new Map<string, string[]>();
const smallPathological = (text: string, sample: unknown): string[] => {
  if (!pathological.has(text)) pathological.set(text, Object.values(pathologicalBodies(sample, 0.05)));
  return pathological.get(text)!;
};

/** Raw body text: what JSON.stringify would never produce. */
function rawBodies(sample: unknown): fc.Arbitrary<string> {
  const text = JSON.stringify(sample ?? {});
  return fc.oneof(
    fc.constantFrom(
      '',
      'null',
      '[]',
      '"text"',
      '0',
      'hello',
      '{',
      '{"a":}',
      '\ufeff' + text,
      text.slice(0, Math.max(1, text.length >> 1)),
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '['.repeat(5000) + ']'.repeat(5000),
      '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
      text.replace('{', '{"name":"first","name":"second",'),
      text.replace('{', '{"products":[],"products":1,'),
      text.replace(/"([^"]+)":/, '"$1":"\\u0000",'),
    ),
    // The stall suite's shapes (test/server/stall.test.ts), at a twentieth of their size.
    fc.constantFrom(...smallPathological(text, sample)),
    fc.string({ maxLength: 40 }).map((s) => text.replace('{', `{${JSON.stringify(s)}:1,`)),
  );
}

function encodeSegment(value: string): string {
  if (value.startsWith('%')) return value; // already percent-spelled (some deliberately malformed)
  try {
    return encodeURIComponent(value);
  } catch {
    return value.replace(/[^\w.-]/g, '%FF'); // a lone surrogate: spelled as a byte that is not UTF-8
  }
}

const QUERY_KEYS = [
  'locale',
  'version',
  'page',
  'limit',
  'size',
  'status',
  'type',
  'since',
  'updatedSince',
  'createdFrom',
  'createdTo',
  'dryRun',
  'action',
  'fields',
  '__proto__',
];
// Numbers that text coerces to something no list can use (Infinity, past 2^53) sit with the plain odd text.
const QUERY_VALUES = [
  '-1',
  '0',
  '1',
  '2',
  '1e9',
  '99999999999999999999',
  '1e308',
  '1e400',
  'Infinity',
  '-Infinity',
  'NaN',
  '1.5',
  '9007199254740993',
  '0x10',
  ' 7 ',
  'abc',
  '',
  'true',
  'false',
  'null',
  '%FF',
  '%00',
  '2026-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  'draft',
  'published',
  'new',
  'uk',
  'en',
  'x'.repeat(300),
];

const queryValue = fc.oneof(
  fc.constantFrom(...QUERY_VALUES),
  fc.string({ maxLength: 10 }),
  // Around now: a cursor in any zone, respelled.
  dateSpelling.map((s) => spellDate(Date.now(), s)),
);

const queryString: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 6 })), queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&')}`));

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  '',
];

export interface FuzzRequest {
  route: string;
  method: string;
  url: string;
  credential: Credential;
  headers: Record<string, string>;
  payload?: string;
}

/** One generated request against `world`. */
export function fuzzRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...world.routes).chain((route) => {
    const segments = route.url.split('/');
    const paramArbs = segments.map((segment, i) => {
      if (!segment.startsWith(':')) return fc.constant(segment);
      const real = world.params[`${segments[i - 1]}/${segment}`] ?? world.params[`${segment}/${segments[i + 1]}`] ?? [];
      return fc
        .oneof(
          { weight: 4, arbitrary: real.length ? fc.constantFrom(...real) : fc.constant('none') },
          { weight: 1, arbitrary: fc.constantFrom(...ODD_TEXT) },
          { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
          { weight: 1, arbitrary: fc.uuid() },
        )
        .map(encodeSegment);
    });
    const key = `${route.method} ${route.url}`;
    const sample = world.bodies[key];
    const body: fc.Arbitrary<string | undefined> = READS.has(route.method)
      ? fc.constant(undefined)
      : fc.oneof(
          { weight: 4, arbitrary: mutation.map((m) => JSON.stringify(mutate(sample ?? {}, m) ?? null)) },
          { weight: 2, arbitrary: fc.constant(sample === undefined ? undefined : JSON.stringify(sample)) },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
          { weight: 2, arbitrary: rawBodies(sample) },
        );
    return fc
      .record({
        path: fc.tuple(...paramArbs).map((parts) => parts.join('/')),
        query: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString }),
        credential: route.url.startsWith('/admin/')
          ? fc.constantFrom<Credential>('operator', 'operator', 'operator', 'live', 'none')
          : route.url.startsWith('/console/api/')
            ? fc.constantFrom<Credential>('console', 'console', 'console', 'live', 'none')
            : fc.constantFrom(...CREDENTIALS),
        contentType: fc.oneof(
          { weight: 5, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        ),
        idempotencyKey: fc.oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('fz-1', 'fz-2', 'x'.repeat(300)) },
        ),
        ifMatch: fc.oneof(
          { weight: 5, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom('*', '"x"', 'W/"1"', '') },
        ),
        payload: body,
      })
      .map(({ path, query, credential, contentType, idempotencyKey, ifMatch, payload }) => {
        const headers: Record<string, string> = {};
        const secret = world.keys[credential];
        if (credential === 'console' && secret) {
          headers.cookie = `carta_session=${secret}`;
          headers['x-csrf-token'] = sessionCsrf(secret);
        } else if (secret) headers.authorization = `Bearer ${secret}`;
        if (payload !== undefined && contentType !== '') headers['content-type'] = contentType;
        if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
        if (ifMatch !== undefined) headers['if-match'] = ifMatch;
        return { route: key, method: route.method, url: path + query, credential, headers, payload };
      });
  });
}

// ---- invariants --------------------------------------------------------------------------------

/** A digest of every row of every table (idempotency records aside): what "changes nothing" means. */
export async function fingerprint(world: FuzzWorld): Promise<string> {
  const parts = world.tables.map(
    (name) => `(select md5(coalesce(string_agg(md5(t::text), '' order by md5(t::text)), '')) from ${name} t) as "${name}"`,
  );
  const { rows } = await world.t.database.db.query(`select ${parts.join(', ')}`);
  return JSON.stringify(rows[0]);
}

/** The guest page's routes (docs/guest-page.md): a link that leads nowhere is a page for people. */
const PAGE_ROUTE = /^GET \/(t|m)\//;
/** The console's pages (docs/console.md): a refused form is the form again, or a page saying why. */
const CONSOLE_ROUTE = /^(GET|POST) \/console(\/|$)/;

function assertEnvelope(res: LightMyRequestResponse, req: FuzzRequest): void {
  if (req.method === 'HEAD') return;
  if (PAGE_ROUTE.test(req.route) && String(res.headers['content-type']).startsWith('text/html')) {
    assert.ok([403, 404].includes(res.statusCode), `${req.method} ${req.url}: an HTML error page is a 403 or 404, got ${res.statusCode}`);
    assert.match(res.body, /^<!doctype html>/, `${req.method} ${req.url}: a whole page`);
    return;
  }
  if (CONSOLE_ROUTE.test(req.route) && String(res.headers['content-type']).startsWith('text/html')) {
    assert.ok(
      [400, 401, 403, 404].includes(res.statusCode),
      `${req.method} ${req.url}: a console page refuses with 400, 401, 403 or 404, got ${res.statusCode}`,
    );
    assert.match(res.body, /^<!doctype html>/, `${req.method} ${req.url}: a whole page`);
    return;
  }
  let body: any;
  try {
    body = res.json();
  } catch {
    assert.fail(`${req.method} ${req.url}: error ${res.statusCode} is not JSON: ${res.body.slice(0, 200)}`);
  }
  assert.equal(body.statusCode, res.statusCode, `${req.method} ${req.url}: envelope statusCode`);
  assert.equal(typeof body.message, 'string', 'envelope message');
  assert.equal(typeof body.requestId, 'string', 'envelope requestId');
  assert.equal(typeof body.timestamp, 'string', 'envelope timestamp');
  assert.equal(typeof body.path, 'string', 'envelope path');
}

export function inject(app: App, req: FuzzRequest): Promise<LightMyRequestResponse> {
  return injectBounded(app, { method: req.method as 'GET', url: req.url, headers: req.headers, payload: req.payload });
}

/** Sends one request and checks every invariant. */
export async function checkRequest(world: FuzzWorld, req: FuzzRequest): Promise<void> {
  const write = !READS.has(req.method);
  const before = write ? await fingerprint(world) : '';
  const res = await inject(world.t.app, req);
  const label = `${req.method} ${req.url} (${req.credential}) body ${String(req.payload).slice(0, 300)}`;
  assert.ok(res.statusCode < 500, `${label}: ${res.statusCode} ${res.body.slice(0, 500)}`);
  if (res.statusCode >= 400) {
    assertEnvelope(res, req);
    if (write) assert.equal(await fingerprint(world), before, `${label}: refused with ${res.statusCode} but changed data`);
  }
}

export interface FuzzOptions {
  seed: number;
  runs: number;
  /** Stop generating new cases after this long (the bounded run in `npm test`). */
  timeLimitMs?: number;
}

/** Runs the property; throws fast-check's report (with the seed and path to replay) on a failure. */
export async function runFuzz(world: FuzzWorld, options: FuzzOptions): Promise<{ runs: number }> {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fuzzRequest(world), async (req) => {
      runs += 1;
      await checkRequest(world, req);
    }),
    {
      seed: options.seed,
      numRuns: options.runs,
      ...(options.timeLimitMs ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false } : {}),
    },
  );
  const health = await world.t.app.inject({ url: '/health' });
  assert.equal(health.statusCode, 200, 'the server stays up');
  return { runs };
}

/** Every write route of the table has a sample body entry (undefined counts: a bodiless write). */
export function missingSamples(world: FuzzWorld): string[] {
  return world.routes.filter((r) => !READS.has(r.method) && !(`${r.method} ${r.url}` in world.bodies)).map((r) => `${r.method} ${r.url}`);
}
