import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';
import { burgerLine, expectStatus, orderBody, placeOrder, publish, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { Receiver } from '../helpers/webhook-receiver.js';

// Sold-out marks and live availability: PUT/GET /v1/availability, `availability`
// on the menu reads, the product read and the guest menu, and order placement against it. Time is
// the injected clock (`now`), moved by each test: nothing here sleeps.

const HOUR = 3_600_000;
const MINUTE = 60_000;
const DAY = 24 * HOUR;
const iso = (t: number) => new Date(t).toISOString();
const AVAILABLE = { available: true, until: null, reason: null };
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Wednesday 2026-06-10, 10:00 UTC: where every test starts its clock. */
const START = Date.parse('2026-06-10T10:00:00Z');
let now = START;

/** A menu with category schedules, in the venue's timezone (Europe/Kyiv, UTC+3 in June). */
const SCHEDULE_MENU = {
  categories: [
    {
      externalId: 'breakfast',
      name: 'Breakfast',
      sortOrder: 1,
      schedule: [
        { day: 'wednesday', isOpen: true, openTime: '08:00', closeTime: '11:00' },
        { day: 'thursday', isOpen: true, openTime: '08:00', closeTime: '11:00' },
        { day: 'friday', isOpen: false },
      ],
    },
    { externalId: 'allday', name: 'All day', sortOrder: 2, schedule: [] },
  ],
  ingredients: [{ externalId: 'egg', name: 'Egg' }],
  products: [
    { externalId: 'eggs', name: 'Eggs', priceMinor: 600, categoryExternalId: 'breakfast', sortOrder: 1 },
    { externalId: 'toast', name: 'Toast', priceMinor: 300, categoryExternalId: 'allday', sortOrder: 2 },
    { externalId: 'loose', name: 'Loose', priceMinor: 100, sortOrder: 3 },
  ],
};
// Kyiv is UTC+3 in June: 08:00 local is 05:00Z, 11:00 local 08:00Z.
const KYIV_WED_0800 = Date.parse('2026-06-10T05:00:00Z');
const KYIV_WED_1100 = Date.parse('2026-06-10T08:00:00Z');
const KYIV_THU_0800 = Date.parse('2026-06-11T05:00:00Z');
const KYIV_THU_1100 = Date.parse('2026-06-11T08:00:00Z');
const KYIV_NEXT_WED_0800 = Date.parse('2026-06-17T05:00:00Z');

function byExternalId(list: any[], externalId: string): any {
  const found = list.find((e) => e.externalId === externalId);
  assert.ok(found, `${externalId} in ${JSON.stringify(list.map((e) => e.externalId))}`);
  return found;
}

describe('availability: PUT and GET /v1/availability, and availability on every read', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({}, undefined, { clock: () => now, webhookDispatch: { paused: true } });
  });
  after(() => t.close());

  async function venueWithMenu(options: Parameters<typeof setUpOrderMenu>[2] = {}): Promise<{ v: VenueFixture; ids: MenuIds }> {
    const v = await createVenue(t.app);
    const ids = await setUpOrderMenu(t.app, v, options);
    return { v, ids };
  }

  const put = (v: VenueFixture, body: unknown, key = v.key) => call(t.app, 'PUT', '/v1/availability', { key, body });

  async function putOk(v: VenueFixture, body: unknown): Promise<{ products: { updated: number }; ingredients: { updated: number } }> {
    const res = await put(v, body);
    expectStatus(res, 200);
    return res.body;
  }

  async function list(v: VenueFixture, key = v.key): Promise<{ products: any[]; ingredients: any[] }> {
    const res = await call(t.app, 'GET', '/v1/availability', { key });
    expectStatus(res, 200);
    return res.body;
  }

  async function menu(v: VenueFixture, version: 'draft' | 'published'): Promise<any> {
    const res = await call(t.app, 'GET', `/v1/menu?version=${version}`, { key: v.key });
    expectStatus(res, 200);
    return res.body;
  }

  async function product(v: VenueFixture, ref: string): Promise<any> {
    const res = await call(t.app, 'GET', `/v1/products/${encodeURIComponent(ref)}`, { key: v.key });
    expectStatus(res, 200);
    return res.body;
  }

  async function guestMenu(v: VenueFixture): Promise<any> {
    const res = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    expectStatus(res, 200);
    return res.body;
  }

  /**
   * A product's availability as every read shows it (draft, published, product read, guest menu),
   * asserted equal across them; returns it, with its options' availability by group and ingredient.
   */
  async function everywhere(v: VenueFixture, externalId: string): Promise<{ availability: any; options: Record<string, any> }> {
    const reads: [string, any][] = [];
    const draft = byExternalId((await menu(v, 'draft')).products, externalId);
    reads.push(['draft', draft]);
    reads.push(['published', byExternalId((await menu(v, 'published')).products, externalId)]);
    reads.push(['product read', await product(v, externalId)]);
    const guest = (await guestMenu(v)).products.find((p: any) => p.id === draft.id);
    const optionsOf = (p: any) => {
      const out: Record<string, any> = {};
      for (const g of p.modifierGroups) for (const o of g.options) out[`${g.name}/${o.id}`] = o.availability;
      return out;
    };
    const first = reads[0][1];
    for (const [label, read] of reads) {
      assert.deepEqual(read.availability, first.availability, `${externalId}: ${label} shows the draft's availability`);
      assert.deepEqual(optionsOf(read), optionsOf(first), `${externalId}: ${label} options`);
    }
    if (guest) {
      assert.deepEqual(guest.availability, first.availability, `${externalId}: the guest menu shows it too`);
      assert.deepEqual(optionsOf(guest), optionsOf(first), `${externalId}: guest options`);
    }
    const options: Record<string, any> = {};
    for (const g of first.modifierGroups) for (const o of g.options) options[`${g.name}/${o.ingredientExternalId}`] = o.availability;
    return { availability: first.availability, options };
  }

  async function storedOrders(v: VenueFixture): Promise<number> {
    const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from orders where venue_id = $1', [v.id]);
    return rows[0].n;
  }

  async function auditOf(v: VenueFixture): Promise<any[]> {
    const res = await call(t.app, 'GET', '/v1/audit-log?action=availability.update&limit=100', { key: v.key });
    expectStatus(res, 200);
    return res.body.items;
  }

  describe('setting and listing marks', () => {
    it('marks sold out by externalId and by id, until a time or indefinitely, and lists them by name', async () => {
      now = START;
      const { v, ids } = await venueWithMenu();
      const until = '2026-06-10T14:30:00+02:00'; // 12:30Z
      const res = await putOk(v, {
        products: [
          { ref: 'soda', available: false, until },
          { ref: ids.productIds.fries, available: false },
        ],
        ingredients: [{ ref: 'cheese', available: false, until: null }],
      });
      assert.deepEqual(res, { products: { updated: 2 }, ingredients: { updated: 1 } });
      const listed = await list(v);
      assert.deepEqual(Object.keys(listed).sort(), ['ingredients', 'products']);
      // By name: Fries before Soda.
      assert.deepEqual(
        listed.products.map((p) => p.name),
        ['Fries', 'Soda'],
      );
      const [fries, soda] = listed.products;
      assert.deepEqual(Object.keys(fries).sort(), ['externalId', 'id', 'name', 'ref', 'until', 'updatedAt']);
      // ref is the externalId, whichever ref the PUT named it by.
      assert.deepEqual(
        { ...fries, updatedAt: null },
        { ref: 'fries', id: ids.productIds.fries, externalId: 'fries', name: 'Fries', until: null, updatedAt: null },
      );
      assert.deepEqual(
        { ...soda, updatedAt: null },
        { ref: 'soda', id: ids.productIds.soda, externalId: 'soda', name: 'Soda', until: '2026-06-10T12:30:00.000Z', updatedAt: null },
      );
      assert.match(fries.updatedAt, ISO_UTC);
      assert.match(soda.updatedAt, ISO_UTC);
      assert.equal(listed.ingredients.length, 1);
      assert.deepEqual(
        { ...listed.ingredients[0], id: null, updatedAt: null },
        { ref: 'cheese', id: null, externalId: 'cheese', name: 'Cheese', until: null, updatedAt: null },
      );

      // The reads agree.
      assert.deepEqual((await everywhere(v, 'fries')).availability, { available: false, until: null, reason: 'sold_out' });
      assert.deepEqual((await everywhere(v, 'soda')).availability, {
        available: false,
        until: '2026-06-10T12:30:00.000Z',
        reason: 'sold_out',
      });
      const ingredient = byExternalId((await menu(v, 'draft')).ingredients, 'cheese');
      assert.deepEqual(ingredient.availability, { available: false, until: null, reason: 'sold_out' });
      assert.deepEqual(byExternalId((await menu(v, 'draft')).ingredients, 'bacon').availability, AVAILABLE);
    });

    it('counts only the entries whose state changed: a repeat is 0, available with no mark is 0, a new until is 1', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const body = {
        products: [
          { ref: 'fries', available: false, until: iso(now + HOUR) },
          { ref: 'soda', available: false },
        ],
      };
      assert.deepEqual(await putOk(v, body), { products: { updated: 2 }, ingredients: { updated: 0 } });
      assert.deepEqual(
        await putOk(v, body),
        { products: { updated: 0 }, ingredients: { updated: 0 } },
        'the same marks again change nothing',
      );
      assert.deepEqual(
        await putOk(v, { products: [{ ref: 'burger', available: true }], ingredients: [{ ref: 'cheese', available: true }] }),
        { products: { updated: 0 }, ingredients: { updated: 0 } },
        'available with no mark is a no-op',
      );
      assert.deepEqual(await putOk(v, { products: [{ ref: 'fries', available: false, until: iso(now + 2 * HOUR) }] }), {
        products: { updated: 1 },
        ingredients: { updated: 0 },
      });
      assert.equal((await list(v)).products.find((p) => p.ref === 'fries').until, iso(now + 2 * HOUR));
      assert.deepEqual(await putOk(v, { products: [{ ref: 'soda', available: true }] }), {
        products: { updated: 1 },
        ingredients: { updated: 0 },
      });
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['fries'],
      );
      // Only the PUTs that changed something are audited.
      assert.equal((await auditOf(v)).length, 3);
    });

    it('a mark ends by itself when the clock passes its until: no longer listed, available on every read', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const until = now + 2 * HOUR;
      await putOk(v, {
        products: [
          { ref: 'fries', available: false, until: iso(until) },
          { ref: 'soda', available: false },
        ],
      });
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['fries', 'soda'],
      );
      assert.deepEqual((await everywhere(v, 'fries')).availability, { available: false, until: iso(until), reason: 'sold_out' });

      now = until - 1;
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['fries', 'soda'],
        'still sold out a millisecond before',
      );
      now = until;
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['soda'],
        'the mark ended at its until',
      );
      assert.deepEqual((await everywhere(v, 'fries')).availability, AVAILABLE);
      assert.deepEqual(
        (await everywhere(v, 'soda')).availability,
        { available: false, until: null, reason: 'sold_out' },
        'an indefinite mark stays',
      );

      // Clearing an expired mark changes nothing; available: true clears an indefinite one.
      assert.deepEqual(await putOk(v, { products: [{ ref: 'fries', available: true }] }), {
        products: { updated: 0 },
        ingredients: { updated: 0 },
      });
      assert.deepEqual(await putOk(v, { products: [{ ref: 'soda', available: true }] }), {
        products: { updated: 1 },
        ingredients: { updated: 0 },
      });
      assert.deepEqual(await list(v), { products: [], ingredients: [] });
      assert.deepEqual((await everywhere(v, 'soda')).availability, AVAILABLE);
      // An expired mark set again counts as a change.
      assert.deepEqual(await putOk(v, { products: [{ ref: 'fries', available: false, until: iso(now + HOUR) }] }), {
        products: { updated: 1 },
        ingredients: { updated: 0 },
      });
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['fries'],
      );
    });
  });

  describe('all or nothing', () => {
    it('unknown refs are a 400 with one errors[] entry per unknown ref, and nothing is written', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const draftBefore = await call(t.app, 'GET', '/v1/menu', { key: v.key });
      const res = await put(v, {
        products: [
          { ref: 'fries', available: false },
          { ref: 'burger', available: false },
          { ref: 'p9', available: false },
        ],
        ingredients: [
          { ref: 'cheese', available: false },
          { ref: 'nope', available: false },
        ],
      });
      expectStatus(res, 400);
      assert.equal(res.body.message, 'Validation failed');
      assert.deepEqual(res.body.errors, ['products[2].ref "p9" not found', 'ingredients[1].ref "nope" not found']);
      assert.deepEqual(await list(v), { products: [], ingredients: [] });
      assert.deepEqual(await auditOf(v), []);
      const draftAfter = await call(t.app, 'GET', '/v1/menu', { key: v.key });
      assert.equal(draftAfter.headers.etag, draftBefore.headers.etag, 'the menu read is unchanged');
      // Only an unknown ingredient: the products before it are not written either.
      const second = await put(v, { products: [{ ref: 'fries', available: false }], ingredients: [{ ref: 'p9', available: false }] });
      expectStatus(second, 400);
      assert.deepEqual(second.body.errors, ['ingredients[0].ref "p9" not found']);
      assert.deepEqual(await list(v), { products: [], ingredients: [] });
      // A product ref is not an ingredient ref.
      const crossed = await put(v, { ingredients: [{ ref: 'fries', available: false }] });
      expectStatus(crossed, 400);
      assert.deepEqual(crossed.body.errors, ['ingredients[0].ref "fries" not found']);
    });

    it('refuses an until in the past, at now, more than 30 days ahead, or without an offset; nothing is written', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const cases: [string, unknown, RegExp][] = [
        ['in the past', iso(now - MINUTE), /^products\[0\]\.until .*future/],
        ['now', iso(now), /^products\[0\]\.until .*future/],
        ['over 30 days', iso(now + 30 * DAY + MINUTE), /^products\[0\]\.until .*30 days/],
        ['no offset', '2026-06-10T18:00:00', /^products\[0\]\.until /],
        ['not a time', 'tonight', /^products\[0\]\.until /],
      ];
      for (const [label, until, pattern] of cases) {
        const res = await put(v, { products: [{ ref: 'fries', available: false, until }] });
        assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.message, 'Validation failed', label);
        assert.ok(
          res.body.errors.some((e: string) => pattern.test(e)),
          `${label}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      // Exactly 30 days ahead is allowed.
      assert.deepEqual(await putOk(v, { products: [{ ref: 'soda', available: false, until: iso(now + 30 * DAY) }] }), {
        products: { updated: 1 },
        ingredients: { updated: 0 },
      });
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['soda'],
      );
      // A bad until among good entries writes none of them.
      const mixed = await put(v, {
        products: [
          { ref: 'burger', available: false },
          { ref: 'fries', available: false, until: iso(now - 1) },
        ],
      });
      expectStatus(mixed, 400);
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['soda'],
      );
    });

    it('refuses more than 500 entries in a section and unknown fields, before anything runs', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const many = Array.from({ length: 501 }, () => ({ ref: 'fries', available: false }));
      for (const section of ['products', 'ingredients']) {
        const res = await put(v, { [section]: many });
        expectStatus(res, 400);
        assert.ok(
          res.body.errors.some((e: string) => e.startsWith(section) && /500/.test(e)),
          JSON.stringify(res.body.errors),
        );
      }
      // 500 is the limit, not past it.
      assert.deepEqual(await putOk(v, { products: Array.from({ length: 500 }, () => ({ ref: 'fries', available: false })) }), {
        products: { updated: 1 },
        ingredients: { updated: 0 },
      });
      await putOk(v, { products: [{ ref: 'fries', available: true }] });
      const unknownTop = await put(v, { products: [{ ref: 'fries', available: false }], categories: [] });
      expectStatus(unknownTop, 400);
      assert.ok(
        unknownTop.body.errors.some((e: string) => /categories/.test(e)),
        JSON.stringify(unknownTop.body.errors),
      );
      const unknownEntry = await put(v, { products: [{ ref: 'fries', available: false, colour: 'red' }] });
      expectStatus(unknownEntry, 400);
      assert.ok(
        unknownEntry.body.errors.some((e: string) => e.startsWith('products[0].colour')),
        JSON.stringify(unknownEntry.body.errors),
      );
      for (const body of [
        { products: [{ ref: 'fries' }] },
        { products: [{ available: false }] },
        { products: [{ ref: '', available: false }] },
        { products: 'fries' },
      ]) {
        expectStatus(await put(v, body), 400);
      }
      // An empty body changes nothing and is no error.
      assert.deepEqual(await putOk(v, {}), { products: { updated: 0 }, ingredients: { updated: 0 } });
      assert.deepEqual(await list(v), { products: [], ingredients: [] });
      assert.equal((await auditOf(v)).length, 2);
    });
  });

  describe('ingredients, required choices and category schedules', () => {
    it('a sold-out ingredient makes its products and its add options unavailable; remove options stay available', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const onionUntil = iso(now + 3 * HOUR);
      await putOk(v, { ingredients: [{ ref: 'onion', available: false, until: onionUntil }] });
      // The burger's composition holds onion (and pickles).
      const burger = await everywhere(v, 'burger');
      assert.deepEqual(burger.availability, { available: false, until: onionUntil, reason: 'ingredient_sold_out' });
      assert.deepEqual(burger.options['Remove/onion'], AVAILABLE, 'a remove option stays available');
      assert.deepEqual(burger.options['Remove/pickles'], AVAILABLE);
      assert.deepEqual((await everywhere(v, 'fries')).availability, AVAILABLE, 'products without it are available');

      // cheese is only an add option: the option is unavailable, the burger would not be for it.
      await putOk(v, {
        ingredients: [
          { ref: 'onion', available: true },
          { ref: 'cheese', available: false },
        ],
      });
      const again = await everywhere(v, 'burger');
      assert.deepEqual(again.availability, AVAILABLE);
      assert.deepEqual(again.options['Extras/cheese'], { available: false, until: null, reason: 'ingredient_sold_out' });
      assert.deepEqual(again.options['Extras/bacon'], AVAILABLE);
      assert.deepEqual(again.options['Bun/bun-white'], AVAILABLE);
      assert.deepEqual(byExternalId((await menu(v, 'published')).ingredients, 'cheese').availability, {
        available: false,
        until: null,
        reason: 'sold_out',
      });
    });

    it('a product of its own mark and an ingredient is available again when both have ended (reason: its own mark)', async () => {
      now = START;
      const { v } = await venueWithMenu();
      await putOk(v, {
        products: [{ ref: 'burger', available: false, until: iso(now + HOUR) }],
        ingredients: [{ ref: 'pickles', available: false, until: iso(now + 2 * HOUR) }],
      });
      assert.deepEqual((await everywhere(v, 'burger')).availability, { available: false, until: iso(now + 2 * HOUR), reason: 'sold_out' });
      now += HOUR;
      assert.deepEqual((await everywhere(v, 'burger')).availability, {
        available: false,
        until: iso(now + HOUR),
        reason: 'ingredient_sold_out',
      });
      now += HOUR;
      assert.deepEqual((await everywhere(v, 'burger')).availability, AVAILABLE);
    });

    it('a product whose required single_choice group has no available option is unavailable (required_choice_unavailable)', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const white = now + HOUR;
      const brioche = now + 2 * HOUR;
      await putOk(v, { ingredients: [{ ref: 'bun-white', available: false, until: iso(white) }] });
      assert.deepEqual((await everywhere(v, 'burger')).availability, AVAILABLE, 'one bun left is enough');
      await putOk(v, { ingredients: [{ ref: 'bun-brioche', available: false, until: iso(brioche) }] });
      const burger = await everywhere(v, 'burger');
      // Available again when the first bun is back.
      assert.deepEqual(burger.availability, { available: false, until: iso(white), reason: 'required_choice_unavailable' });
      assert.deepEqual(burger.options['Bun/bun-white'], { available: false, until: iso(white), reason: 'ingredient_sold_out' });
      // An optional single_choice group with nothing left leaves its product available.
      await putOk(v, {
        ingredients: [
          { ref: 'small', available: false },
          { ref: 'large', available: false },
        ],
      });
      const soda = await everywhere(v, 'soda');
      assert.deepEqual(soda.availability, AVAILABLE);
      assert.deepEqual(soda.options['Size/large'], { available: false, until: null, reason: 'ingredient_sold_out' });
      now = white;
      assert.deepEqual((await everywhere(v, 'burger')).availability, AVAILABLE);
    });

    it('a required choice whose options come back at different times: until is the first return, even when another is sold out indefinitely', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const brioche = now + 2 * HOUR;
      await putOk(v, {
        ingredients: [
          { ref: 'bun-white', available: false },
          { ref: 'bun-brioche', available: false, until: iso(brioche) },
        ],
      });
      // The brioche bun comes back at `brioche`, and with it the burger.
      assert.deepEqual((await everywhere(v, 'burger')).availability, {
        available: false,
        until: iso(brioche),
        reason: 'required_choice_unavailable',
      });
      now = brioche;
      assert.deepEqual((await everywhere(v, 'burger')).availability, AVAILABLE);
    });

    it("a product in a category outside its schedule is unavailable until the category's next opening; schedule [] is always open", async () => {
      now = KYIV_WED_0800 + 90 * MINUTE; // Wednesday 09:30 in Kyiv
      const v = await createVenue(t.app);
      expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: 'Europe/Kyiv' } }), 200);
      await setUpOrderMenu(t.app, v, { menu: SCHEDULE_MENU });
      assert.deepEqual((await everywhere(v, 'eggs')).availability, AVAILABLE, 'inside its schedule');
      assert.deepEqual((await everywhere(v, 'toast')).availability, AVAILABLE);

      now = KYIV_WED_1100 - 1;
      assert.deepEqual((await everywhere(v, 'eggs')).availability, AVAILABLE, 'a millisecond before closing');
      now = KYIV_WED_1100;
      assert.deepEqual((await everywhere(v, 'eggs')).availability, {
        available: false,
        until: iso(KYIV_THU_0800),
        reason: 'category_schedule',
      });
      assert.deepEqual((await everywhere(v, 'toast')).availability, AVAILABLE, 'schedule [] is always open');
      assert.deepEqual((await everywhere(v, 'loose')).availability, AVAILABLE, 'no category');

      now = KYIV_THU_0800;
      assert.deepEqual((await everywhere(v, 'eggs')).availability, AVAILABLE);
      // Thursday 11:00: the next opening is next Wednesday (Friday is closed, the other days are not listed).
      now = KYIV_THU_1100;
      assert.deepEqual((await everywhere(v, 'eggs')).availability, {
        available: false,
        until: iso(KYIV_NEXT_WED_0800),
        reason: 'category_schedule',
      });
      now = Date.parse('2026-06-13T09:00:00Z'); // Saturday noon in Kyiv
      assert.deepEqual((await everywhere(v, 'eggs')).availability, {
        available: false,
        until: iso(KYIV_NEXT_WED_0800),
        reason: 'category_schedule',
      });
      // A mark on a closed product: both must end.
      await putOk(v, { products: [{ ref: 'eggs', available: false, until: iso(now + HOUR) }] });
      assert.deepEqual((await everywhere(v, 'eggs')).availability, {
        available: false,
        until: iso(KYIV_NEXT_WED_0800),
        reason: 'sold_out',
      });
      // The schedule is read in the venue's timezone: in UTC it is 08:00-11:00Z.
      expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: 'UTC' } }), 200);
      now = Date.parse('2026-06-17T07:30:00Z'); // Wednesday 07:30Z, 10:30 in Kyiv
      assert.deepEqual((await everywhere(v, 'eggs')).availability, {
        available: false,
        until: '2026-06-17T08:00:00.000Z',
        reason: 'category_schedule',
      });
      now = Date.parse('2026-06-17T08:00:00Z');
      assert.deepEqual((await everywhere(v, 'eggs')).availability, AVAILABLE);
    });
  });

  describe('marks are not menu content', () => {
    it('survive a publish, and change neither the draft nor a snapshot: the menu ETag moves only through availability', async () => {
      now = START;
      const { v } = await venueWithMenu();
      const state = async () =>
        (
          await t.database.db.query<{ draft_version: string; latest_publication_id: string }>(
            'select draft_version::text, latest_publication_id from menu_state where venue_id = $1',
            [v.id],
          )
        ).rows[0];
      const etags = async () => ({
        draft: (await call(t.app, 'GET', '/v1/menu', { key: v.key })).headers.etag,
        published: (await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key })).headers.etag,
        product: (await call(t.app, 'GET', '/v1/products/fries', { key: v.key })).headers.etag,
      });
      const before = await state();
      const clean = await etags();

      await putOk(v, { products: [{ ref: 'fries', available: false }], ingredients: [{ ref: 'cheese', available: false }] });
      assert.deepEqual(await state(), before, 'no draft version, no publication');
      const marked = await etags();
      assert.notEqual(marked.draft, clean.draft);
      assert.notEqual(marked.published, clean.published);
      assert.notEqual(marked.product, clean.product);

      // A publish keeps the marks; the snapshot it makes holds no availability.
      const publicationId = await publish(t.app, v);
      assert.deepEqual((await everywhere(v, 'fries')).availability, { available: false, until: null, reason: 'sold_out' });
      assert.deepEqual(await list(v).then((l) => [l.products.map((p) => p.ref), l.ingredients.map((i) => i.ref)]), [['fries'], ['cheese']]);
      const { rows } = await t.database.db.query<{ document: string }>(
        'select document::text from menu_publications where venue_id = $1 and id = $2',
        [v.id, publicationId],
      );
      assert.doesNotMatch(rows[0].document, /availability|sold_out/);

      // Cleared, the reads are byte for byte what they were (the new snapshot aside).
      await putOk(v, { products: [{ ref: 'fries', available: true }], ingredients: [{ ref: 'cheese', available: true }] });
      const cleared = await etags();
      assert.equal(cleared.draft, clean.draft, 'the draft read is as before the marks');
      assert.equal(cleared.product, clean.product);
    });
  });

  describe('ordering what is unavailable', () => {
    it('an unavailable product is 409 ITEM_UNAVAILABLE with optionId null; nothing is written', async () => {
      now = START;
      const { v, ids } = await venueWithMenu();
      const until = iso(now + HOUR);
      await putOk(v, { products: [{ ref: 'fries', available: false, until }] });
      const res = await placeOrder(t.app, v.slug, orderBody(ids));
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.code, 'ITEM_UNAVAILABLE');
      assert.match(res.body.message, /Fries/);
      assert.deepEqual(res.body.details, { items: [{ productId: ids.productIds.fries, optionId: null, until }] });
      assert.equal(await storedOrders(v), 0);
    });

    it('an unavailable option of an available product names the option; an unavailable product is listed once, whatever its options', async () => {
      now = START;
      const { v, ids } = await venueWithMenu();
      const cheese = ids.options.burger.Extras.cheese;
      await putOk(v, { ingredients: [{ ref: 'cheese', available: false }] });
      const res = await placeOrder(
        t.app,
        v.slug,
        orderBody(ids, { items: [burgerLine(ids, 1, [{ optionId: cheese }, { optionId: ids.options.burger.Extras.bacon }])] }),
      );
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.code, 'ITEM_UNAVAILABLE');
      assert.match(res.body.message, /Cheese/);
      assert.deepEqual(res.body.details, { items: [{ productId: ids.productIds.burger, optionId: cheese, until: null }] });

      // A remove option on a sold-out ingredient can be ordered.
      await putOk(v, { ingredients: [{ ref: 'onion', available: false }] });
      const burgerNow = await everywhere(v, 'burger');
      assert.equal(burgerNow.availability.reason, 'ingredient_sold_out');
      await putOk(v, {
        ingredients: [
          { ref: 'onion', available: true },
          { ref: 'pickles', available: false, until: iso(now + HOUR) },
        ],
      });
      // The burger is now unavailable (pickles in it): one entry for it, none for its cheese option; fries too.
      const both = await placeOrder(
        t.app,
        v.slug,
        orderBody(ids, {
          items: [burgerLine(ids, 1, [{ optionId: cheese }]), { productId: ids.productIds.fries, quantity: 1 }, burgerLine(ids, 2)],
        }),
      );
      assert.equal(both.status, 409, JSON.stringify(both.body));
      assert.deepEqual(both.body.details, { items: [{ productId: ids.productIds.burger, optionId: null, until: iso(now + HOUR) }] });
      await putOk(v, { products: [{ ref: 'fries', available: false }] });
      const three = await placeOrder(
        t.app,
        v.slug,
        orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 1 }, burgerLine(ids, 1, [{ optionId: cheese }])] }),
      );
      assert.equal(three.status, 409);
      assert.deepEqual(three.body.details.items, [
        { productId: ids.productIds.fries, optionId: null, until: null },
        { productId: ids.productIds.burger, optionId: null, until: iso(now + HOUR) },
      ]);
      assert.equal(await storedOrders(v), 0);

      // Once marked available, the same order goes through.
      await putOk(v, {
        products: [{ ref: 'fries', available: true }],
        ingredients: [
          { ref: 'pickles', available: true },
          { ref: 'cheese', available: true },
        ],
      });
      expectStatus(
        await placeOrder(
          t.app,
          v.slug,
          orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 1 }, burgerLine(ids, 1, [{ optionId: cheese }])] }),
        ),
        201,
      );
      assert.equal(await storedOrders(v), 1);
    });

    it('a validation problem comes before ITEM_UNAVAILABLE (400, nothing written)', async () => {
      now = START;
      const { v, ids } = await venueWithMenu();
      await putOk(v, { products: [{ ref: 'fries', available: false }] });
      const res = await placeOrder(
        t.app,
        v.slug,
        orderBody(ids, {
          items: [
            { productId: ids.productIds.fries, quantity: 1 },
            { productId: ids.productIds.burger, quantity: 1 },
          ],
        }),
      );
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.ok(
        res.body.errors.some((e: string) => /Bun/.test(e)),
        JSON.stringify(res.body.errors),
      );
      assert.equal(await storedOrders(v), 0);
    });

    it('a scheduled order is judged at its scheduledFor: after the mark ends it is accepted, before it is not', async () => {
      now = START;
      const { v, ids } = await venueWithMenu();
      const until = now + 2 * HOUR;
      await putOk(v, { products: [{ ref: 'fries', available: false, until: iso(until) }] });
      const early = await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: iso(until - MINUTE) }));
      assert.equal(early.status, 409, JSON.stringify(early.body));
      assert.equal(early.body.code, 'ITEM_UNAVAILABLE');
      assert.deepEqual(early.body.details.items, [{ productId: ids.productIds.fries, optionId: null, until: iso(until) }]);
      const late = await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: iso(until) }));
      expectStatus(late, 201);
      assert.equal(late.body.scheduledFor, iso(until));
      // Still sold out now.
      assertError409(await placeOrder(t.app, v.slug, orderBody(ids)));
      // An indefinite mark blocks every time.
      await putOk(v, { products: [{ ref: 'fries', available: false }] });
      assertError409(await placeOrder(t.app, v.slug, orderBody(ids, { scheduledFor: iso(now + 3 * DAY) })));
      assert.equal(await storedOrders(v), 1);
    });

    it('a scheduled order into a category schedule closed now but open then is accepted', async () => {
      now = KYIV_WED_1100 + HOUR; // Wednesday 12:00 in Kyiv: breakfast closed
      const v = await createVenue(t.app);
      expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: 'Europe/Kyiv' } }), 200);
      const ids = await setUpOrderMenu(t.app, v, { menu: SCHEDULE_MENU });
      const eggs = { items: [{ productId: ids.productIds.eggs, quantity: 1 }] };
      const closed = await placeOrder(t.app, v.slug, orderBody(ids, eggs));
      assert.equal(closed.status, 409, JSON.stringify(closed.body));
      assert.deepEqual(closed.body.details, { items: [{ productId: ids.productIds.eggs, optionId: null, until: iso(KYIV_THU_0800) }] });
      expectStatus(await placeOrder(t.app, v.slug, orderBody(ids, { ...eggs, scheduledFor: iso(KYIV_THU_0800 + 30 * MINUTE) })), 201);
      assertError409(await placeOrder(t.app, v.slug, orderBody(ids, { ...eggs, scheduledFor: iso(KYIV_THU_1100) })));
    });
  });

  function assertError409(res: Call): void {
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.code, 'ITEM_UNAVAILABLE');
  }

  describe('keys, sandbox and audit', () => {
    it('a read-only key reads the marks and may not set them (403 READ_ONLY_KEY)', async () => {
      now = START;
      const { v } = await venueWithMenu();
      await putOk(v, { products: [{ ref: 'fries', available: false }] });
      const readOnly = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true })).body.key;
      const res = await put(v, { products: [{ ref: 'fries', available: true }] }, readOnly);
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'READ_ONLY_KEY');
      assert.deepEqual(
        (await list(v, readOnly)).products.map((p) => p.ref),
        ['fries'],
      );
    });

    it("a test key acts on the sandbox: the live venue's and the sandbox's marks never mix", async () => {
      now = START;
      const { v } = await venueWithMenu();
      const testKey = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' })).body.key;
      const sandbox: VenueFixture = { ...v, id: v.sandboxId, slug: `${v.slug}-sandbox`, key: testKey };
      // The sandbox has no menu yet: the live venue's refs are unknown there.
      const unknown = await put(v, { products: [{ ref: 'fries', available: false }] }, testKey);
      expectStatus(unknown, 400);
      assert.deepEqual(unknown.body.errors, ['products[0].ref "fries" not found']);
      await setUpOrderMenu(t.app, sandbox, { slug: sandbox.slug });
      await putOk(sandbox, { products: [{ ref: 'fries', available: false }] });
      await putOk(v, { products: [{ ref: 'soda', available: false }] });
      assert.deepEqual(
        (await list(v)).products.map((p) => p.ref),
        ['soda'],
      );
      assert.deepEqual(
        (await list(sandbox)).products.map((p) => p.ref),
        ['fries'],
      );
      assert.deepEqual((await everywhere(v, 'fries')).availability, AVAILABLE);
      assert.deepEqual((await everywhere(sandbox, 'soda')).availability, AVAILABLE);
      assert.equal((await everywhere(sandbox, 'fries')).availability.reason, 'sold_out');
      // The live venue's id is unknown to the sandbox.
      const liveFries = (await product(v, 'fries')).id;
      const crossed = await put(v, { products: [{ ref: liveFries, available: false }] }, testKey);
      expectStatus(crossed, 400);
      assert.equal((await auditOf(v)).length, 1);
      assert.equal((await auditOf(sandbox)).length, 1);
    });

    it('audits availability.update with counts and refs only, in the order given', async () => {
      now = START;
      const { v, ids } = await venueWithMenu();
      await putOk(v, {
        products: [
          { ref: 'fries', available: false, until: iso(now + HOUR) },
          { ref: ids.productIds.soda, available: false },
          { ref: 'burger', available: true },
        ],
        ingredients: [{ ref: 'cheese', available: false }],
      });
      const entries = await auditOf(v);
      assert.equal(entries.length, 1);
      const [entry] = entries;
      assert.equal(entry.action, 'availability.update');
      assert.equal(entry.entityType, 'availability');
      assert.equal(entry.source, 'api_key');
      // The product changed by id is named by the ref it was sent with; the no-op burger is not named.
      assert.deepEqual(entry.changes, { products: 2, ingredients: 1, refs: ['fries', ids.productIds.soda, 'cheese'] });
    });
  });

  describe('the guest menu memo', () => {
    it('shows a mark ending with the next read: a new ETag; while nothing changes, the same ETag and 304', async () => {
      now = START;
      const { v, ids } = await venueWithMenu();
      const url = `/guest/v1/venues/${v.slug}/menu`;
      const until = now + 3 * HOUR;
      await putOk(v, { products: [{ ref: 'fries', available: false, until: iso(until) }] });
      const first = await call(t.app, 'GET', url);
      expectStatus(first, 200);
      const etag = first.headers.etag as string;
      assert.ok(etag);
      const fries = () => first.body.products.find((p: any) => p.id === ids.productIds.fries);
      assert.deepEqual(fries().availability, { available: false, until: iso(until), reason: 'sold_out' });

      const draftEtag = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).headers.etag as string;
      // Past the hour a state is kept for, too: recomputed, it is the same state and the same ETag.
      for (const step of [MINUTE, 30 * MINUTE, 61 * MINUTE, 150 * MINUTE, 3 * HOUR - 1]) {
        now = START + step;
        const same = await call(t.app, 'GET', url, { headers: { 'if-none-match': etag } });
        assert.equal(same.status, 304, `nothing changed ${step / MINUTE} minutes on`);
        const plain = await call(t.app, 'GET', url);
        assert.equal(plain.headers.etag, etag);
        assert.equal((await call(t.app, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': draftEtag } })).status, 304);
      }
      now = until;
      const after = await call(t.app, 'GET', url, { headers: { 'if-none-match': etag } });
      expectStatus(after, 200);
      assert.notEqual(after.headers.etag, etag);
      assert.deepEqual(after.body.products.find((p: any) => p.id === ids.productIds.fries).availability, AVAILABLE);
      const later = await call(t.app, 'GET', url, { headers: { 'if-none-match': after.headers.etag as string } });
      assert.equal(later.status, 304);

      // The menu reads behind a key move at the same moment.
      const draft = await call(t.app, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': draftEtag } });
      expectStatus(draft, 200);
      assert.deepEqual(byExternalId(draft.body.products, 'fries').availability, AVAILABLE);
    });

    it('shows a category schedule boundary with the next read', async () => {
      now = KYIV_WED_1100 - 10 * MINUTE;
      const v = await createVenue(t.app);
      expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: 'Europe/Kyiv' } }), 200);
      const ids = await setUpOrderMenu(t.app, v, { menu: SCHEDULE_MENU });
      const url = `/guest/v1/venues/${v.slug}/menu`;
      const eggsOf = (body: any) => body.products.find((p: any) => p.id === ids.productIds.eggs).availability;
      const open = await call(t.app, 'GET', url);
      assert.deepEqual(eggsOf(open.body), AVAILABLE);
      const published = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
      now = KYIV_WED_1100 - 1;
      assert.equal((await call(t.app, 'GET', url, { headers: { 'if-none-match': open.headers.etag as string } })).status, 304);
      assert.equal(
        (
          await call(t.app, 'GET', '/v1/menu?version=published', {
            key: v.key,
            headers: { 'if-none-match': published.headers.etag as string },
          })
        ).status,
        304,
      );
      now = KYIV_WED_1100;
      const closed = await call(t.app, 'GET', url, { headers: { 'if-none-match': open.headers.etag as string } });
      expectStatus(closed, 200);
      assert.notEqual(closed.headers.etag, open.headers.etag);
      assert.deepEqual(eggsOf(closed.body), { available: false, until: iso(KYIV_THU_0800), reason: 'category_schedule' });
      const publishedClosed = await call(t.app, 'GET', '/v1/menu?version=published', {
        key: v.key,
        headers: { 'if-none-match': published.headers.etag as string },
      });
      expectStatus(publishedClosed, 200);
      assert.equal(byExternalId(publishedClosed.body.products, 'eggs').availability.reason, 'category_schedule');
      // And it opens again the next morning.
      now = KYIV_THU_0800;
      const reopened = await call(t.app, 'GET', url, { headers: { 'if-none-match': closed.headers.etag as string } });
      expectStatus(reopened, 200);
      assert.deepEqual(eggsOf(reopened.body), AVAILABLE);
    });
  });
});

describe('availability: the webhook event menu.availability_changed', () => {
  const receiver = new Receiver();
  let t: TestApp;
  before(async () => {
    await receiver.listen();
    t = await startApp({ ssrfTestAllow: [{ host: '127.0.0.1', port: receiver.port }] }, undefined, {
      clock: () => now,
      webhookDispatch: { pollMs: 50, retryDelaysMs: [100, 200], leaseMs: 15_000 },
    });
  });
  after(() => Promise.all([t.close(), receiver.close()]));

  async function events(v: VenueFixture): Promise<any[]> {
    const { rows } = await t.database.db.query<{ payload: string }>(
      `select payload from webhook_events where venue_id = $1 and type = 'menu.availability_changed' order by created_at, id`,
      [v.id],
    );
    return rows.map((r) => JSON.parse(r.payload));
  }

  /** Waits (polling, up to 10 s) for the receiver to accept an event matching `find`. */
  async function received(find: (body: any) => boolean): Promise<any> {
    for (let i = 0; i < 200; i++) {
      const hit = receiver.unique().find((r) => find(r.body));
      if (hit) return hit.body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail('no menu.availability_changed delivery arrived');
  }

  it('is recorded and delivered for a PUT that changes something, with the changed entries; not when nothing changed', async () => {
    now = START;
    const v = await createVenue(t.app, { plan: 'pro' });
    const ids = await setUpOrderMenu(t.app, v);
    const hook = await call(t.app, 'POST', '/v1/webhooks', {
      key: v.key,
      body: { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['menu.availability_changed'] },
    });
    expectStatus(hook, 201);
    receiver.secrets = [hook.body.secret];

    const until = iso(now + HOUR);
    const put = (body: unknown) => call(t.app, 'PUT', '/v1/availability', { key: v.key, body });
    expectStatus(
      await put({
        products: [
          { ref: 'fries', available: false, until },
          { ref: 'burger', available: true },
        ],
        ingredients: [{ ref: 'cheese', available: false }],
      }),
      200,
    );
    const recorded = await events(v);
    assert.equal(recorded.length, 1);
    const cheeseId = (await call(t.app, 'GET', '/v1/availability', { key: v.key })).body.ingredients[0].id;
    const expected = {
      products: [{ ref: 'fries', id: ids.productIds.fries, available: false, until }],
      ingredients: [{ ref: 'cheese', id: cheeseId, available: false, until: null }],
    };
    assert.equal(recorded[0].type, 'menu.availability_changed');
    assert.deepEqual(recorded[0].data, expected);
    const delivered = await received((b) => b.type === 'menu.availability_changed');
    assert.deepEqual(delivered.data, expected);
    assert.equal(delivered.venueId, v.id);

    // Nothing changed: no event.
    expectStatus(
      await put({
        products: [
          { ref: 'fries', available: false, until },
          { ref: 'soda', available: true },
        ],
      }),
      200,
    );
    assert.equal((await events(v)).length, 1);
    // A refused PUT: no event.
    expectStatus(
      await put({
        products: [
          { ref: 'fries', available: true },
          { ref: 'p9', available: true },
        ],
      }),
      400,
    );
    assert.equal((await events(v)).length, 1);
    // A mark ending by itself: no event.
    now += 2 * HOUR;
    expectStatus(await call(t.app, 'GET', '/v1/availability', { key: v.key }), 200);
    assert.equal((await events(v)).length, 1);
    // Back on: available true, until null.
    expectStatus(await put({ ingredients: [{ ref: 'cheese', available: true }] }), 200);
    const all = await events(v);
    assert.equal(all.length, 2);
    assert.deepEqual(all[1].data, { products: [], ingredients: [{ ref: 'cheese', id: cheeseId, available: true, until: null }] });
  });

  it('is not recorded for a venue with no endpoint subscribed to it', async () => {
    now = START;
    const v = await createVenue(t.app, { plan: 'pro' });
    await setUpOrderMenu(t.app, v);
    expectStatus(
      await call(t.app, 'POST', '/v1/webhooks', {
        key: v.key,
        body: { url: `http://127.0.0.1:${receiver.port}/other`, events: ['menu.published'] },
      }),
      201,
    );
    expectStatus(
      await call(t.app, 'PUT', '/v1/availability', { key: v.key, body: { products: [{ ref: 'fries', available: false }] } }),
      200,
    );
    assert.deepEqual(await events(v), []);
  });
});
