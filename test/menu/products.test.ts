import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture, syncOk } from '../helpers/app.js';

const FULL_PRODUCT = {
  externalId: 'p1',
  name: 'Cheesecake',
  description: 'Baked',
  priceMinor: 900,
  salePriceMinor: 700,
  isSaleActive: false,
  amount: 150,
  unit: 'G',
  badgeLabel: 'Hit',
  badgeColor: 'RED',
  categoryExternalId: 'desserts',
  ingredientExternalIds: ['cheese'],
  sortOrder: 3,
};

describe('GET, PATCH and DELETE /v1/products/:ref', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const sync = (v: VenueFixture, body: unknown) => syncOk(t.app, v, body);

  /** A venue with two categories, an ingredient and one fully populated product p1. */
  async function seeded(): Promise<VenueFixture> {
    const v = await createVenue(t.app);
    await sync(v, {
      categories: [
        { externalId: 'desserts', name: 'Desserts' },
        { externalId: 'cakes', name: 'Cakes' },
      ],
      ingredients: [{ externalId: 'cheese', name: 'Cheese' }],
      products: [FULL_PRODUCT],
    });
    return v;
  }

  async function getProduct(v: VenueFixture, ref: string) {
    const res = await call(t.app, 'GET', `/v1/products/${encodeURIComponent(ref)}`, { key: v.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res;
  }

  function patch(v: VenueFixture, ref: string, body: unknown, headers: Record<string, string> = {}) {
    return call(t.app, 'PATCH', `/v1/products/${encodeURIComponent(ref)}`, { key: v.key, body, headers });
  }

  async function auditEntries(v: VenueFixture, action: string) {
    const res = await call(t.app, 'GET', `/v1/audit-log?action=${action}&limit=100`, { key: v.key });
    assert.equal(res.status, 200);
    return res.body.items;
  }

  describe('GET', () => {
    it('reads one product by externalId and by id, in the menu read shape, with an ETag', async () => {
      const v = await seeded();
      const byExternalId = await getProduct(v, 'p1');
      const byId = await getProduct(v, byExternalId.body.id);
      assert.deepEqual(byId.body, byExternalId.body);
      assert.equal(byId.headers.etag, byExternalId.headers.etag);
      assert.match(byExternalId.headers.etag as string, /^"[^"]+"$/);
      const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
      assert.deepEqual(byExternalId.body, menu.body.products[0]);
    });

    it('answers If-None-Match with the current ETag by 304', async () => {
      const v = await seeded();
      const first = await getProduct(v, 'p1');
      const res = await call(t.app, 'GET', '/v1/products/p1', { key: v.key, headers: { 'if-none-match': first.headers.etag as string } });
      assert.equal(res.status, 304);
      assert.equal(res.raw.body, '');
    });

    it('gives the ETag that PATCH returns', async () => {
      const v = await seeded();
      const patched = await patch(v, 'p1', { name: 'New York cheesecake' });
      assert.equal(patched.status, 200);
      const read = await getProduct(v, 'p1');
      assert.equal(read.headers.etag, patched.headers.etag);
      assert.deepEqual(read.body, patched.body);
    });

    it('answers 404 PRODUCT_NOT_FOUND for an unknown externalId or id', async () => {
      const v = await seeded();
      for (const ref of ['nope', '01900000-0000-7000-8000-000000000000']) {
        const res = await call(t.app, 'GET', `/v1/products/${ref}`, { key: v.key });
        assert.equal(res.status, 404, ref);
        assert.equal(res.body.code, 'PRODUCT_NOT_FOUND');
      }
    });
  });

  describe('PATCH', () => {
    it('keeps every omitted field', async () => {
      const v = await seeded();
      const before = (await getProduct(v, 'p1')).body;
      const res = await patch(v, 'p1', { name: 'Renamed' });
      assert.equal(res.status, 200);
      assert.deepEqual({ ...res.body, updatedAt: null }, { ...before, name: 'Renamed', updatedAt: null });
    });

    it('clears each nullable field with null', async () => {
      const v = await seeded();
      const res = await patch(v, 'p1', {
        salePriceMinor: null,
        badgeLabel: null,
        badgeColor: null,
        description: null,
        amount: null,
        unit: null,
        categoryRef: null,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const p = res.body;
      assert.deepEqual(
        [p.salePriceMinor, p.badgeLabel, p.badgeColor, p.description, p.amount, p.unit, p.categoryId, p.categoryExternalId],
        [null, null, null, null, null, null, null, null],
      );
      assert.equal(p.name, 'Cheesecake');
      assert.deepEqual(p.ingredients, [{ externalId: 'cheese', name: 'Cheese' }]);
      assert.deepEqual((await getProduct(v, 'p1')).body, p);
    });

    it('sets every patchable field to a value', async () => {
      const v = await seeded();
      const res = await patch(v, 'p1', {
        name: 'Tiramisu',
        description: 'Coffee and mascarpone',
        priceMinor: 1100,
        salePriceMinor: 990,
        isSaleActive: true,
        amount: 2,
        unit: 'PCS',
        badgeLabel: 'Chef',
        badgeColor: 'PURPLE',
        sortOrder: -4,
        menuVisible: false,
        categoryRef: 'cakes',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { id: _id, updatedAt: _u, imageUrl: _i, image: _img, categoryId: _c, ...rest } = res.body;
      assert.deepEqual(rest, {
        externalId: 'p1',
        name: 'Tiramisu',
        description: 'Coffee and mascarpone',
        priceMinor: 1100,
        salePriceMinor: 990,
        isSaleActive: true,
        amount: 2,
        unit: 'PCS',
        badgeLabel: 'Chef',
        badgeColor: 'PURPLE',
        categoryExternalId: 'cakes',
        ingredients: [{ externalId: 'cheese', name: 'Cheese' }],
        modifierGroups: [],
        sortOrder: -4,
        menuVisible: false,
        translations: {},
        allergens: [],
        effectiveAllergens: [],
        mayContain: [],
        dietaryLabels: [],
        spiceLevel: null,
        calories: null,
        nutrition: null,
        availability: { available: true, until: null, reason: null },
      });
    });

    it('takes categoryRef as an externalId or an opaque id', async () => {
      const v = await seeded();
      const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
      const cakes = menu.body.categories.find((c: any) => c.externalId === 'cakes');
      const byId = await patch(v, 'p1', { categoryRef: cakes.id });
      assert.equal(byId.status, 200);
      assert.deepEqual([byId.body.categoryId, byId.body.categoryExternalId], [cakes.id, 'cakes']);
      const byExternalId = await patch(v, 'p1', { categoryRef: 'desserts' });
      assert.equal(byExternalId.status, 200);
      assert.equal(byExternalId.body.categoryExternalId, 'desserts');
    });

    it('answers 404 CATEGORY_NOT_FOUND for an unknown categoryRef and changes nothing', async () => {
      const v = await seeded();
      const before = await getProduct(v, 'p1');
      const res = await patch(v, 'p1', { name: 'Changed', categoryRef: 'no-such-category' });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'CATEGORY_NOT_FOUND');
      const after = await getProduct(v, 'p1');
      assert.deepEqual(after.body, before.body);
      assert.equal(after.headers.etag, before.headers.etag);
    });

    it('answers 404 PRODUCT_NOT_FOUND for an unknown product', async () => {
      const v = await seeded();
      const res = await patch(v, 'nope', { name: 'X' });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'PRODUCT_NOT_FOUND');
    });

    it('rejects fields that PATCH does not take (externalId, composition, groups, categoryExternalId) with 400', async () => {
      const v = await seeded();
      const bodies = [
        { externalId: 'p2' },
        { ingredientExternalIds: [] },
        { modifierGroups: [] },
        { categoryExternalId: 'cakes' },
        { colour: 'red' },
      ];
      for (const body of bodies) {
        const res = await patch(v, 'p1', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.message, 'Validation failed');
        assert.deepEqual(res.body.errors, [`${Object.keys(body)[0]} is not allowed`]);
      }
      assert.equal((await getProduct(v, 'p1')).body.externalId, 'p1');
    });

    it('rejects values outside the field rules with 400', async () => {
      const v = await seeded();
      for (const body of [
        { priceMinor: -1 },
        { name: null },
        { badgeColor: 'PINK' },
        { badgeLabel: 'x'.repeat(17) },
        { priceMinor: '100' },
      ]) {
        const res = await patch(v, 'p1', body);
        assert.equal(res.status, 400, JSON.stringify(body));
      }
    });

    it('merges translations, and rejects an unsupported locale with 400 INVALID_LOCALE', async () => {
      const v = await seeded();
      const settings = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk', 'de'] } });
      assert.equal(settings.status, 200);

      let res = await patch(v, 'p1', { translations: { uk: { name: 'Чізкейк', description: 'Запечений' }, de: { name: 'Käsekuchen' } } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      res = await patch(v, 'p1', { translations: { uk: { name: 'Сирник', description: '' } } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.translations, { uk: { name: 'Сирник' }, de: { name: 'Käsekuchen' } });

      const invalid = await patch(v, 'p1', { name: 'Changed', translations: { xx: { name: 'X' } } });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.code, 'INVALID_LOCALE');
      const notEnabled = await patch(v, 'p1', { translations: { fr: { name: 'Gâteau' } } });
      assert.equal(notEnabled.status, 400);
      assert.equal(notEnabled.body.code, 'LOCALE_NOT_ENABLED');
      const blank = await patch(v, 'p1', { translations: { de: { name: '   ' } } });
      assert.equal(blank.status, 400);
      assert.equal(blank.body.code, 'EMPTY_TRANSLATION');

      const after = (await getProduct(v, 'p1')).body;
      assert.equal(after.name, 'Cheesecake');
      assert.deepEqual(after.translations, { uk: { name: 'Сирник' }, de: { name: 'Käsekuchen' } });
    });

    it('rejects isSaleActive true with no sale price sent or stored (400), and accepts it with one stored', async () => {
      const v = await seeded();
      const cleared = await patch(v, 'p1', { salePriceMinor: null });
      assert.equal(cleared.status, 200);
      const res = await patch(v, 'p1', { isSaleActive: true });
      assert.equal(res.status, 400);
      assert.equal(res.body.message, 'Validation failed');
      const both = await patch(v, 'p1', { isSaleActive: true, salePriceMinor: null });
      assert.equal(both.status, 400);
      assert.equal((await getProduct(v, 'p1')).body.isSaleActive, false);

      const withPrice = await patch(v, 'p1', { isSaleActive: true, salePriceMinor: 500 });
      assert.equal(withPrice.status, 200);
      assert.deepEqual([withPrice.body.isSaleActive, withPrice.body.salePriceMinor], [true, 500]);
      const clearWhileActive = await patch(v, 'p1', { salePriceMinor: null });
      assert.equal(clearWhileActive.status, 400, 'clearing the price of an active sale is the same rule');
    });

    it('answers 200 with the product and an ETag; If-Match with the current ETag succeeds', async () => {
      const v = await seeded();
      const read = await getProduct(v, 'p1');
      const res = await patch(v, 'p1', { priceMinor: 950 }, { 'if-match': read.headers.etag as string });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.priceMinor, 950);
      assert.match(res.headers.etag as string, /^"[^"]+"$/);
      assert.notEqual(res.headers.etag, read.headers.etag);

      const chained = await patch(v, 'p1', { priceMinor: 960 }, { 'if-match': res.headers.etag as string });
      assert.equal(chained.status, 200);
    });

    it('fails with 412 STALE_RESOURCE on a stale If-Match and changes nothing', async () => {
      const v = await seeded();
      const stale = (await getProduct(v, 'p1')).headers.etag as string;
      assert.equal((await patch(v, 'p1', { priceMinor: 950 })).status, 200);
      const before = await getProduct(v, 'p1');

      const res = await patch(v, 'p1', { name: 'Lost update' }, { 'if-match': stale });
      assert.equal(res.status, 412);
      assert.equal(res.body.code, 'STALE_RESOURCE');
      const after = await getProduct(v, 'p1');
      assert.deepEqual(after.body, before.body);
      assert.equal(after.headers.etag, before.headers.etag);
      assert.equal((await auditEntries(v, 'product.update')).length, 1, 'the rejected patch is not audited');
    });

    it('lets only one of two concurrent patches with the same If-Match through (no lost update)', async () => {
      const v = await seeded();
      const etag = (await getProduct(v, 'p1')).headers.etag as string;
      const results = await Promise.all([
        patch(v, 'p1', { name: 'Writer one' }, { 'if-match': etag }),
        patch(v, 'p1', { name: 'Writer two' }, { 'if-match': etag }),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 412]);
      const winner = results.find((r) => r.status === 200)!;
      assert.equal((await getProduct(v, 'p1')).body.name, winner.body.name);
      assert.equal((await auditEntries(v, 'product.update')).length, 1);
    });

    it('moves the ETag on every change of the product, through sync, patch, cleanup and PUT translations', async () => {
      const v = await seeded();
      const seen: string[] = [(await getProduct(v, 'p1')).headers.etag as string];
      async function expectNewEtag(label: string) {
        const etag = (await getProduct(v, 'p1')).headers.etag as string;
        assert.ok(!seen.includes(etag), `${label} changes the ETag`);
        const stale = await patch(v, 'p1', { priceMinor: 1 }, { 'if-match': seen.at(-1)! });
        assert.equal(stale.status, 412, `${label}: the ETag from before is stale`);
        seen.push(etag);
      }

      await sync(v, { products: [{ ...FULL_PRODUCT, priceMinor: 910 }] });
      await expectNewEtag('sync');
      await sync(v, { ingredients: [{ externalId: 'cheese', name: 'Cream cheese' }] });
      await expectNewEtag('renaming an ingredient of its composition');
      assert.equal((await patch(v, 'p1', { badgeLabel: 'Top' })).status, 200);
      await expectNewEtag('patch');
      const translated = await call(t.app, 'PUT', '/v1/translations', {
        key: v.key,
        body: { products: [{ ref: 'p1', translations: { en: { name: 'Cheesecake' } } }] },
      });
      assert.equal(translated.status, 200);
      await expectNewEtag('PUT translations');
      const cleaned = await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'product', ref: 'p1' }] } });
      assert.equal(cleaned.status, 201);
      await expectNewEtag('cleanup');
    });

    it('changes the draft only; the published menu keeps the old values', async () => {
      const v = await seeded();
      assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
      const published = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
      assert.equal((await patch(v, 'p1', { name: 'Draft name', priceMinor: 1 })).status, 200);

      const after = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
      assert.deepEqual(after.body, published.body);
      assert.deepEqual([after.body.products[0].name, after.body.products[0].priceMinor], ['Cheesecake', 900]);
      const draft = await call(t.app, 'GET', '/v1/menu', { key: v.key });
      assert.deepEqual([draft.body.products[0].name, draft.body.products[0].priceMinor], ['Draft name', 1]);
    });

    it('audits product.update with the names of the changed fields only', async () => {
      const v = await seeded();
      const res = await patch(v, 'p1', {
        name: 'Basque cheesecake',
        priceMinor: 900,
        badgeColor: null,
        categoryRef: 'cakes',
        sortOrder: 3,
      });
      assert.equal(res.status, 200);
      const entries = await auditEntries(v, 'product.update');
      assert.equal(entries.length, 1);
      assert.equal(entries[0].entityType, 'product');
      assert.equal(entries[0].entityRef, 'p1');
      assert.deepEqual([...entries[0].changes.fields].sort(), ['badgeColor', 'categoryRef', 'name']);
      assert.ok(!JSON.stringify(entries[0]).includes('Basque'), 'field values are never stored');
    });
  });

  describe('DELETE', () => {
    it('deletes by externalId: 200 { id, externalId, deleted: true }, then 404 PRODUCT_NOT_FOUND', async () => {
      const v = await seeded();
      const { id } = (await getProduct(v, 'p1')).body;
      const res = await call(t.app, 'DELETE', '/v1/products/p1', { key: v.key });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id, externalId: 'p1', deleted: true });

      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const again = await call(t.app, method, '/v1/products/p1', { key: v.key, body: method === 'PATCH' ? { name: 'X' } : undefined });
        assert.equal(again.status, 404, method);
        assert.equal(again.body.code, 'PRODUCT_NOT_FOUND');
      }
      const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
      assert.deepEqual(menu.body.products, []);
    });

    it('deletes by opaque id', async () => {
      const v = await seeded();
      const { id } = (await getProduct(v, 'p1')).body;
      const res = await call(t.app, 'DELETE', `/v1/products/${id}`, { key: v.key });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id, externalId: 'p1', deleted: true });
      assert.equal((await call(t.app, 'GET', `/v1/products/${id}`, { key: v.key })).status, 404);
    });

    it('frees plan capacity (planLimits.usage.products drops)', async () => {
      const v = await seeded();
      await sync(v, { products: [{ externalId: 'p2', name: 'Other', priceMinor: 1 }] });
      const usage = async () => (await call(t.app, 'GET', '/v1/reference', { key: v.key })).body.planLimits.usage.products;
      assert.equal(await usage(), 2);
      assert.equal((await call(t.app, 'DELETE', '/v1/products/p1', { key: v.key })).status, 200);
      assert.equal(await usage(), 1);
    });

    it('answers 404 PRODUCT_NOT_FOUND for an unknown ref and audits nothing', async () => {
      const v = await seeded();
      const res = await call(t.app, 'DELETE', '/v1/products/ghost', { key: v.key });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'PRODUCT_NOT_FOUND');
      assert.deepEqual(await auditEntries(v, 'product.delete'), []);
    });

    it('audits product.delete', async () => {
      const v = await seeded();
      const res = await call(t.app, 'DELETE', '/v1/products/p1', { key: v.key, headers: { 'x-request-id': 'delete-p1-request' } });
      assert.equal(res.status, 200);
      const entries = await auditEntries(v, 'product.delete');
      assert.equal(entries.length, 1);
      assert.deepEqual(
        [entries[0].entityType, entries[0].entityRef, entries[0].requestId, entries[0].source],
        ['product', 'p1', 'delete-p1-request', 'api_key'],
      );
    });
  });
});
