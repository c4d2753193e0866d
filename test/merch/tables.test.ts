import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import jsqr from 'jsqr';
import sharp from 'sharp';
import { admin, assertError, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { orderBody, setUpOrderMenu } from '../helpers/orders.js';

// QR tables: CRUD, the plan limit, unique names decided by the database,
// their codes (decoded back from the PNG), a printable sheet, a new link for a leaked code, and
// where the code leads a guest: the table, and dine-in orders at it.

let t: TestApp;
before(async () => {
  t = await startApp({ publicBaseUrl: 'https://menu.example.com' });
});
after(() => t.close());

async function table(v: VenueFixture, body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', '/v1/tables', { key: v.key, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const tokenOf = (qrUrl: string) => qrUrl.split('/t/')[1];

// jsqr is CommonJS typed as an ES default export: under NodeNext the function is its `.default`.
const jsQR = (jsqr as unknown as { default: typeof import('jsqr').default }).default;

/** The text of the QR code in a PNG. */
async function decodePng(png: Buffer): Promise<string | null> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height)?.data ?? null;
}

describe('tables CRUD', () => {
  it('creates with an unguessable QR link, reads, patches with If-Match, lists by name, deletes', async () => {
    const v = await createVenue(t.app);
    const a = await table(v, { name: 'Window 2', seats: 4, zone: 'Terrace', externalId: 'w2' });
    assert.match(a.qrUrl, /^https:\/\/menu\.example\.com\/t\/[0-9A-Za-z]{22}$/);
    assert.deepEqual([a.name, a.seats, a.zone, a.isActive, a.externalId], ['Window 2', 4, 'Terrace', true, 'w2']);
    const b = await table(v, { name: 'bar 1' });
    assert.notEqual(tokenOf(a.qrUrl), tokenOf(b.qrUrl));
    assert.deepEqual(
      (await call(t.app, 'GET', '/v1/tables', { key: v.key })).body.items.map((x: any) => x.name),
      ['bar 1', 'Window 2'],
    );

    const read = await call(t.app, 'GET', `/v1/tables/${a.id}`, { key: v.key });
    const patched = await call(t.app, 'PATCH', `/v1/tables/${a.id}`, {
      key: v.key,
      body: { seats: null, zone: 'Hall' },
      headers: { 'if-match': read.headers.etag as string },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual([patched.body.seats, patched.body.zone, patched.body.qrUrl], [null, 'Hall', a.qrUrl]);
    assertError(
      await call(t.app, 'PATCH', `/v1/tables/${a.id}`, {
        key: v.key,
        body: { seats: 2 },
        headers: { 'if-match': read.headers.etag as string },
      }),
      412,
      'STALE_RESOURCE',
    );

    assert.deepEqual((await call(t.app, 'DELETE', `/v1/tables/${a.id}`, { key: v.key })).body, { id: a.id, deleted: true });
    assertError(await call(t.app, 'GET', `/v1/tables/${a.id}`, { key: v.key }), 404, 'TABLE_NOT_FOUND');
    assertError(await call(t.app, 'GET', `/guest/v1/tables/${tokenOf(a.qrUrl)}`), 404, 'TABLE_NOT_FOUND');
    const actions = (await call(t.app, 'GET', '/v1/audit-log', { key: v.key })).body.items.map((e: any) => e.action);
    assert.deepEqual(actions, ['table.delete', 'table.update', 'table.create', 'table.create']);
  });

  it('refuses a name taken in any case with 409 TABLE_NAME_ALREADY_EXISTS, also under concurrent creates', async () => {
    const v = await createVenue(t.app);
    await table(v, { name: 'Table 1' });
    assertError(await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'table 1' } }), 409, 'TABLE_NAME_ALREADY_EXISTS');
    const other = await table(v, { name: 'Table 2' });
    assertError(
      await call(t.app, 'PATCH', `/v1/tables/${other.id}`, { key: v.key, body: { name: 'TABLE 1' } }),
      409,
      'TABLE_NAME_ALREADY_EXISTS',
    );
    const race = await Promise.all(
      Array.from({ length: 5 }, () => call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'Patio' } })),
    );
    assert.deepEqual(race.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
    // Another venue may use the same name.
    await table(await createVenue(t.app), { name: 'Table 1' });
    assertError(await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'x', externalId: 'e' } }), 201);
    assertError(
      await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'y', externalId: 'e' } }),
      409,
      'EXTERNAL_ID_ALREADY_EXISTS',
    );
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(51) }, { name: 'z', seats: 0 }, { name: 'z', token: 'mine' }]) {
      assertError(await call(t.app, 'POST', '/v1/tables', { key: v.key, body }), 400);
    }
  });

  it('counts tables against the plan: TABLE_LIMIT_REACHED with details, usage in reference', async () => {
    const v = await createVenue(t.app, { plan: 'free' });
    for (let i = 0; i < 10; i += 1) await table(v, { name: `T${i}` });
    const refused = await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: 'T10' } });
    assertError(refused, 400, 'TABLE_LIMIT_REACHED');
    assert.deepEqual(refused.body.details, { limit: 10, available: 0, requested: 1 });
    assert.equal((await call(t.app, 'GET', '/v1/reference', { key: v.key })).body.planLimits.usage.tables, 10);
  });

  it('refuses writes with a read-only key and keeps sandbox tables apart', async () => {
    const v = await createVenue(t.app);
    const a = await table(v, { name: 'Live' });
    const readOnly = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'live', readOnly: true })).body.key;
    for (const [method, url, body] of [
      ['POST', '/v1/tables', { name: 'x' }],
      ['PATCH', `/v1/tables/${a.id}`, { name: 'x' }],
      ['DELETE', `/v1/tables/${a.id}`, undefined],
      ['POST', `/v1/tables/${a.id}/regenerate-token`, undefined],
    ] as const) {
      assertError(await call(t.app, method, url, { key: readOnly, body }), 403, 'READ_ONLY_KEY');
    }
    assert.equal((await call(t.app, 'GET', `/v1/tables/${a.id}/qr.svg`, { key: readOnly })).status, 200);
    const test = (await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' })).body.key;
    assert.equal((await call(t.app, 'GET', '/v1/tables', { key: test })).body.total, 0);
    const sandboxTable = (await call(t.app, 'POST', '/v1/tables', { key: test, body: { name: 'Live' } })).body;
    const guest = await call(t.app, 'GET', `/guest/v1/tables/${tokenOf(sandboxTable.qrUrl)}`);
    assert.equal(guest.body.venue.slug, `${v.slug}-sandbox`);
  });
});

describe('QR codes', () => {
  // The app blocks sharp's SVG loader for uploads (process-wide); these tests rasterise our own SVGs.
  before(() => sharp.unblock({ operation: ['VipsForeignLoadSvg'] }));

  it('draws a PNG (?size=) that decodes back to the qrUrl, and an SVG', async () => {
    const v = await createVenue(t.app);
    const a = await table(v, { name: 'Garden 5' });
    for (const size of [128, 512, 1024]) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/tables/${a.id}/qr.png?size=${size}`,
        headers: { authorization: `Bearer ${v.key}` },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'image/png');
      const meta = await sharp(res.rawPayload).metadata();
      assert.deepEqual([meta.width, meta.height], [size, size]);
      assert.equal(await decodePng(res.rawPayload), a.qrUrl, `size ${size}`);
    }
    assertError(await call(t.app, 'GET', `/v1/tables/${a.id}/qr.png?size=10000`, { key: v.key }), 400);
    const svg = await t.app.inject({ method: 'GET', url: `/v1/tables/${a.id}/qr.svg`, headers: { authorization: `Bearer ${v.key}` } });
    assert.equal(svg.statusCode, 200);
    assert.match(svg.headers['content-type'] as string, /^image\/svg\+xml/);
    // The SVG rasterised decodes too.
    assert.equal(await decodePng(await sharp(Buffer.from(svg.body)).resize(400).png().toBuffer()), a.qrUrl);
    assertError(await call(t.app, 'GET', '/v1/tables/00000000-0000-7000-8000-000000000000/qr.png', { key: v.key }), 404, 'TABLE_NOT_FOUND');
  });

  it("prints every active table's code with its name and zone on A4 pages, escaping the names", async () => {
    const v = await createVenue(t.app);
    for (let i = 1; i <= 13; i += 1)
      await table(v, { name: i === 1 ? 'Стіл <1> & "a"\u0001' : `T${String(i).padStart(2, '0')}`, zone: i % 2 ? 'Hall' : null });
    const hidden = await table(v, { name: 'Closed', isActive: false });
    const sheet = await t.app.inject({ method: 'GET', url: '/v1/tables/qr-sheet.svg', headers: { authorization: `Bearer ${v.key}` } });
    assert.equal(sheet.statusCode, 200, sheet.body);
    assert.match(sheet.headers['content-type'] as string, /^image\/svg\+xml/);
    assert.match(sheet.body, /width="210mm" height="594mm"/, 'two A4 pages for 13 tables');
    assert.ok(sheet.body.includes('Стіл &#60;1&#62; &#38; &#34;a&#34;<'), 'names are escaped, control characters dropped');
    assert.ok(!sheet.body.includes(hidden.name));
    assert.ok(sheet.body.includes('Hall'));
    // By name: T02..T13 fill page 1, the Cyrillic name sorts last.
    const page2 = await t.app.inject({
      method: 'GET',
      url: '/v1/tables/qr-sheet.svg?page=2',
      headers: { authorization: `Bearer ${v.key}` },
    });
    assert.match(page2.body, /height="297mm"/);
    assert.ok(page2.body.includes('Стіл') && !page2.body.includes('T13'));
    assertError(await call(t.app, 'GET', '/v1/tables/qr-sheet.svg?page=3', { key: v.key }), 400);
    // It renders, and the code on it reads.
    const png = await sharp(Buffer.from(page2.body)).resize(1240).flatten({ background: '#fff' }).png().toBuffer();
    assert.match((await decodePng(png)) ?? '', /^https:\/\/menu\.example\.com\/t\/[0-9A-Za-z]{22}$/);
  });

  it('gives a leaked code a new link: the old one stops working at once', async () => {
    const v = await createVenue(t.app);
    const a = await table(v, { name: 'Leaked' });
    assert.equal((await call(t.app, 'GET', `/guest/v1/tables/${tokenOf(a.qrUrl)}`)).status, 200);
    const res = await call(t.app, 'POST', `/v1/tables/${a.id}/regenerate-token`, { key: v.key });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.notEqual(res.body.qrUrl, a.qrUrl);
    assertError(await call(t.app, 'GET', `/guest/v1/tables/${tokenOf(a.qrUrl)}`), 404, 'TABLE_NOT_FOUND');
    assert.equal((await call(t.app, 'GET', `/guest/v1/tables/${tokenOf(res.body.qrUrl)}`)).status, 200);
  });
});

describe('the guest side of tables', () => {
  it('resolves a token to the venue slug and the table; 404 for an unknown or deactivated table', async () => {
    const v = await createVenue(t.app);
    const a = await table(v, { name: 'Bar 3', zone: 'Bar' });
    const res = await call(t.app, 'GET', `/guest/v1/tables/${tokenOf(a.qrUrl)}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { venue: { slug: v.slug, name: res.body.venue.name }, table: { id: a.id, name: 'Bar 3', zone: 'Bar' } });
    assertError(await call(t.app, 'GET', '/guest/v1/tables/NoSuchToken0000000000'), 404, 'TABLE_NOT_FOUND');
    await call(t.app, 'PATCH', `/v1/tables/${a.id}`, { key: v.key, body: { isActive: false } });
    assertError(await call(t.app, 'GET', `/guest/v1/tables/${tokenOf(a.qrUrl)}`), 404, 'TABLE_NOT_FOUND');
  });

  it('takes a dine-in order at an active table of the venue, keeps its name, and refuses anything else', async () => {
    const v = await createVenue(t.app);
    const ids = await setUpOrderMenu(t.app, v);
    const a = await table(v, { name: 'Window 4' });
    const place = (body: Record<string, unknown>) =>
      call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, { body: orderBody(ids, body) });
    const ok = await place({ type: 'dine_in', tableId: a.id });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual([ok.body.tableId, ok.body.tableName], [a.id, 'Window 4']);
    await call(t.app, 'PATCH', `/v1/tables/${a.id}`, { key: v.key, body: { name: 'Renamed' } });
    assert.equal(
      (await call(t.app, 'GET', `/v1/orders/${ok.body.id}`, { key: v.key })).body.tableName,
      'Window 4',
      'the order keeps the name it was placed with',
    );

    const pickup = await place({ type: 'pickup', tableId: a.id });
    assertError(pickup, 400);
    assert.deepEqual(pickup.body.errors, ['tableId is only for dine_in orders']);
    const unknown = await place({ type: 'dine_in', tableId: '00000000-0000-7000-8000-000000000000' });
    assert.match(unknown.body.errors.join(' '), /is not an active table of this venue/);
    const other = await table(await createVenue(t.app), { name: 'Elsewhere' });
    assertError(await place({ type: 'dine_in', tableId: other.id }), 400);
    await call(t.app, 'PATCH', `/v1/tables/${a.id}`, { key: v.key, body: { isActive: false } });
    assertError(await place({ type: 'dine_in', tableId: a.id }), 400);
    assertError(await place({ type: 'dine_in', tableId: 'not-a-uuid' }), 400);
    // Dine-in without a table stays allowed (ordering at the counter).
    assert.equal((await place({ type: 'dine_in' })).status, 201);
  });
});
