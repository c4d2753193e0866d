import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture, syncOk } from '../helpers/app.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const MENU = {
  categories: [
    { externalId: 'c1', name: 'Hot' },
    { externalId: 'c2', name: 'Cold', isActive: false },
  ],
  ingredients: [
    { externalId: 'milk', name: 'Milk' },
    { externalId: 'oat', name: 'Oat milk' },
    { externalId: 'ice', name: 'Ice' },
  ],
  products: [
    {
      externalId: 'latte',
      name: 'Latte',
      priceMinor: 350,
      categoryExternalId: 'c1',
      ingredientExternalIds: ['milk'],
      modifierGroups: [
        {
          name: 'Milk',
          type: 'single_choice',
          options: [{ ingredientExternalId: 'milk' }, { ingredientExternalId: 'oat', priceAdjustment: 50 }],
        },
      ],
    },
    { externalId: 'frappe', name: 'Frappe', priceMinor: 400, categoryExternalId: 'c2', menuVisible: false },
  ],
};

describe('POST /v1/publish', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  const sync = (v: VenueFixture, body: unknown) => syncOk(t.app, v, body);

  async function publish(v: VenueFixture, body?: unknown) {
    const res = await call(t.app, 'POST', '/v1/publish', { key: v.key, body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  async function readMenu(v: VenueFixture, version: 'draft' | 'published') {
    const res = await call(t.app, 'GET', `/v1/menu?version=${version}`, { key: v.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res;
  }

  it('publishes with no body and answers 201 { publicationId, publishedAt, counts }', async () => {
    const v = await createVenue(t.app);
    await sync(v, MENU);
    const body = await publish(v);
    assert.deepEqual(Object.keys(body).sort(), ['counts', 'publicationId', 'publishedAt']);
    assert.equal(typeof body.publicationId, 'string');
    assert.match(body.publishedAt, ISO_UTC);
    // Counts are what the snapshot holds: hidden products and inactive categories included.
    assert.deepEqual(body.counts, { categories: 2, ingredients: 3, products: 2 });
  });

  it('publishes with an empty JSON object body, and with a JSON content type but no bytes', async () => {
    const v = await createVenue(t.app);
    const body = await publish(v, {});
    assert.deepEqual(body.counts, { categories: 0, ingredients: 0, products: 0 });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/publish',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 201, res.body);
  });

  it('rejects a body with any property with 400 and publishes nothing', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'POST', '/v1/publish', { key: v.key, body: { x: 1 } });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
    const published = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.equal(published.status, 404);
    assert.equal(published.body.code, 'MENU_NOT_PUBLISHED');
  });

  it('makes a new snapshot on every call, and the published read serves the latest', async () => {
    const v = await createVenue(t.app);
    await sync(v, MENU);
    const first = await publish(v);
    const second = await publish(v);
    assert.notEqual(first.publicationId, second.publicationId);
    const { body } = await readMenu(v, 'published');
    assert.equal(body.version, 'published');
    assert.equal(body.publicationId, second.publicationId);
    assert.equal(body.publishedAt, second.publishedAt);
  });

  it('serves the published menu in the read shape with its own ETag and 304', async () => {
    const v = await createVenue(t.app);
    await sync(v, MENU);
    await publish(v);
    const draft = await readMenu(v, 'draft');
    const published = await readMenu(v, 'published');
    const strip = (m: any) => ({ ...m, version: undefined, publicationId: undefined, publishedAt: undefined, generatedAt: undefined });
    assert.deepEqual(strip(published.body), strip(draft.body));

    const etag = published.headers.etag as string;
    assert.ok(etag);
    const cached = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key, headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);
    assert.equal(cached.raw.body, '');
  });

  it('keeps draft changes invisible until the next publish', async () => {
    const v = await createVenue(t.app);
    await sync(v, MENU);
    await publish(v);
    const before = await readMenu(v, 'published');

    await sync(v, {
      products: [
        { externalId: 'latte', name: 'Latte XL', priceMinor: 450 },
        { externalId: 'mocha', name: 'Mocha', priceMinor: 420 },
      ],
    });
    const patched = await call(t.app, 'PATCH', '/v1/products/frappe', { key: v.key, body: { menuVisible: true } });
    assert.equal(patched.status, 200);

    const after = await readMenu(v, 'published');
    assert.deepEqual(after.body, before.body);
    assert.equal(after.headers.etag, before.headers.etag);
    const cached = await call(t.app, 'GET', '/v1/menu?version=published', {
      key: v.key,
      headers: { 'if-none-match': before.headers.etag as string },
    });
    assert.equal(cached.status, 304);

    const draft = await readMenu(v, 'draft');
    assert.deepEqual(
      draft.body.products.map((p: any) => [p.externalId, p.name, p.menuVisible]),
      [
        ['frappe', 'Frappe', true],
        ['latte', 'Latte XL', true],
        ['mocha', 'Mocha', true],
      ],
    );

    const republished = await publish(v);
    assert.equal(republished.counts.products, 3);
    const now = await readMenu(v, 'published');
    assert.notEqual(now.headers.etag, before.headers.etag);
    assert.deepEqual(
      now.body.products.map((p: any) => p.name),
      ['Frappe', 'Latte XL', 'Mocha'],
    );
  });

  it('keeps the names a snapshot was published with when an ingredient is renamed later', async () => {
    const v = await createVenue(t.app);
    await sync(v, MENU);
    await publish(v);
    await sync(v, { ingredients: [{ externalId: 'milk', name: 'Whole milk' }] });

    const latte = (m: any) => m.products.find((p: any) => p.externalId === 'latte');
    const draft = latte((await readMenu(v, 'draft')).body);
    assert.deepEqual(draft.ingredients, [{ externalId: 'milk', name: 'Whole milk' }]);
    assert.deepEqual(
      draft.modifierGroups[0].options.map((o: any) => o.ingredientName),
      ['Whole milk', 'Oat milk'],
    );

    const published = await readMenu(v, 'published');
    const frozen = latte(published.body);
    assert.deepEqual(frozen.ingredients, [{ externalId: 'milk', name: 'Milk' }]);
    assert.deepEqual(
      frozen.modifierGroups[0].options.map((o: any) => o.ingredientName),
      ['Milk', 'Oat milk'],
    );
    assert.equal(published.body.ingredients.find((i: any) => i.externalId === 'milk').name, 'Milk');
  });

  it('writes one menu.publish audit entry per call, with the publication id and counts', async () => {
    const v = await createVenue(t.app);
    await sync(v, MENU);
    const first = await publish(v);
    const second = await publish(v);
    const res = await call(t.app, 'GET', '/v1/audit-log?action=menu.publish', { key: v.key });
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 2);
    const [newest, oldest] = res.body.items;
    assert.equal(newest.entityRef, second.publicationId);
    assert.equal(oldest.entityRef, first.publicationId);
    assert.equal(newest.entityType, 'menu');
    assert.deepEqual(newest.changes, { counts: second.counts });
  });
});
