import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';

const MENU_A = {
  categories: [{ externalId: 'a-cat', name: 'A category' }],
  ingredients: [{ externalId: 'a-ing', name: 'A ingredient' }],
  products: [
    {
      externalId: 'a-prod',
      name: 'A product',
      priceMinor: 1000,
      categoryExternalId: 'a-cat',
      ingredientExternalIds: ['a-ing'],
      modifierGroups: [{ name: 'A group', type: 'add_ingredients', options: [{ ingredientExternalId: 'a-ing' }] }],
    },
    { externalId: 'shared', name: 'A shared', priceMinor: 100 },
  ],
};

describe('tenant isolation', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  async function sync(key: string, body: unknown) {
    const res = await call(t.app, 'POST', '/v1/sync', { key, body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  async function readMenu(key: string) {
    const res = await call(t.app, 'GET', '/v1/menu', { key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  /** A key of another mode or access for an existing venue, through the operator API. */
  async function extraKey(venue: VenueFixture, mode: 'live' | 'test', readOnly = false): Promise<string> {
    const res = await admin(t.app, 'POST', `/venues/${venue.id}/api-keys`, { mode, readOnly });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.key;
  }

  /** Venue A with a menu, a publication and settings; venue B with its own small menu. */
  async function twoVenues() {
    const a = await createVenue(t.app);
    const b = await createVenue(t.app);
    await sync(a.key, MENU_A);
    assert.equal(
      (await call(t.app, 'PATCH', '/v1/settings', { key: a.key, body: { name: 'Venue A', enabledLanguages: ['en', 'uk'] } })).status,
      200,
    );
    await sync(b.key, { products: [{ externalId: 'shared', name: 'B shared', priceMinor: 200 }] });
    const menuA = await readMenu(a.key);
    return { a, b, menuA };
  }

  it("never shows A's menu to B's key", async () => {
    const { a, b } = await twoVenues();
    const menuB = await readMenu(b.key);
    assert.deepEqual(menuB.categories, []);
    assert.deepEqual(menuB.ingredients, []);
    assert.deepEqual(
      menuB.products.map((p: any) => p.name),
      ['B shared'],
    );

    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: a.key })).status, 201);
    const published = await call(t.app, 'GET', '/v1/menu?version=published', { key: b.key });
    assert.equal(published.status, 404, "A's publication is not B's");
    assert.equal(published.body.code, 'MENU_NOT_PUBLISHED');
  });

  it("answers 404 to GET, PATCH and DELETE of A's product by externalId or id with B's key", async () => {
    const { a, b, menuA } = await twoVenues();
    const product = menuA.products.find((p: any) => p.externalId === 'a-prod');
    for (const ref of ['a-prod', product.id]) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const res = await call(t.app, method, `/v1/products/${ref}`, {
          key: b.key,
          body: method === 'PATCH' ? { name: 'Hijacked' } : undefined,
        });
        assert.equal(res.status, 404, `${method} ${ref}`);
        assert.equal(res.body.code, 'PRODUCT_NOT_FOUND');
      }
    }
    const sharedA = menuA.products.find((p: any) => p.externalId === 'shared');
    const del = await call(t.app, 'DELETE', `/v1/products/${sharedA.id}`, { key: b.key });
    assert.equal(del.status, 404, "B cannot reach A's product by id even when B has one with the same externalId");

    // B's own product with the same externalId is B's alone.
    const patched = await call(t.app, 'PATCH', '/v1/products/shared', { key: b.key, body: { name: 'B renamed' } });
    assert.equal(patched.status, 200);
    assert.notEqual(patched.body.id, sharedA.id);
    const category = await call(t.app, 'PATCH', '/v1/products/shared', { key: b.key, body: { categoryRef: menuA.categories[0].id } });
    assert.equal(category.status, 404);
    assert.equal(category.body.code, 'CATEGORY_NOT_FOUND');

    assert.deepEqual(await readMenu(a.key), menuA, "A's menu is untouched");
  });

  it("keeps images apart: B cannot set or remove A's product image, and each venue has its own logo and blobs", async () => {
    const { a, b, menuA } = await twoVenues();
    const base64 = toBase64(await makeImage(400, 400));
    const imageA = await call(t.app, 'POST', '/v1/products/a-prod/image', {
      key: a.key,
      body: { base64: toBase64(await makeImage(400, 400, 'png', { colour: '#123456' })) },
    });
    assert.equal(imageA.status, 201);
    const logoA = await call(t.app, 'POST', '/v1/logo', { key: a.key, body: { base64 } });
    assert.equal(logoA.status, 201);
    const product = menuA.products.find((p: any) => p.externalId === 'a-prod');
    for (const ref of ['a-prod', product.id]) {
      const set = await call(t.app, 'POST', `/v1/products/${ref}/image`, { key: b.key, body: { base64 } });
      assert.equal(set.status, 404, `POST ${ref}`);
      assert.equal(set.body.code, 'PRODUCT_NOT_FOUND');
      const removed = await call(t.app, 'DELETE', `/v1/products/${ref}/image`, { key: b.key });
      assert.equal(removed.status, 404, `DELETE ${ref}`);
    }
    // B's logo calls act on B alone.
    assert.deepEqual((await call(t.app, 'DELETE', '/v1/logo', { key: b.key })).body, { deleted: false });
    assert.equal((await call(t.app, 'GET', '/v1/settings', { key: b.key })).body.logo, null);
    // The same bytes uploaded by B are B's own blob, under B's venue.
    const logoB = await call(t.app, 'POST', '/v1/logo', { key: b.key, body: { base64 } });
    assert.notEqual(logoB.body.imageUrl, logoA.body.imageUrl);
    assert.ok(logoB.body.imageUrl.includes(`/${b.id}/`));
    const keyA = new URL(imageA.body.imageUrl).pathname.split('/').pop();
    assert.equal((await t.app.inject({ method: 'GET', url: `/media/${b.id}/${keyA}` })).statusCode, 404, "A's blob is not under B's venue");

    const readA = await call(t.app, 'GET', '/v1/products/a-prod', { key: a.key });
    assert.equal(readA.body.imageUrl, imageA.body.imageUrl);
    assert.equal((await call(t.app, 'GET', '/v1/settings', { key: a.key })).body.logoUrl, logoA.body.imageUrl);
  });

  it("answers 404 to every merchandising route of A's banners, promotions, items and tables with B's key", async () => {
    const { a, b } = await twoVenues();
    const post = async (url: string, body: unknown) => {
      const res = await call(t.app, 'POST', url, { key: a.key, body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const banner = await post('/v1/banners', { title: 'A banner', externalId: 'shared-ext' });
    const promotion = await post('/v1/promotions', { name: 'A deal' });
    const item = await post(`/v1/promotions/${promotion.id}/items`, { productRef: 'a-prod', promoPriceMinor: 1 });
    const table = await post('/v1/tables', { name: 'A table' });
    const probes: [string, 'GET' | 'PATCH' | 'DELETE' | 'POST', string, unknown][] = [
      ['BANNER_NOT_FOUND', 'GET', `/v1/banners/${banner.id}`, undefined],
      ['BANNER_NOT_FOUND', 'PATCH', `/v1/banners/${banner.id}`, { title: 'x' }],
      ['BANNER_NOT_FOUND', 'DELETE', `/v1/banners/${banner.id}`, undefined],
      ['BANNER_NOT_FOUND', 'DELETE', `/v1/banners/${banner.id}/image`, undefined],
      ['PROMOTION_NOT_FOUND', 'GET', `/v1/promotions/${promotion.id}`, undefined],
      ['PROMOTION_NOT_FOUND', 'PATCH', `/v1/promotions/${promotion.id}`, { name: 'x' }],
      ['PROMOTION_NOT_FOUND', 'DELETE', `/v1/promotions/${promotion.id}`, undefined],
      ['PROMOTION_NOT_FOUND', 'GET', `/v1/promotions/${promotion.id}/items`, undefined],
      ['PROMOTION_NOT_FOUND', 'POST', `/v1/promotions/${promotion.id}/items`, { productRef: 'shared' }],
      ['PROMOTION_NOT_FOUND', 'PATCH', `/v1/promotions/${promotion.id}/items/${item.id}`, { sortOrder: 1 }],
      ['PROMOTION_NOT_FOUND', 'DELETE', `/v1/promotions/${promotion.id}/items/${item.id}`, undefined],
      ['TABLE_NOT_FOUND', 'GET', `/v1/tables/${table.id}`, undefined],
      ['TABLE_NOT_FOUND', 'PATCH', `/v1/tables/${table.id}`, { name: 'x' }],
      ['TABLE_NOT_FOUND', 'DELETE', `/v1/tables/${table.id}`, undefined],
      ['TABLE_NOT_FOUND', 'POST', `/v1/tables/${table.id}/regenerate-token`, undefined],
      ['TABLE_NOT_FOUND', 'GET', `/v1/tables/${table.id}/qr.svg`, undefined],
      ['TABLE_NOT_FOUND', 'GET', `/v1/tables/${table.id}/qr.png`, undefined],
    ];
    for (const [code, method, url, body] of probes) {
      const res = await call(t.app, method, url, { key: b.key, body });
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.equal(res.body.code, code, `${method} ${url}`);
    }
    // B's lists, sheet and usage are B's own; the same externalId and name are free for B.
    for (const url of ['/v1/banners', '/v1/promotions', '/v1/tables'])
      assert.equal((await call(t.app, 'GET', url, { key: b.key })).body.total, 0, url);
    const sheet = await t.app.inject({ method: 'GET', url: '/v1/tables/qr-sheet.svg', headers: { authorization: `Bearer ${b.key}` } });
    assert.ok(!sheet.body.includes('A table'));
    assert.equal((await call(t.app, 'POST', '/v1/banners', { key: b.key, body: { title: 'B', externalId: 'shared-ext' } })).status, 201);
    assert.equal((await call(t.app, 'POST', '/v1/tables', { key: b.key, body: { name: 'A table' } })).status, 201);
    // A's product cannot be put in B's promotion or banner.
    const bPromotion = (await call(t.app, 'POST', '/v1/promotions', { key: b.key, body: { name: 'B deal' } })).body;
    assert.equal(
      (await call(t.app, 'POST', `/v1/promotions/${bPromotion.id}/items`, { key: b.key, body: { productRef: 'a-prod' } })).body.code,
      'PRODUCT_NOT_FOUND',
    );
    assert.equal(
      (await call(t.app, 'POST', '/v1/banners', { key: b.key, body: { title: 'x', productRef: 'a-prod' } })).body.code,
      'PRODUCT_NOT_FOUND',
    );
    // A is untouched.
    assert.equal((await call(t.app, 'GET', `/v1/promotions/${promotion.id}`, { key: a.key })).body.items.length, 1);
    assert.equal((await call(t.app, 'GET', '/v1/reference', { key: a.key })).body.planLimits.usage.tables, 1);
  });

  it("lists A's refs as notFound in B's cleanup and translations, and leaves A untouched", async () => {
    const { a, b, menuA } = await twoVenues();
    const [product] = menuA.products.filter((p: any) => p.externalId === 'a-prod');
    const cleanup = await call(t.app, 'POST', '/v1/cleanup', {
      key: b.key,
      body: {
        items: [
          { type: 'product', ref: 'a-prod' },
          { type: 'product', ref: product.id },
          { type: 'category', ref: 'a-cat' },
          { type: 'category', ref: menuA.categories[0].id },
          { type: 'ingredient', ref: 'a-ing' },
          { type: 'ingredient', ref: menuA.ingredients[0].id },
        ],
      },
    });
    assert.equal(cleanup.status, 201);
    assert.deepEqual([cleanup.body.products.hidden, cleanup.body.categories.deleted, cleanup.body.ingredients.deleted], [0, 0, 0]);
    assert.equal(cleanup.body.notFound.length, 6);

    await call(t.app, 'PATCH', '/v1/settings', { key: b.key, body: { enabledLanguages: ['en', 'uk'] } });
    const translations = await call(t.app, 'PUT', '/v1/translations', {
      key: b.key,
      body: {
        products: [
          { ref: 'a-prod', translations: { uk: { name: 'X' } } },
          { ref: product.id, translations: { uk: { name: 'X' } } },
        ],
        categories: [{ ref: 'a-cat', translations: { uk: { name: 'X' } } }],
        ingredients: [{ ref: menuA.ingredients[0].id, translations: { uk: { name: 'X' } } }],
        modifierGroups: [{ id: product.modifierGroups[0].id, translations: { uk: { name: 'X' } } }],
      },
    });
    assert.equal(translations.status, 200);
    assert.deepEqual([translations.body.applied, translations.body.notFound.length], [0, 5]);

    assert.deepEqual(await readMenu(a.key), menuA);
  });

  it("refuses A's refs in B's PUT /v1/availability (400, nothing written) and never lists A's marks to B", async () => {
    const { a, b, menuA } = await twoVenues();
    const [product] = menuA.products.filter((p: any) => p.externalId === 'a-prod');
    const marked = await call(t.app, 'PUT', '/v1/availability', {
      key: a.key,
      body: { products: [{ ref: 'shared', available: false }], ingredients: [{ ref: 'a-ing', available: false }] },
    });
    assert.equal(marked.status, 200, JSON.stringify(marked.body));
    const menuMarked = await readMenu(a.key);
    const listA = (await call(t.app, 'GET', '/v1/availability', { key: a.key })).body;
    assert.deepEqual([listA.products.map((p: any) => p.name), listA.ingredients.map((i: any) => i.name)], [['A shared'], ['A ingredient']]);

    // B has a product 'shared' of its own: B's marks are B's; A's ids are unknown to B.
    assert.deepEqual((await call(t.app, 'GET', '/v1/availability', { key: b.key })).body, { products: [], ingredients: [] });
    const foreign = await call(t.app, 'PUT', '/v1/availability', {
      key: b.key,
      body: {
        products: [
          { ref: product.id, available: false },
          { ref: 'a-prod', available: false },
        ],
        ingredients: [{ ref: menuA.ingredients[0].id, available: false }],
      },
    });
    assert.equal(foreign.status, 400);
    assert.deepEqual(foreign.body.errors, [
      `products[0].ref "${product.id}" not found`,
      'products[1].ref "a-prod" not found',
      `ingredients[0].ref "${menuA.ingredients[0].id}" not found`,
    ]);
    const own = await call(t.app, 'PUT', '/v1/availability', { key: b.key, body: { products: [{ ref: 'shared', available: true }] } });
    assert.deepEqual(
      own.body,
      { products: { updated: 0 }, ingredients: { updated: 0 } },
      "A's mark on its own 'shared' is not B's to clear",
    );
    assert.equal(
      (await call(t.app, 'PUT', '/v1/availability', { key: b.key, body: { products: [{ ref: 'shared', available: false }] } })).status,
      200,
    );
    const readB = await readMenu(b.key);
    assert.equal(readB.products[0].availability.reason, 'sold_out');

    assert.deepEqual(await readMenu(a.key), menuMarked, "A's menu and marks are as A left them");
    assert.deepEqual((await call(t.app, 'GET', '/v1/availability', { key: a.key })).body, listA);
    assert.deepEqual(
      (await call(t.app, 'GET', '/v1/availability', { key: b.key })).body.products.map((p: any) => p.name),
      ['B shared'],
    );
  });

  it('shows each venue only its own audit entries, settings and plan usage', async () => {
    const { a, b } = await twoVenues();
    const logA = await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: a.key });
    const logB = await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: b.key });
    assert.deepEqual(
      logA.body.items.map((e: any) => e.action),
      ['settings.update', 'menu.sync'],
    );
    assert.deepEqual(
      logB.body.items.map((e: any) => e.action),
      ['menu.sync'],
    );
    const idsA = new Set(logA.body.items.map((e: any) => e.id));
    assert.ok(logB.body.items.every((e: any) => !idsA.has(e.id)));
    assert.equal((await call(t.app, 'GET', '/v1/audit-log?action=settings.update', { key: b.key })).body.total, 0);

    const settingsA = await call(t.app, 'GET', '/v1/settings', { key: a.key });
    const settingsB = await call(t.app, 'GET', '/v1/settings', { key: b.key });
    assert.deepEqual([settingsA.body.name, settingsA.body.enabledLanguages], ['Venue A', ['en', 'uk']]);
    assert.notEqual(settingsB.body.name, 'Venue A');
    assert.deepEqual(settingsB.body.enabledLanguages, ['en']);
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: b.key, body: { cardStyle: 'premium' } })).status, 200);
    assert.equal((await call(t.app, 'GET', '/v1/settings', { key: a.key })).body.cardStyle, 'minimalism');

    const usage = async (key: string) => (await call(t.app, 'GET', '/v1/reference', { key })).body.planLimits.usage;
    assert.deepEqual(await usage(a.key), { products: 2, categories: 1, ingredients: 1, banners: 0, tables: 0 });
    assert.deepEqual(await usage(b.key), { products: 1, categories: 0, ingredients: 0, banners: 0, tables: 0 });
  });

  it('keeps live and test (sandbox) data apart for the same venue', async () => {
    const venue = await createVenue(t.app, { mode: 'test' });
    const testKey = venue.key;
    assert.match(testKey, /^carta_test_/);
    const liveKey = await extraKey(venue, 'live');

    await sync(liveKey, {
      categories: [{ externalId: 'cat', name: 'Live category' }],
      products: [{ externalId: 'p1', name: 'Live product', priceMinor: 100 }],
    });
    const liveMenu = await readMenu(liveKey);
    const liveProduct = liveMenu.products[0];

    assert.deepEqual((await readMenu(testKey)).products, [], 'the sandbox starts empty');
    for (const ref of ['p1', liveProduct.id]) {
      const res = await call(t.app, 'GET', `/v1/products/${ref}`, { key: testKey });
      assert.equal(res.status, 404, ref);
    }
    const patchLive = await call(t.app, 'PATCH', `/v1/products/${liveProduct.id}`, { key: testKey, body: { name: 'From sandbox' } });
    assert.equal(patchLive.status, 404);

    await sync(testKey, { products: [{ externalId: 'p1', name: 'Sandbox product', priceMinor: 1 }] });
    assert.deepEqual(
      (await readMenu(testKey)).products.map((p: any) => p.name),
      ['Sandbox product'],
    );
    assert.deepEqual(
      (await readMenu(liveKey)).products.map((p: any) => p.name),
      ['Live product'],
    );

    const cleanup = await call(t.app, 'POST', '/v1/cleanup', { key: testKey, body: { items: [], force: true } });
    assert.equal(cleanup.status, 201);
    assert.deepEqual([cleanup.body.products.hidden, cleanup.body.categories.deleted], [1, 0]);
    assert.deepEqual(await readMenu(liveKey), liveMenu, 'cleaning the sandbox leaves live data alone');

    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: testKey })).status, 201);
    assert.equal((await call(t.app, 'GET', '/v1/menu?version=published', { key: liveKey })).status, 404);

    const auditLive = await call(t.app, 'GET', '/v1/audit-log', { key: liveKey });
    const auditTest = await call(t.app, 'GET', '/v1/audit-log', { key: testKey });
    assert.deepEqual(
      auditLive.body.items.map((e: any) => e.action),
      ['menu.sync'],
    );
    assert.deepEqual(
      auditTest.body.items.map((e: any) => e.action),
      ['menu.publish', 'menu.cleanup', 'menu.sync'],
    );

    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: testKey, body: { timezone: 'Asia/Tokyo' } })).status, 200);
    assert.notEqual((await call(t.app, 'GET', '/v1/settings', { key: liveKey })).body.timezone, 'Asia/Tokyo');
    const usage = async (key: string) => (await call(t.app, 'GET', '/v1/reference', { key })).body.planLimits.usage;
    assert.deepEqual([(await usage(liveKey)).categories, (await usage(testKey)).categories], [1, 0]);
  });

  describe('read-only keys', () => {
    it('read every resource', async () => {
      const v = await createVenue(t.app, { readOnly: true });
      const writer = await extraKey(v, 'live');
      await sync(writer, { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
      const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
      assert.equal(menu.status, 200);
      assert.deepEqual(
        menu.body.products.map((p: any) => p.externalId),
        ['p1'],
      );
      for (const url of ['/v1/products/p1', '/v1/settings', '/v1/reference', '/v1/audit-log']) {
        assert.equal((await call(t.app, 'GET', url, { key: v.key })).status, 200, url);
      }
    });

    it('are refused every write with 403 READ_ONLY_KEY, and nothing changes', async () => {
      const v = await createVenue(t.app, { readOnly: true });
      const writer = await extraKey(v, 'live');
      await sync(writer, { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
      const before = await readMenu(writer);

      const writes: [string, 'POST' | 'PATCH' | 'PUT' | 'DELETE', string, unknown][] = [
        ['sync', 'POST', '/v1/sync', { products: [{ externalId: 'p2', name: 'Coffee', priceMinor: 200 }] }],
        ['patch unknown product', 'PATCH', '/v1/products/x', { name: 'X' }],
        ['patch product', 'PATCH', '/v1/products/p1', { name: 'X' }],
        ['delete', 'DELETE', '/v1/products/p1', undefined],
        ['publish', 'POST', '/v1/publish', undefined],
        ['cleanup', 'POST', '/v1/cleanup', { items: [], force: true }],
        ['settings', 'PATCH', '/v1/settings', { name: 'X' }],
        ['translations', 'PUT', '/v1/translations', { products: [{ ref: 'p1', translations: { en: { name: 'X' } } }] }],
        ['availability', 'PUT', '/v1/availability', { products: [{ ref: 'p1', available: false }] }],
        ['product image', 'POST', '/v1/products/p1/image', { base64: 'aGk=' }],
        ['product image delete', 'DELETE', '/v1/products/p1/image', undefined],
        ['logo', 'POST', '/v1/logo', { base64: 'aGk=' }],
        ['logo delete', 'DELETE', '/v1/logo', undefined],
        ['banner', 'POST', '/v1/banners', { title: 'X' }],
        ['promotion', 'POST', '/v1/promotions', { name: 'X' }],
        ['table', 'POST', '/v1/tables', { name: 'X' }],
        ['webhook endpoint', 'POST', '/v1/webhooks', { url: 'https://pos.example.com/hooks', events: ['order.created'] }],
      ];
      for (const [label, method, url, body] of writes) {
        const res = await call(t.app, method, url, { key: v.key, body });
        assert.equal(res.status, 403, label);
        assert.equal(res.body.code, 'READ_ONLY_KEY', label);
      }
      assert.deepEqual(await readMenu(writer), before);
      assert.equal((await call(t.app, 'GET', '/v1/menu?version=published', { key: writer })).status, 404);
      assert.deepEqual(
        (await call(t.app, 'GET', '/v1/audit-log', { key: writer })).body.items.map((e: any) => e.action),
        ['menu.sync'],
      );
    });
  });
});
