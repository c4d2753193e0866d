import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/port.js';
import { openPostgres } from '../../src/db/postgres.js';
import type { App } from '../../src/http/types.js';
import { admin, call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';
import { animatedGif, makeImage, makeRotatedJpegWithGps, pixel, pngBomb, toBase64 } from '../helpers/images.js';

// Media ingest and serving: product images and the logo
// from base64, checked and re-encoded with sharp, stored content-addressed and served at /media.
// Remote URLs are media-fetch.test.ts; the SSRF vectors are test/outbound/ssrf.test.ts.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

async function venueWithProduct(options: { plan?: 'free' | 'standard' } = {}): Promise<VenueFixture> {
  const v = await createVenue(t.app, options);
  await syncOk(t.app, v, {
    products: [
      { externalId: 'p1', name: 'Cheesecake', priceMinor: 900 },
      { externalId: 'p2', name: 'Tea', priceMinor: 300 },
    ],
  });
  return v;
}

function upload(v: VenueFixture, path: string, body: unknown, query = '') {
  return call(t.app, 'POST', `/v1${path}${query}`, { key: v.key, body });
}

/** GET of an image URL through the app (the path of the absolute URL). */
async function fetchImage(url: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'GET', url: new URL(url).pathname, headers });
  return res;
}

function assertError(res: { status: number; body: any }, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code, JSON.stringify(res.body));
  assert.equal(res.body.statusCode, status);
  assert.ok(res.body.requestId && res.body.timestamp && res.body.path);
}

describe('product image round trip', () => {
  it('takes a base64 JPEG, answers 201 { imageUrl, variants, width, height, bytes } with WebP 1024/512/256', async () => {
    const v = await venueWithProduct();
    const res = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(1200, 1200, 'jpeg', { noise: true })) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['bytes', 'height', 'imageUrl', 'variants', 'width']);
    assert.equal(res.body.width, 1024);
    assert.equal(res.body.height, 1024);
    assert.deepEqual(
      res.body.variants.map((x: any) => [x.width, x.height]),
      [
        [1024, 1024],
        [512, 512],
        [256, 256],
      ],
    );
    assert.equal(res.body.imageUrl, res.body.variants[0].url);
    assert.equal(res.body.bytes, res.body.variants[0].bytes);
    assert.match(res.body.imageUrl, new RegExp(`^${t.config.mediaPublicUrl}/${v.id}/[0-9a-f]{64}\\.webp$`));
    for (const variant of res.body.variants) {
      const file = await fetchImage(variant.url);
      assert.equal(file.statusCode, 200);
      assert.equal(file.headers['content-type'], 'image/webp');
      assert.equal(file.rawPayload.length, variant.bytes);
      const meta = await sharp(file.rawPayload).metadata();
      assert.equal(meta.format, 'webp');
      assert.equal(meta.width, variant.width);
      assert.equal(meta.height, variant.height);
      // The key is the content's hash.
      assert.equal(new URL(variant.url).pathname.split('/').pop(), `${createHash('sha256').update(file.rawPayload).digest('hex')}.webp`);
    }
  });

  it('shows the image in the draft menu at once, in the guest menu after publish, and keeps the published one', async () => {
    const v = await venueWithProduct();
    const before = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    assert.equal(before.body.imageUrl, null);
    assert.equal(before.body.image, null);
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);

    const first = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(600, 600)) });
    assert.equal(first.status, 201);
    const product = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    assert.equal(product.body.imageUrl, first.body.imageUrl);
    assert.deepEqual(product.body.image, first.body);
    assert.notEqual(product.headers.etag, before.headers.etag, 'the product ETag moves with its image');
    const draft = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.equal(draft.body.products.find((p: any) => p.externalId === 'p1').imageUrl, first.body.imageUrl);
    // Guests see the last publish, which had no image.
    const guestBefore = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    assert.equal(guestBefore.body.products.find((p: any) => p.name === 'Cheesecake').imageUrl, null);

    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    const guest = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    const guestProduct = guest.body.products.find((p: any) => p.name === 'Cheesecake');
    assert.equal(guestProduct.imageUrl, first.body.imageUrl);
    assert.deepEqual(guestProduct.image, first.body);
    const published = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.equal(published.body.products.find((p: any) => p.externalId === 'p1').imageUrl, first.body.imageUrl);

    // A new image changes the draft only; the snapshot keeps the image it was published with.
    const second = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(700, 700, 'png', { colour: '#2980b9' })) });
    assert.equal(second.status, 201);
    assert.notEqual(second.body.imageUrl, first.body.imageUrl);
    const guestAfter = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    assert.equal(guestAfter.body.products.find((p: any) => p.name === 'Cheesecake').imageUrl, first.body.imageUrl);
    assert.equal((await fetchImage(first.body.imageUrl)).statusCode, 200, 'a published image is still served');
  });

  it('serves bytes with immutable caching, a strong ETag, nosniff, and 304 on If-None-Match', async () => {
    const v = await venueWithProduct();
    const res = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(400, 400)) });
    const file = await fetchImage(res.body.imageUrl);
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.match(file.headers.etag as string, /^"[0-9a-f]{64}"$/);
    const again = await fetchImage(res.body.imageUrl, { 'if-none-match': file.headers.etag as string });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const head = await t.app.inject({ method: 'HEAD', url: new URL(res.body.imageUrl).pathname });
    assert.equal(head.statusCode, 200);
  });

  it("answers 404 in the error envelope for unknown, malformed or other venues' image paths", async () => {
    const v = await venueWithProduct();
    const other = await venueWithProduct();
    const res = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(400, 400)) });
    const key = new URL(res.body.imageUrl).pathname.split('/').pop();
    for (const path of [
      `/media/${other.id}/${key}`,
      `/media/${v.id}/${'0'.repeat(64)}.webp`,
      `/media/${v.id}/${key}.png`,
      `/media/not-a-uuid/${key}`,
      `/media/${v.id}/..%2f..%2fetc%2fpasswd`,
    ]) {
      const file = await t.app.inject({ method: 'GET', url: path });
      assert.equal(file.statusCode, 404, path);
      assert.equal(file.json().statusCode, 404);
      assert.ok(file.json().requestId);
    }
  });

  it('rotates by EXIF orientation, then strips every piece of metadata: no EXIF, no GPS, no ICC', async () => {
    const v = await venueWithProduct();
    const source = await makeRotatedJpegWithGps(800);
    const sourceMeta = await sharp(source).metadata();
    assert.equal(sourceMeta.orientation, 6);
    assert.ok(sourceMeta.exif && sourceMeta.exif.includes(Buffer.from([0x25, 0x88])), 'the fixture carries a GPS IFD (tag 0x8825)');
    const res = await upload(v, '/products/p1/image', { base64: toBase64(source) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    for (const variant of res.body.variants) {
      const bytes = (await fetchImage(variant.url)).rawPayload;
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.exif, undefined);
      assert.equal(meta.xmp, undefined);
      assert.equal(meta.icc, undefined);
      assert.equal(meta.orientation, undefined);
      // No EXIF, XMP or ICC chunk in the WebP container, and nothing of the camera's EXIF anywhere.
      for (const marker of ['EXIF', 'Exif', 'XMP ', 'ICCP', 'CartaTestCam'])
        assert.equal(bytes.includes(Buffer.from(marker)), false, marker);
    }
    // Stored sideways with red top-left; shown upright, red is top-right and blue top-left.
    const shown = (await fetchImage(res.body.variants[1].url)).rawPayload;
    const [r1, , b1] = await pixel(shown, 400, 100);
    const [r2, , b2] = await pixel(shown, 100, 100);
    assert.ok(r1 > 200 && b1 < 60, `top-right should be red, got ${r1},${b1}`);
    assert.ok(b2 > 200 && r2 < 60, `top-left should be blue, got ${r2},${b2}`);
  });

  it('accepts every supported input format, a data: URL, and line-wrapped base64', async () => {
    const v = await venueWithProduct();
    for (const format of ['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif'] as const) {
      const res = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(400, 400, format)) });
      assert.equal(res.status, 201, `${format}: ${JSON.stringify(res.body)}`);
    }
    const png = await makeImage(400, 400, 'png', { colour: '#27ae60' });
    assert.equal((await upload(v, '/products/p1/image', { base64: `data:image/png;base64,${toBase64(png)}` })).status, 201);
    const wrapped = toBase64(await makeImage(400, 400, 'png', { colour: '#8e44ad' })).replace(/(.{76})/g, '$1\n');
    assert.equal((await upload(v, '/products/p1/image', { base64: wrapped })).status, 201);
  });

  it('takes a product by opaque id as well as by externalId', async () => {
    const v = await venueWithProduct();
    const id = (await call(t.app, 'GET', '/v1/products/p2', { key: v.key })).body.id;
    const res = await upload(v, `/products/${id}/image`, { base64: toBase64(await makeImage(400, 400)) });
    assert.equal(res.status, 201);
    assert.equal((await call(t.app, 'GET', '/v1/products/p2', { key: v.key })).body.imageUrl, res.body.imageUrl);
  });
});

describe('the media error codes', () => {
  let v: VenueFixture;
  before(async () => {
    v = await venueWithProduct();
  });

  it('INVALID_IMAGE_SOURCE: neither, both, or an empty source', async () => {
    const png = toBase64(await makeImage(400, 400, 'png'));
    for (const body of [{}, { base64: png, url: 'https://example.com/a.png' }, { base64: '' }, { url: '' }]) {
      assertError(await upload(v, '/products/p1/image', body), 400, 'INVALID_IMAGE_SOURCE');
    }
    assertError(await upload(v, '/logo', {}), 400, 'INVALID_IMAGE_SOURCE');
  });

  it('Validation failed for unknown properties and wrong types, naming the field', async () => {
    const unknown = await upload(v, '/products/p1/image', { base64: 'aGk=', file: 'x' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.message, 'Validation failed');
    assert.match(unknown.body.errors.join(' '), /file/);
    const wrongType = await upload(v, '/products/p1/image', { base64: 42 });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.errors.join(' '), /base64/);
  });

  it('INVALID_IMAGE: bytes that are no image, bad base64, SVG, truncated data', async () => {
    const jpeg = await makeImage(600, 600, 'jpeg', { noise: true });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><rect width="400" height="400"/></svg>');
    for (const base64 of [
      toBase64(Buffer.from('definitely not an image')),
      '!!!not base64!!!',
      toBase64(svg),
      toBase64(jpeg.subarray(0, Math.floor(jpeg.length / 2))),
    ]) {
      assertError(await upload(v, '/products/p1/image', { base64 }), 400, 'INVALID_IMAGE');
    }
  });

  it('INVALID_IMAGE: animated or multi-page input, and a decompression bomb', async () => {
    assertError(await upload(v, '/products/p1/image', { base64: toBase64(await animatedGif(400, 400)) }), 400, 'INVALID_IMAGE');
    const bomb = pngBomb(30_000, 30_000);
    assert.ok(bomb.length < 100_000, `the bomb is ${bomb.length} bytes`);
    const res = await upload(v, '/products/p1/image', { base64: toBase64(bomb) });
    assertError(res, 400, 'INVALID_IMAGE');
    assert.match(res.body.message, /pixels/);
  });

  it('IMAGE_NOT_SQUARE beyond 2%, and accepts within 2%', async () => {
    assertError(await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(800, 600)) }), 400, 'IMAGE_NOT_SQUARE');
    assertError(await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(1000, 1030)) }), 400, 'IMAGE_NOT_SQUARE');
    assertError(await upload(v, '/logo', { base64: toBase64(await makeImage(600, 400)) }), 400, 'IMAGE_NOT_SQUARE');
    const ok = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(1000, 1015)) });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual([ok.body.width, ok.body.height], [1024, 1024]);
  });

  it('IMAGE_TOO_SMALL under 320x320, and accepts exactly 320x320', async () => {
    assertError(await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(319, 319)) }), 400, 'IMAGE_TOO_SMALL');
    assertError(await upload(v, '/logo', { base64: toBase64(await makeImage(100, 100)) }), 400, 'IMAGE_TOO_SMALL');
    assert.equal((await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(320, 320)) })).status, 201);
  });

  it('FILE_TOO_LARGE (413) for base64 over 15 MB decoded, without decoding it', async () => {
    const res = await upload(v, '/products/p1/image', { base64: 'A'.repeat(Math.ceil(((15 * 1024 * 1024 + 1) * 4) / 3) + 4) });
    assertError(res, 413, 'FILE_TOO_LARGE');
  });

  it('takes bodies up to 21 MB on media routes only: PAYLOAD_TOO_LARGE past it', async () => {
    // 6 MB is over the 5 MB API cap but fine here: it fails as an image, not as a body.
    const six = await upload(v, '/products/p1/image', { base64: 'A'.repeat(6 * 1024 * 1024) });
    assertError(six, 400, 'INVALID_IMAGE');
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/products/p1/image',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ base64: 'A'.repeat(21 * 1024 * 1024) }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'PAYLOAD_TOO_LARGE');
    assert.match(res.json().message, /21 MB/);
    const sync = await call(t.app, 'POST', '/v1/sync', {
      key: v.key,
      body: { products: [{ externalId: 'x', name: 'x'.repeat(6 * 1024 * 1024), priceMinor: 1 }] },
    });
    assert.equal(sync.status, 413, 'other routes keep 5 MB');
  });

  it('PRODUCT_NOT_FOUND before looking at the bytes', async () => {
    assertError(await upload(v, '/products/nope/image', { base64: 'not even base64 !!' }), 404, 'PRODUCT_NOT_FOUND');
    assertError(await call(t.app, 'DELETE', '/v1/products/nope/image', { key: v.key }), 404, 'PRODUCT_NOT_FOUND');
  });

  it('READ_ONLY_KEY for uploads and deletes with a read-only key', async () => {
    const key = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true })).body.key;
    const png = toBase64(await makeImage(400, 400, 'png'));
    for (const [method, path] of [
      ['POST', '/v1/products/p1/image'],
      ['DELETE', '/v1/products/p1/image'],
      ['POST', '/v1/logo'],
      ['DELETE', '/v1/logo'],
    ] as const) {
      assertError(await call(t.app, method, path, { key, body: method === 'POST' ? { base64: png } : undefined }), 403, 'READ_ONLY_KEY');
    }
  });
});

describe('the fast lane: ?preoptimized=true', () => {
  let v: VenueFixture;
  before(async () => {
    v = await venueWithProduct();
  });

  it('stores a 1024x1024 WebP of at most 1 MB byte for byte, and makes the smaller variants', async () => {
    const webp = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#16a085' } })
      .webp()
      .toBuffer();
    const res = await upload(v, '/products/p1/image', { base64: toBase64(webp) }, '?preoptimized=true');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const stored = (await fetchImage(res.body.imageUrl)).rawPayload;
    assert.ok(stored.equals(webp), 'stored as sent');
    assert.deepEqual(
      res.body.variants.map((x: any) => x.width),
      [1024, 512, 256],
    );
  });

  it('PREOPTIMIZED_INVALID: not WebP, not the largest size, over 1 MB, or carrying EXIF', async () => {
    const png = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#16a085' } })
      .png()
      .toBuffer();
    const small = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#16a085' } })
      .webp()
      .toBuffer();
    const big = await sharp({
      create: { width: 1024, height: 1024, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 120 } },
    })
      .webp({ lossless: true })
      .toBuffer();
    assert.ok(big.length > 1024 * 1024, `the noisy lossless WebP is ${big.length} bytes`);
    const exif = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#16a085' } })
      .webp()
      .withExif({ IFD0: { Make: 'Cam' } })
      .toBuffer();
    // The EXIF chunk kept, the header's EXIF flag cleared (sharp then reports none); bytes after the end.
    const hidden = Buffer.from(exif);
    assert.equal(hidden.toString('latin1', 12, 16), 'VP8X');
    hidden[20] &= ~0x08;
    const ok = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#16a085' } })
      .webp()
      .toBuffer();
    const trailing = Buffer.concat([ok, Buffer.from('GPS 51.5007N 0.1246W')]);
    for (const bytes of [png, small, big, exif, hidden, trailing]) {
      assertError(await upload(v, '/products/p1/image', { base64: toBase64(bytes) }, '?preoptimized=true'), 400, 'PREOPTIMIZED_INVALID');
    }
  });
});

describe('logo', () => {
  it('sets, shows in settings and to guests at once, and removes the venue logo', async () => {
    const v = await venueWithProduct();
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    const before = await call(t.app, 'GET', '/v1/settings', { key: v.key });
    assert.equal(before.body.logo, null);
    assert.equal(before.body.logoUrl, null);
    const res = await upload(v, '/logo', { base64: toBase64(await makeImage(500, 500, 'png')) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.variants.map((x: any) => x.width),
      [1024, 512, 256],
    );
    const settings = await call(t.app, 'GET', '/v1/settings', { key: v.key });
    assert.deepEqual(settings.body.logo, res.body);
    assert.equal(settings.body.logoUrl, res.body.imageUrl);
    assert.notEqual(settings.headers.etag, before.headers.etag);
    const guest = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    assert.equal(guest.body.venue.logoUrl, res.body.imageUrl, 'the logo is a setting: no publish needed');

    const removed = await call(t.app, 'DELETE', '/v1/logo', { key: v.key });
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, { deleted: true });
    assert.equal((await call(t.app, 'GET', '/v1/settings', { key: v.key })).body.logo, null);
    assert.equal((await fetchImage(res.body.imageUrl)).statusCode, 404, 'nothing refers to it any more');
    assert.deepEqual((await call(t.app, 'DELETE', '/v1/logo', { key: v.key })).body, { deleted: false });
  });

  it('keeps the settings a venue has never saved at their defaults', async () => {
    const v = await venueWithProduct();
    const before = (await call(t.app, 'GET', '/v1/settings', { key: v.key })).body;
    await upload(v, '/logo', { base64: toBase64(await makeImage(400, 400)) });
    const after = (await call(t.app, 'GET', '/v1/settings', { key: v.key })).body;
    for (const field of ['name', 'defaultLanguage', 'enabledLanguages', 'cardStyle', 'timezone', 'orderConfig']) {
      assert.deepEqual(after[field], before[field], field);
    }
  });
});

describe('deleting images and the blobs behind them', () => {
  it('DELETE removes the image; the blob goes when nothing refers to it', async () => {
    const v = await venueWithProduct();
    const res = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(400, 400)) });
    const removed = await call(t.app, 'DELETE', '/v1/products/p1/image', { key: v.key });
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, { deleted: true });
    const product = await call(t.app, 'GET', '/v1/products/p1', { key: v.key });
    assert.equal(product.body.imageUrl, null);
    assert.equal(product.body.image, null);
    for (const variant of res.body.variants) assert.equal((await fetchImage(variant.url)).statusCode, 404);
    assert.deepEqual((await call(t.app, 'DELETE', '/v1/products/p1/image', { key: v.key })).body, { deleted: false });
    const { rows } = await t.database.db.query('select count(*)::int as n from media_blobs where venue_id = $1', [v.id]);
    assert.equal(rows[0].n, 0);
  });

  it('replacing an image frees the old blobs; one image on two products is kept until both let go', async () => {
    const v = await venueWithProduct();
    const shared = toBase64(await makeImage(400, 400));
    const one = await upload(v, '/products/p1/image', { base64: shared });
    const two = await upload(v, '/products/p2/image', { base64: shared });
    assert.equal(one.body.imageUrl, two.body.imageUrl, 'same bytes, same blob');
    await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(400, 400, 'png', { colour: '#f1c40f' })) });
    assert.equal((await fetchImage(one.body.imageUrl)).statusCode, 200, 'p2 still shows it');
    await call(t.app, 'DELETE', '/v1/products/p2/image', { key: v.key });
    assert.equal((await fetchImage(one.body.imageUrl)).statusCode, 404);
  });

  it('deleting a product frees its image, unless a published snapshot still shows it', async () => {
    const v = await venueWithProduct();
    const p1 = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(400, 400, 'png', { colour: '#e67e22' })) });
    assert.equal((await call(t.app, 'POST', '/v1/publish', { key: v.key })).status, 201);
    const p2 = await upload(v, '/products/p2/image', { base64: toBase64(await makeImage(400, 400, 'png', { colour: '#34495e' })) });
    assert.equal((await call(t.app, 'DELETE', '/v1/products/p1', { key: v.key })).status, 200);
    assert.equal((await call(t.app, 'DELETE', '/v1/products/p2', { key: v.key })).status, 200);
    assert.equal((await fetchImage(p1.body.imageUrl)).statusCode, 200, 'published: guests may still be looking at it');
    assert.equal((await fetchImage(p2.body.imageUrl)).statusCode, 404, 'never published: gone with its product');
  });
});

describe('audit, sandbox and tenants', () => {
  it('audits product.image and logo.image with sizes only', async () => {
    const v = await venueWithProduct();
    const base64 = toBase64(await makeImage(400, 400, 'png'));
    await upload(v, '/products/p1/image', { base64 });
    await call(t.app, 'DELETE', '/v1/products/p1/image', { key: v.key });
    await upload(v, '/logo', { base64 });
    const entries = (await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: v.key })).body.items;
    const images = entries.filter((e: any) => e.action === 'product.image');
    assert.equal(images.length, 2);
    const set = images.find((e: any) => !e.changes.deleted);
    assert.equal(set.entityType, 'product');
    assert.equal(set.entityRef, 'p1');
    assert.equal(set.changes.source, 'base64');
    assert.equal(set.changes.width, 1024);
    assert.equal(set.changes.sourceWidth, 400);
    assert.equal(typeof set.changes.bytes, 'number');
    assert.equal(entries.filter((e: any) => e.action === 'logo.image').length, 1);
    const text = JSON.stringify(entries);
    assert.equal(text.includes(base64.slice(0, 40)), false, 'no bytes in the audit log');
  });

  it("keeps a test key's images in the sandbox and another venue's key out", async () => {
    const v = await venueWithProduct();
    const testKey = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' })).body.key;
    await syncOk(t.app, { ...v, key: testKey }, { products: [{ externalId: 'p1', name: 'Sandbox cake', priceMinor: 1 }] });
    const sandbox = await call(t.app, 'POST', '/v1/products/p1/image', {
      key: testKey,
      body: { base64: toBase64(await makeImage(400, 400)) },
    });
    assert.equal(sandbox.status, 201);
    assert.match(sandbox.body.imageUrl, new RegExp(`/${v.sandboxId}/`));
    assert.equal((await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).body.imageUrl, null, 'live is untouched');

    const other = await venueWithProduct();
    const live = await upload(v, '/products/p1/image', { base64: toBase64(await makeImage(400, 400, 'png')) });
    assert.equal(live.status, 201);
    // The other venue has its own p1; A's product cannot be reached through B's key at all.
    const id = (await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).body.id;
    assertError(await upload(other, `/products/${id}/image`, { base64: toBase64(await makeImage(400, 400)) }), 404, 'PRODUCT_NOT_FOUND');
    assertError(await call(t.app, 'DELETE', `/v1/products/${id}/image`, { key: other.key }), 404, 'PRODUCT_NOT_FOUND');
    assert.equal((await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).body.imageUrl, live.body.imageUrl);
  });
});

describe('bounded processing: 503 MEDIA_BUSY past capacity', () => {
  let busy: TestApp;
  before(async () => {
    busy = await startApp({ mediaConcurrency: 1, mediaQueue: 1 });
  });
  after(() => busy.close());

  it('admits concurrency + queue uploads at once and answers the rest 503 MEDIA_BUSY with Retry-After', async () => {
    const v = await createVenue(busy.app);
    await syncOk(busy.app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
    const base64 = toBase64(await makeImage(2500, 2500, 'jpeg', { noise: true }));
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call(busy.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { base64 } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 201, 503, 503, 503, 503], JSON.stringify(results.map((r) => r.body?.code)));
    for (const refused of results.filter((r) => r.status === 503)) {
      assert.equal(refused.body.code, 'MEDIA_BUSY');
      assert.ok(Number(refused.headers['retry-after']) >= 1);
    }
    // Capacity comes back once they are done.
    assert.equal(busy.services.media.capacity.inFlight, 0);
    assert.equal((await call(busy.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { base64 } })).status, 201);
  });

  it('never admits a deletion or a read into the count', async () => {
    const v = await createVenue(busy.app);
    await syncOk(busy.app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
    assert.equal((await call(busy.app, 'DELETE', '/v1/products/p1/image', { key: v.key })).status, 200);
    assert.equal(busy.services.media.capacity.inFlight, 0);
  });
});

describe('two instances on one PostgreSQL', { skip: onPostgres ? false : 'PostgreSQL only' }, () => {
  let otherDb: Database;
  let other: App;
  before(async () => {
    otherDb = await openPostgres({ url: process.env.DATABASE_URL as string, poolSize: 4, schema: t.database.schema, listen: true });
    ({ app: other } = await buildApp({ config: t.config, db: otherDb }));
    await other.ready();
  });
  after(async () => {
    await other?.close();
    await otherDb?.close();
  });

  it('uploads through one and reads the image, the menus and the bytes through the other', async () => {
    const v = await venueWithProduct();
    const res = await upload(v, '/products/p1/image', { base64: toBase64(await makeRotatedJpegWithGps(700)) });
    assert.equal(res.status, 201);
    assert.equal((await call(other, 'GET', '/v1/products/p1', { key: v.key })).body.imageUrl, res.body.imageUrl);
    assert.equal(
      (await call(other, 'GET', '/v1/menu', { key: v.key })).body.products.find((p: any) => p.externalId === 'p1').imageUrl,
      res.body.imageUrl,
    );
    assert.equal((await call(other, 'POST', '/v1/publish', { key: v.key })).status, 201);
    assert.equal(
      (await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`)).body.products.find((p: any) => p.name === 'Cheesecake').imageUrl,
      res.body.imageUrl,
    );
    for (const variant of res.body.variants) {
      const file = await other.inject({ method: 'GET', url: new URL(variant.url).pathname });
      assert.equal(file.statusCode, 200);
      const meta = await sharp(file.rawPayload).metadata();
      assert.deepEqual([meta.width, meta.height, meta.exif], [variant.width, variant.height, undefined]);
    }
    // A draft-only image removed through the other instance is gone for both.
    const draftOnly = await upload(v, '/products/p2/image', { base64: toBase64(await makeImage(400, 400, 'png', { colour: '#1abc9c' })) });
    assert.equal((await call(other, 'DELETE', '/v1/products/p2/image', { key: v.key })).status, 200);
    assert.equal((await other.inject({ method: 'GET', url: new URL(draftOnly.body.imageUrl).pathname })).statusCode, 404);
    assert.equal((await call(t.app, 'GET', '/v1/products/p2', { key: v.key })).body.imageUrl, null);
  });
});
