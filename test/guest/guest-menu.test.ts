import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { expectStatus, ORDER_MENU, publish, setUpOrderMenu } from '../helpers/orders.js';

// GET /guest/v1/venues/:slug/menu: the latest published snapshot as guests see it.
describe('guest menu', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const guestMenu = (slug: string, query = '', headers: Record<string, string> = {}) =>
    call(t.app, 'GET', `/guest/v1/venues/${slug}/menu${query}`, { headers });

  async function sync(v: VenueFixture, body: unknown) {
    const res = await call(t.app, 'POST', '/v1/sync', { key: v.key, body });
    expectStatus(res, 201);
    for (const section of ['categories', 'ingredients', 'products'] as const) assert.deepEqual(res.body[section]?.errors ?? [], []);
    return res.body;
  }

  const names = (body: any) => body.products.map((p: any) => p.name);

  it('is public: answers without an API key', async () => {
    const v = await createVenue(t.app);
    await setUpOrderMenu(t.app, v, { orderConfig: null });
    const res = await guestMenu(v.slug);
    expectStatus(res, 200);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.equal(res.body.venue.slug, v.slug);
    assert.equal(res.body.venue.currency, 'EUR');
  });

  it('answers 404 for an unknown slug', async () => {
    const res = await guestMenu('no-such-venue-anywhere');
    assert.equal(res.status, 404);
    assert.equal(res.body.statusCode, 404);
  });

  it('answers 404 MENU_NOT_PUBLISHED for a venue that has synced but never published', async () => {
    const v = await createVenue(t.app);
    await sync(v, ORDER_MENU);
    const res = await guestMenu(v.slug);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'MENU_NOT_PUBLISHED');
  });

  it('shows only active categories and visible products', async () => {
    const v = await createVenue(t.app);
    await setUpOrderMenu(t.app, v, { orderConfig: null });
    const cleanup = await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'product', ref: 'soda' }] } });
    expectStatus(cleanup, 201);
    await publish(t.app, v);

    const res = await guestMenu(v.slug);
    expectStatus(res, 200);
    assert.deepEqual(
      res.body.categories.map((c: any) => c.name),
      ['Mains'],
    );
    // secret: menuVisible false; frozen: its category is inactive; soda: cleaned up.
    assert.deepEqual(names(res.body), ['Burger', 'Fries']);
    for (const p of res.body.products)
      assert.ok(
        res.body.categories.some((c: any) => c.id === p.categoryId),
        p.name,
      );
  });

  it('computes effectivePriceMinor: the sale price while isSaleActive and set, else priceMinor', async () => {
    const v = await createVenue(t.app);
    await setUpOrderMenu(t.app, v, { orderConfig: null });
    const res = await guestMenu(v.slug);
    const byName = new Map<string, any>(res.body.products.map((p: any) => [p.name, p]));
    assert.equal(byName.get('Fries').effectivePriceMinor, 400); // sale active
    assert.equal(byName.get('Soda').effectivePriceMinor, 300); // sale price set, not active
    assert.equal(byName.get('Burger').effectivePriceMinor, 1000); // no sale price

    // Sale active, then the sale price cleared: back to priceMinor.
    await sync(v, { products: [{ externalId: 'fries', name: 'Fries', priceMinor: 500, salePriceMinor: null, isSaleActive: false }] });
    await publish(t.app, v);
    const after = await guestMenu(v.slug);
    const fries = after.body.products.find((p: any) => p.name === 'Fries');
    assert.equal(fries.effectivePriceMinor, 500);
    assert.equal(fries.salePriceMinor, null);
  });

  it('gives every modifier group and option an id', async () => {
    const v = await createVenue(t.app);
    await setUpOrderMenu(t.app, v, { orderConfig: null });
    const res = await guestMenu(v.slug);
    const burger = res.body.products.find((p: any) => p.name === 'Burger');
    assert.deepEqual(
      burger.modifierGroups.map((g: any) => [g.name, g.type, g.isRequired]),
      [
        ['Bun', 'single_choice', true],
        ['Extras', 'add_ingredients', false],
        ['Remove', 'remove_ingredients', false],
      ],
    );
    const ids = new Set<string>();
    for (const g of burger.modifierGroups) {
      assert.equal(typeof g.id, 'string');
      for (const o of g.options) {
        assert.equal(typeof o.id, 'string');
        assert.ok(o.id.length > 0);
        ids.add(o.id);
      }
    }
    assert.equal(ids.size, 6);
    const extras = burger.modifierGroups[1].options.map((o: any) => [o.name, o.action, o.priceAdjustment]);
    assert.deepEqual(extras, [
      ['Cheese', 'add', 100],
      ['Bacon', 'add', 200],
    ]);
    assert.deepEqual(
      burger.modifierGroups[2].options.map((o: any) => o.action),
      ['remove', 'remove'],
    );
  });

  it('resolves names to ?locale=, falling back to the venue default language', async () => {
    const v = await createVenue(t.app);
    expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk', 'de'] } }), 200);
    await sync(v, {
      categories: [{ externalId: 'mains', name: 'Mains', translations: { uk: { name: 'Основні' } } }],
      ingredients: [
        { externalId: 'cheese', name: 'Cheese', translations: { uk: { name: 'Сир' }, de: { name: 'Käse' } } },
        { externalId: 'onion', name: 'Onion' },
      ],
      products: [
        {
          externalId: 'burger',
          name: 'Burger',
          description: 'Beef',
          priceMinor: 1000,
          categoryExternalId: 'mains',
          sortOrder: 1,
          translations: { uk: { name: 'Бургер', description: 'Яловичина' }, de: { name: 'Burger DE' } },
          modifierGroups: [
            {
              name: 'Extras',
              type: 'add_ingredients',
              translations: { uk: { name: 'Додатки' } },
              options: [{ ingredientExternalId: 'cheese', priceAdjustment: 100 }, { ingredientExternalId: 'onion' }],
            },
          ],
        },
        { externalId: 'fries', name: 'Fries', priceMinor: 500, categoryExternalId: 'mains', sortOrder: 2 },
      ],
    });
    await publish(t.app, v);

    const uk = await guestMenu(v.slug, '?locale=uk');
    expectStatus(uk, 200);
    assert.equal(uk.body.locale, 'uk');
    assert.deepEqual(
      uk.body.categories.map((c: any) => c.name),
      ['Основні'],
    );
    assert.deepEqual(names(uk.body), ['Бургер', 'Fries']); // fries has no uk name: default
    const burgerUk = uk.body.products[0];
    assert.equal(burgerUk.description, 'Яловичина');
    assert.equal(burgerUk.modifierGroups[0].name, 'Додатки');
    assert.deepEqual(
      burgerUk.modifierGroups[0].options.map((o: any) => o.name),
      ['Сир', 'Onion'],
    );

    const de = await guestMenu(v.slug, '?locale=de');
    assert.equal(de.body.locale, 'de');
    assert.equal(de.body.products[0].name, 'Burger DE');
    assert.equal(de.body.products[0].description, 'Beef'); // no de description: default
    assert.equal(de.body.categories[0].name, 'Mains');
    assert.deepEqual(
      de.body.products[0].modifierGroups[0].options.map((o: any) => o.name),
      ['Käse', 'Onion'],
    );

    // No locale, or one that is not a language at all: the venue default.
    for (const query of ['', '?locale=xx']) {
      const res = await guestMenu(v.slug, query);
      assert.equal(res.body.locale, 'en', query);
      assert.deepEqual(names(res.body), ['Burger', 'Fries'], query);
    }

    // With uk as the default language, an untranslated locale falls back to the uk names.
    expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { defaultLanguage: 'uk' } }), 200);
    const fr = await guestMenu(v.slug, '?locale=fr');
    expectStatus(fr, 200);
    assert.equal(fr.body.venue.defaultLanguage, 'uk');
    assert.deepEqual(names(fr.body), ['Бургер', 'Fries']);
    assert.equal(fr.body.categories[0].name, 'Основні');
  });

  it('keeps draft changes invisible until the next publish', async () => {
    const v = await createVenue(t.app);
    await setUpOrderMenu(t.app, v, { orderConfig: null });
    const first = await guestMenu(v.slug);
    await sync(v, {
      products: [
        { externalId: 'burger', name: 'Burger Deluxe', priceMinor: 1200 },
        { externalId: 'shake', name: 'Shake', priceMinor: 600, categoryExternalId: 'mains' },
        { externalId: 'fries', name: 'Fries', priceMinor: 500, menuVisible: false },
      ],
    });

    const draft = await guestMenu(v.slug);
    assert.deepEqual(names(draft.body), ['Burger', 'Fries', 'Soda']);
    assert.equal(draft.body.publicationId, first.body.publicationId);
    assert.equal(draft.body.products[0].effectivePriceMinor, 1000);

    const publicationId = await publish(t.app, v);
    const published = await guestMenu(v.slug);
    assert.equal(published.body.publicationId, publicationId);
    assert.deepEqual(names(published.body).sort(), ['Burger Deluxe', 'Shake', 'Soda']);
    assert.equal(published.body.products.find((p: any) => p.name === 'Burger Deluxe').effectivePriceMinor, 1200);
  });

  it('sends an ETag and answers 304 to a matching If-None-Match; a new publish changes it', async () => {
    const v = await createVenue(t.app);
    await setUpOrderMenu(t.app, v, { orderConfig: null });
    const first = await guestMenu(v.slug);
    const etag = first.headers.etag as string;
    assert.ok(etag, 'etag header');

    const again = await guestMenu(v.slug, '', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.raw.body, '');
    assert.equal(again.headers.etag, etag);

    // A locale the venue has not enabled falls back to the default: the same representation.
    const fallback = await guestMenu(v.slug, '?locale=de', { 'if-none-match': etag });
    assert.equal(fallback.status, 304);
    // An enabled locale is another representation.
    await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'de'] } });
    const other = await guestMenu(v.slug, '?locale=de', { 'if-none-match': etag });
    assert.equal(other.status, 200);
    assert.equal(other.body.locale, 'de');

    await sync(v, { products: [{ externalId: 'burger', name: 'Burger 2', priceMinor: 1000 }] });
    await publish(t.app, v);
    const changed = await guestMenu(v.slug, '', { 'if-none-match': etag });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.ok(names(changed.body).includes('Burger 2'));
  });

  it('serves the sandbox slug from the data a test key wrote, apart from the live venue', async () => {
    const v = await createVenue(t.app, { mode: 'test' });
    const venue = await admin(t.app, 'GET', `/venues/${v.id}`);
    expectStatus(venue, 200);
    const sandboxSlug = venue.body.sandbox.slug as string;
    assert.equal(sandboxSlug, `${v.slug}-sandbox`);

    await setUpOrderMenu(t.app, v, { orderConfig: null, slug: sandboxSlug });
    const sandbox = await guestMenu(sandboxSlug);
    expectStatus(sandbox, 200);
    assert.equal(sandbox.body.venue.slug, sandboxSlug);
    assert.deepEqual(names(sandbox.body), ['Burger', 'Fries', 'Soda']);

    // Nothing was published to the live venue.
    const live = await guestMenu(v.slug);
    assert.equal(live.status, 404);
    assert.equal(live.body.code, 'MENU_NOT_PUBLISHED');
  });
});
