import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  admin,
  assertError as assertRefusal,
  call,
  createVenue,
  startApp,
  syncOk,
  type TestApp,
  type VenueFixture,
} from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';

// Banners: CRUD, the plan limit, translations, the product
// link, images through the media routes, and what guests see of them.

let t: TestApp;
let now = Date.parse('2026-11-23T12:00:00Z');
before(async () => {
  t = await startApp({}, undefined, { clock: () => now });
});
after(() => t.close());

async function venue(plan: 'free' | 'standard' = 'standard'): Promise<VenueFixture> {
  const v = await createVenue(t.app, { plan });
  await syncOk(t.app, v, {
    products: [
      { externalId: 'p1', name: 'Soup', priceMinor: 500 },
      { externalId: 'p2', name: 'Pie', priceMinor: 700 },
    ],
  });
  return v;
}

const create = (v: VenueFixture, body: unknown) => call(t.app, 'POST', '/v1/banners', { key: v.key, body });

async function created(v: VenueFixture, body: Record<string, unknown>) {
  const res = await create(v, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res;
}

function assertError(res: { status: number; body: any }, status: number, code?: string) {
  assertRefusal(res, status, code);
  assert.ok(res.body.requestId && res.body.path);
}

async function guestMenu(v: VenueFixture, locale?: string) {
  const res = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu${locale ? `?locale=${locale}` : ''}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res;
}

describe('banners CRUD', () => {
  it('creates with defaults, reads by id with an ETag, lists with the envelope, deletes', async () => {
    const v = await venue();
    const res = await created(v, { title: 'Autumn menu' });
    assert.match(res.headers.etag as string, /^"/);
    const b = res.body;
    assert.deepEqual(
      { ...b, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        externalId: null,
        title: 'Autumn menu',
        subtitle: null,
        linkUrl: null,
        productId: null,
        productExternalId: null,
        isActive: true,
        sortOrder: 0,
        startsAt: null,
        endsAt: null,
        translations: {},
        imageUrl: null,
        image: null,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    const read = await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, b);
    assert.equal(read.headers.etag, res.headers.etag);
    assert.equal(
      (await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key, headers: { 'if-none-match': read.headers.etag as string } })).status,
      304,
    );

    await created(v, { title: 'Second', sortOrder: -1 });
    assertError(await call(t.app, 'GET', '/v1/banners?page=1e300', { key: v.key }), 400);
    const list = await call(t.app, 'GET', '/v1/banners?limit=1', { key: v.key });
    assert.equal(list.status, 200);
    assert.deepEqual(
      { total: list.body.total, page: list.body.page, limit: list.body.limit, totalPages: list.body.totalPages },
      { total: 2, page: 1, limit: 1, totalPages: 2 },
    );
    assert.equal(list.body.items[0].title, 'Second', 'sortOrder first');

    const del = await call(t.app, 'DELETE', `/v1/banners/${b.id}`, { key: v.key });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { id: b.id, deleted: true });
    assertError(await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key }), 404, 'BANNER_NOT_FOUND');
    assertError(await call(t.app, 'DELETE', `/v1/banners/${b.id}`, { key: v.key }), 404, 'BANNER_NOT_FOUND');
    assertError(await call(t.app, 'PATCH', '/v1/banners/not-an-id', { key: v.key, body: { title: 'x' } }), 404, 'BANNER_NOT_FOUND');
  });

  it('takes every field, links a product by externalId or id, and shows its externalId', async () => {
    const v = await venue();
    const res = await created(v, {
      externalId: 'b-1',
      title: 'Soup of the day',
      subtitle: 'Hot until 3 pm',
      linkUrl: 'https://example.com/soup',
      productRef: 'p1',
      isActive: false,
      sortOrder: 7,
      startsAt: '2026-12-01T08:00',
      endsAt: '2026-12-31T23:59:59Z',
    });
    assert.equal(res.body.externalId, 'b-1');
    assert.equal(res.body.productExternalId, 'p1');
    assert.equal(res.body.startsAt, '2026-12-01T08:00:00');
    assert.equal(res.body.endsAt, '2026-12-31T23:59:59.000Z');
    assert.equal(res.body.isActive, false);
    const byId = await created(v, { title: 'x', productRef: res.body.productId });
    assert.equal(byId.body.productId, res.body.productId);
  });

  it('refuses a taken externalId with 409, also on PATCH', async () => {
    const v = await venue();
    await created(v, { externalId: 'dup', title: 'One' });
    assertError(await create(v, { externalId: 'dup', title: 'Two' }), 409, 'EXTERNAL_ID_ALREADY_EXISTS');
    const other = await created(v, { externalId: 'other', title: 'Two' });
    assertError(
      await call(t.app, 'PATCH', `/v1/banners/${other.body.id}`, { key: v.key, body: { externalId: 'dup' } }),
      409,
      'EXTERNAL_ID_ALREADY_EXISTS',
    );
  });

  it('validates: unknown product 404, https links only, schedule times, unknown fields', async () => {
    const v = await venue();
    assertError(await create(v, { title: 'x', productRef: 'nope' }), 404, 'PRODUCT_NOT_FOUND');
    for (const linkUrl of ['http://example.com', 'javascript:alert(1)', 'example.com', 'ftp://example.com/a']) {
      const res = await create(v, { title: 'x', linkUrl });
      assertError(res, 400);
      assert.match(res.body.errors.join(' '), /linkUrl must be an https URL/);
    }
    for (const startsAt of ['tomorrow', '2026-13-01T00:00', '2026-12-01']) {
      const res = await create(v, { title: 'x', startsAt });
      assertError(res, 400);
      assert.match(res.body.errors.join(' '), /startsAt/);
    }
    const backwards = await create(v, { title: 'x', startsAt: '2026-12-02T00:00', endsAt: '2026-12-01T00:00' });
    assertError(backwards, 400);
    assert.match(backwards.body.errors.join(' '), /endsAt must be after startsAt/);
    for (const body of [
      {},
      { title: '' },
      { title: 'x'.repeat(121) },
      { title: 'x', subtitle: 'y'.repeat(241) },
      { title: 'x', colour: 'red' },
    ]) {
      const res = await create(v, body);
      assertError(res, 400);
      assert.equal(res.body.message, 'Validation failed');
    }
  });

  it('PATCH: omitted keeps, null clears, If-Match guards with 412, one audit entry naming the fields', async () => {
    const v = await venue();
    const b = (await created(v, { title: 'Old', subtitle: 'Sub', productRef: 'p1', linkUrl: 'https://example.com' })).body;
    const etag = (await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key })).headers.etag as string;
    const patched = await call(t.app, 'PATCH', `/v1/banners/${b.id}`, {
      key: v.key,
      body: { title: 'New', subtitle: null, productRef: null },
      headers: { 'if-match': etag },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.title, 'New');
    assert.equal(patched.body.subtitle, null);
    assert.equal(patched.body.productId, null);
    assert.equal(patched.body.linkUrl, 'https://example.com', 'omitted: kept');
    assert.notEqual(patched.headers.etag, etag);
    assertError(
      await call(t.app, 'PATCH', `/v1/banners/${b.id}`, { key: v.key, body: { title: 'Lost' }, headers: { 'if-match': etag } }),
      412,
      'STALE_RESOURCE',
    );
    // Nothing to change: no new audit entry.
    assert.equal((await call(t.app, 'PATCH', `/v1/banners/${b.id}`, { key: v.key, body: { title: 'New' } })).status, 200);
    const entries = (await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: v.key })).body.items.filter((e: any) =>
      e.action.startsWith('banner.'),
    );
    assert.deepEqual(
      entries.map((e: any) => e.action),
      ['banner.update', 'banner.create'],
    );
    assert.deepEqual(entries[0].changes.fields.sort(), ['productRef', 'subtitle', 'title']);
  });

  it('counts banners against the plan: BANNER_LIMIT_REACHED with details, usage in reference', async () => {
    const v = await venue('free');
    for (let i = 0; i < 3; i += 1) await created(v, { title: `B${i}` });
    const refused = await create(v, { title: 'Fourth' });
    assertError(refused, 400, 'BANNER_LIMIT_REACHED');
    assert.deepEqual(refused.body.details, { limit: 3, available: 0, requested: 1 });
    const reference = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(reference.body.planLimits.usage.banners, 3);
    assert.equal(reference.body.planLimits.limits.maxBanners, 3);
    // Concurrent creates never pass the limit.
    const w = await venue('free');
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => create(w, { title: `C${i}` })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 201, 201, 400, 400, 400]);
  });

  it('keeps a banner when its product is deleted, unlinked', async () => {
    const v = await venue();
    const b = (await created(v, { title: 'Soup!', productRef: 'p1' })).body;
    assert.equal((await call(t.app, 'DELETE', '/v1/products/p1', { key: v.key })).status, 200);
    const read = await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key });
    assert.equal(read.body.productId, null);
    assert.equal(read.body.productExternalId, null);
  });
});

describe('banner translations', () => {
  it('takes inline translations and PUT /v1/translations, with the locale checks', async () => {
    const v = await venue();
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk', 'es'] } })).status, 200);
    const b = (await created(v, { title: 'Soup', subtitle: 'Hot', translations: { uk: { title: 'Суп' } } })).body;
    assert.deepEqual(b.translations, { uk: { title: 'Суп' } });
    assertError(await create(v, { title: 'x', translations: { de: { title: 'Suppe' } } }), 400, 'LOCALE_NOT_ENABLED');
    assertError(await create(v, { title: 'x', translations: { xx: { title: 'Suppe' } } }), 400, 'INVALID_LOCALE');
    assertError(await create(v, { title: 'x', translations: { es: {} } }), 400, 'EMPTY_TRANSLATION');

    const put = await call(t.app, 'PUT', '/v1/translations', {
      key: v.key,
      body: {
        banners: [
          { id: b.id.toUpperCase(), translations: { es: { title: 'Sopa', subtitle: 'Caliente' } } },
          { id: '00000000-0000-7000-8000-000000000000', translations: { es: { title: 'x' } } },
        ],
      },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body, { applied: 1, notFound: ['banner:00000000-0000-7000-8000-000000000000'] });
    const read = await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key });
    assert.deepEqual(read.body.translations, { uk: { title: 'Суп' }, es: { title: 'Sopa', subtitle: 'Caliente' } });
    const audit = (await call(t.app, 'GET', '/v1/audit-log?action=banner.translations', { key: v.key })).body.items;
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0].changes, { count: 1, locales: ['es'] });

    // Merge: "" clears one field, the rest stays.
    const patched = await call(t.app, 'PATCH', `/v1/banners/${b.id}`, { key: v.key, body: { translations: { es: { subtitle: '' } } } });
    assert.deepEqual(patched.body.translations, { uk: { title: 'Суп' }, es: { title: 'Sopa' } });

    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    assert.equal((await guestMenu(v, 'uk')).body.banners[0].title, 'Суп');
    assert.deepEqual(
      [(await guestMenu(v, 'es')).body.banners[0].title, (await guestMenu(v, 'es')).body.banners[0].subtitle],
      ['Sopa', 'Hot'],
    );
    assert.equal((await guestMenu(v)).body.banners[0].title, 'Soup');
  });
});

describe('banner images', () => {
  it('takes a 3:1 image (1536x512 and 768x256), refuses others with IMAGE_WRONG_ASPECT_RATIO / IMAGE_TOO_SMALL, and shows it at once', async () => {
    const v = await venue();
    const b = (await created(v, { title: 'With image' })).body;
    const path = `/v1/banners/${b.id}/image`;
    const wrong = await call(t.app, 'POST', path, { key: v.key, body: { base64: toBase64(await makeImage(1000, 1000)) } });
    assertError(wrong, 400, 'IMAGE_WRONG_ASPECT_RATIO');
    assertError(
      await call(t.app, 'POST', path, { key: v.key, body: { base64: toBase64(await makeImage(900, 300)) } }),
      400,
      'IMAGE_TOO_SMALL',
    );
    const res = await call(t.app, 'POST', path, { key: v.key, body: { base64: toBase64(await makeImage(1500, 500)) } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.variants.map((x: any) => [x.width, x.height]),
      [
        [1536, 512],
        [768, 256],
      ],
    );
    const read = await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key });
    assert.equal(read.body.imageUrl, res.body.imageUrl);
    assert.deepEqual(read.body.image, res.body);
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    assert.equal((await guestMenu(v)).body.banners[0].imageUrl, res.body.imageUrl);

    const audit = (await call(t.app, 'GET', '/v1/audit-log?action=banner.image', { key: v.key })).body.items;
    assert.equal(audit.length, 1);
    assert.equal(audit[0].changes.width, 1536);
    // Deleting the banner frees its image.
    assert.equal((await call(t.app, 'DELETE', `/v1/banners/${b.id}`, { key: v.key })).status, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: new URL(res.body.imageUrl).pathname })).statusCode, 404);
  });

  it('takes a preoptimized 1536x512 WebP in the fast lane, and removes an image', async () => {
    const v = await venue();
    const b = (await created(v, { title: 'Fast' })).body;
    const webp = await makeImage(1536, 512, 'webp');
    const res = await call(t.app, 'POST', `/v1/banners/${b.id}/image?preoptimized=true`, { key: v.key, body: { base64: toBase64(webp) } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assertError(
      await call(t.app, 'POST', `/v1/banners/${b.id}/image?preoptimized=true`, {
        key: v.key,
        body: { base64: toBase64(await makeImage(1024, 1024, 'webp')) },
      }),
      400,
      'PREOPTIMIZED_INVALID',
    );
    const removed = await call(t.app, 'DELETE', `/v1/banners/${b.id}/image`, { key: v.key });
    assert.deepEqual(removed.body, { deleted: true });
    assert.equal((await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: v.key })).body.imageUrl, null);
    assertError(
      await call(t.app, 'POST', '/v1/banners/00000000-0000-7000-8000-000000000000/image', { key: v.key, body: { base64: toBase64(webp) } }),
      404,
      'BANNER_NOT_FOUND',
    );
  });
});

describe('what guests see of banners', () => {
  it('shows active banners within their schedule, in sortOrder, live (no publish needed), with their product when it is on the menu', async () => {
    now = Date.parse('2026-11-23T12:00:00Z');
    const v = await venue();
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    await created(v, { title: 'Second', sortOrder: 2, productRef: 'p1' });
    await created(v, { title: 'First', sortOrder: 1 });
    await created(v, { title: 'Off', isActive: false });
    await created(v, { title: 'Later', startsAt: '2026-11-24T00:00:00Z' });
    await created(v, { title: 'Over', endsAt: '2026-11-23T11:00:00Z' });
    let menu = await guestMenu(v);
    assert.deepEqual(
      menu.body.banners.map((b: any) => b.title),
      ['First', 'Second'],
    );
    const soup = menu.body.products.find((p: any) => p.name === 'Soup');
    assert.equal(menu.body.banners[1].productId, soup.id);

    // The clock passes midnight UTC: 'Later' starts, with no write and no publish.
    const etag = menu.headers.etag as string;
    now = Date.parse('2026-11-24T00:00:01Z');
    menu = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`, { headers: { 'if-none-match': etag } });
    assert.equal(menu.status, 200, 'a window that opens changes the ETag');
    assert.deepEqual(
      menu.body.banners.map((b: any) => b.title),
      ['Later', 'First', 'Second'],
    );

    // A product hidden from guests is not linked.
    assert.equal((await call(t.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { menuVisible: false } })).status, 200);
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    menu = await guestMenu(v);
    assert.equal(menu.body.banners.find((b: any) => b.title === 'Second').productId, null);
    now = Date.parse('2026-11-23T12:00:00Z');
  });

  it('reads a wall-clock schedule in the venue timezone: local midnight in Auckland', async () => {
    const v = await venue();
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: 'Pacific/Auckland' } })).status, 200);
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    await created(v, { title: 'Christmas Eve', startsAt: '2026-12-24T00:00', endsAt: '2026-12-25T00:00' });
    // Midnight in Auckland (UTC+13) is 11:00 UTC on the 23rd.
    now = Date.parse('2026-12-23T10:59:00Z');
    assert.deepEqual((await guestMenu(v)).body.banners, []);
    now = Date.parse('2026-12-23T11:00:00Z');
    assert.deepEqual(
      (await guestMenu(v)).body.banners.map((b: any) => b.title),
      ['Christmas Eve'],
    );
    now = Date.parse('2026-12-24T11:00:00Z');
    assert.deepEqual((await guestMenu(v)).body.banners, []);
    now = Date.parse('2026-11-23T12:00:00Z');
  });
});

describe('banners: keys and sandbox', () => {
  it('refuses writes with a read-only key and keeps test-key banners in the sandbox', async () => {
    const v = await venue();
    const b = (await created(v, { title: 'Live' })).body;
    const readOnly = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true })).body.key;
    assert.equal((await call(t.app, 'GET', '/v1/banners', { key: readOnly })).status, 200);
    for (const [method, url, body] of [
      ['POST', '/v1/banners', { title: 'x' }],
      ['PATCH', `/v1/banners/${b.id}`, { title: 'x' }],
      ['DELETE', `/v1/banners/${b.id}`, undefined],
    ] as const) {
      assertError(await call(t.app, method, url, { key: readOnly, body }), 403, 'READ_ONLY_KEY');
    }
    const test = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' })).body.key;
    assert.equal((await call(t.app, 'GET', '/v1/banners', { key: test })).body.total, 0);
    assertError(await call(t.app, 'GET', `/v1/banners/${b.id}`, { key: test }), 404, 'BANNER_NOT_FOUND');
  });
});
