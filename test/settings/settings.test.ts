import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

const DEFAULT_ORDER_CONFIG = {
  acceptingOrders: true,
  deliveryEnabled: false,
  pickupEnabled: true,
  dineInEnabled: true,
  deliveryFeeMinor: 0,
  freeDeliveryFromMinor: null,
  minOrderMinor: 0,
  pausedUntil: null,
  prepTimeMinutes: 15,
  scheduledOrders: { enabled: false, maxDaysAhead: 2 },
};

describe('GET and PATCH /v1/settings', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  async function getSettings(v: VenueFixture) {
    const res = await call(t.app, 'GET', '/v1/settings', { key: v.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res;
  }

  function patch(v: VenueFixture, body: unknown, headers: Record<string, string> = {}) {
    return call(t.app, 'PATCH', '/v1/settings', { key: v.key, body, headers });
  }

  async function auditEntries(v: VenueFixture) {
    const res = await call(t.app, 'GET', '/v1/audit-log?action=settings.update', { key: v.key });
    assert.equal(res.status, 200);
    return res.body.items;
  }

  it('starts from the documented defaults', async () => {
    const v = await createVenue(t.app, { currency: 'PLN' });
    const { body } = await getSettings(v);
    assert.equal(body.currency, 'PLN');
    assert.equal(body.defaultLanguage, 'en');
    assert.deepEqual(body.enabledLanguages, ['en']);
    assert.equal(body.cardStyle, 'minimalism');
    assert.equal(typeof body.timezone, 'string');
    assert.deepEqual(body.orderConfig, DEFAULT_ORDER_CONFIG);
    assert.match(body.name, /^Test Venue /);
  });

  it('sends an ETag and answers If-None-Match with it by 304', async () => {
    const v = await createVenue(t.app);
    const first = await getSettings(v);
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[^"]+"$/);
    const res = await call(t.app, 'GET', '/v1/settings', { key: v.key, headers: { 'if-none-match': etag } });
    assert.equal(res.status, 304);
    assert.equal(res.raw.body, '');
  });

  it('changes the given fields, keeps the others, and answers with the view and its ETag', async () => {
    const v = await createVenue(t.app);
    const res = await patch(v, {
      name: 'Cafe Nord',
      cardStyle: 'compact',
      timezone: 'Europe/Kyiv',
      enabledLanguages: ['en', 'uk', 'pt-BR'],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.name, res.body.cardStyle, res.body.timezone, res.body.enabledLanguages, res.body.defaultLanguage],
      ['Cafe Nord', 'compact', 'Europe/Kyiv', ['en', 'uk', 'pt-BR'], 'en'],
    );
    assert.deepEqual(res.body.orderConfig, DEFAULT_ORDER_CONFIG);
    const read = await getSettings(v);
    assert.deepEqual(read.body, res.body);
    assert.equal(read.headers.etag, res.headers.etag);

    const again = await patch(v, { cardStyle: 'premium' });
    assert.equal(again.status, 200);
    assert.deepEqual([again.body.name, again.body.timezone, again.body.cardStyle], ['Cafe Nord', 'Europe/Kyiv', 'premium']);
  });

  it('accepts If-Match with the current ETag and fails a stale one with 412 STALE_RESOURCE, changing nothing', async () => {
    const v = await createVenue(t.app);
    const first = await getSettings(v);
    const ok = await patch(v, { name: 'First' }, { 'if-match': first.headers.etag as string });
    assert.equal(ok.status, 200);
    assert.notEqual(ok.headers.etag, first.headers.etag);

    const stale = await patch(v, { name: 'Lost update' }, { 'if-match': first.headers.etag as string });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.code, 'STALE_RESOURCE');
    const after = await getSettings(v);
    assert.equal(after.body.name, 'First');
    assert.equal(after.headers.etag, ok.headers.etag);
    assert.equal((await auditEntries(v)).length, 1);
  });

  it('lets only one of two concurrent PATCHes with the same If-Match through', async () => {
    const v = await createVenue(t.app);
    const etag = (await getSettings(v)).headers.etag as string;
    const results = await Promise.all([
      patch(v, { name: 'Writer one' }, { 'if-match': etag }),
      patch(v, { name: 'Writer two' }, { 'if-match': etag }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 412]);
    const winner = results.find((r) => r.status === 200)!;
    assert.equal((await getSettings(v)).body.name, winner.body.name);
  });

  it('takes enabledLanguages from the reference languages only (400 otherwise)', async () => {
    const v = await createVenue(t.app);
    for (const enabledLanguages of [['en', 'xx'], ['EN'], ['en', 'en'], []]) {
      const res = await patch(v, { enabledLanguages });
      assert.equal(res.status, 400, JSON.stringify(enabledLanguages));
    }
    assert.deepEqual((await getSettings(v)).body.enabledLanguages, ['en']);
  });

  it('keeps the default language enabled', async () => {
    const v = await createVenue(t.app);
    const without = await patch(v, { enabledLanguages: ['uk', 'de'] });
    assert.equal(without.status, 200);
    assert.ok(without.body.enabledLanguages.includes('en'), JSON.stringify(without.body.enabledLanguages));
    assert.deepEqual([...without.body.enabledLanguages].sort(), ['de', 'en', 'uk']);

    const newDefault = await patch(v, { defaultLanguage: 'fr' });
    assert.equal(newDefault.status, 200);
    assert.equal(newDefault.body.defaultLanguage, 'fr');
    assert.ok(newDefault.body.enabledLanguages.includes('fr'));

    // An enabled locale is accepted in translations; a disabled one is not.
    await call(t.app, 'POST', '/v1/sync', { key: v.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 1 }] } });
    const fr = await call(t.app, 'PUT', '/v1/translations', {
      key: v.key,
      body: { products: [{ ref: 'p1', translations: { fr: { name: 'Thé' } } }] },
    });
    assert.equal(fr.status, 200);
    const es = await call(t.app, 'PUT', '/v1/translations', {
      key: v.key,
      body: { products: [{ ref: 'p1', translations: { es: { name: 'Té' } } }] },
    });
    assert.equal(es.body.code, 'LOCALE_NOT_ENABLED');
  });

  it('rejects a timezone that is not an IANA zone with 400', async () => {
    const v = await createVenue(t.app);
    for (const timezone of ['Mars/Olympus_Mons', 'not a zone', '']) {
      const res = await patch(v, { timezone });
      assert.equal(res.status, 400, timezone);
    }
    const ok = await patch(v, { timezone: 'America/Lima' });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.timezone, 'America/Lima');
  });

  it('refuses orderConfig on the free plan with 403 DELIVERY_NOT_AVAILABLE and changes nothing', async () => {
    const v = await createVenue(t.app, { plan: 'free' });
    for (const orderConfig of [{ deliveryEnabled: true }, { minOrderMinor: 500 }, { acceptingOrders: false }]) {
      const res = await patch(v, { name: 'Sneaky', orderConfig });
      assert.equal(res.status, 403, JSON.stringify(orderConfig));
      assert.equal(res.body.code, 'DELIVERY_NOT_AVAILABLE');
    }
    const { body } = await getSettings(v);
    assert.notEqual(body.name, 'Sneaky');
    assert.deepEqual(body.orderConfig, DEFAULT_ORDER_CONFIG);
    assert.equal((await patch(v, { name: 'Allowed' })).status, 200, 'other settings work on the free plan');

    // A plan change applies on the next call.
    const upgraded = await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'standard' });
    assert.equal(upgraded.status, 200);
    assert.equal((await patch(v, { orderConfig: { deliveryEnabled: true } })).status, 200);
  });

  it('merges orderConfig fields on a plan with delivery', async () => {
    const v = await createVenue(t.app, { plan: 'standard' });
    const first = await patch(v, { orderConfig: { deliveryEnabled: true, deliveryFeeMinor: 500, freeDeliveryFromMinor: 3000 } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const second = await patch(v, { orderConfig: { minOrderMinor: 1000, freeDeliveryFromMinor: null, dineInEnabled: false } });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body.orderConfig, {
      ...DEFAULT_ORDER_CONFIG,
      deliveryEnabled: true,
      deliveryFeeMinor: 500,
      freeDeliveryFromMinor: null,
      minOrderMinor: 1000,
      dineInEnabled: false,
    });
    assert.deepEqual((await getSettings(v)).body.orderConfig, second.body.orderConfig);
    const pro = await createVenue(t.app, { plan: 'pro' });
    assert.equal((await patch(pro, { orderConfig: { pickupEnabled: false } })).status, 200);
  });

  it('rejects unknown fields, top-level and inside orderConfig, and bad values with 400', async () => {
    const v = await createVenue(t.app, { plan: 'standard' });
    const bodies = [
      { colour: 'red' },
      { currency: 'USD' },
      { orderConfig: { surge: true } },
      { orderConfig: { deliveryFeeMinor: -1 } },
      { cardStyle: 'brutalism' },
      { defaultLanguage: 'xx' },
      { name: '' },
    ];
    for (const body of bodies) {
      const res = await patch(v, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.message, 'Validation failed');
    }
    assert.deepEqual(await auditEntries(v), []);
  });

  it('audits settings.update with the names of the changed fields only', async () => {
    const v = await createVenue(t.app, { plan: 'standard' });
    const res = await patch(
      v,
      {
        name: 'Secret Garden Bistro',
        timezone: 'Europe/Kyiv',
        cardStyle: 'minimalism',
        orderConfig: { minOrderMinor: 4321, pickupEnabled: true },
      },
      { 'x-request-id': 'settings-audit-1' },
    );
    assert.equal(res.status, 200);
    const entries = await auditEntries(v);
    assert.equal(entries.length, 1);
    const [entry] = entries;
    assert.deepEqual([entry.entityType, entry.requestId, entry.source], ['settings', 'settings-audit-1', 'api_key']);
    const fields: string[] = entry.changes.fields;
    assert.ok(fields.includes('name') && fields.includes('timezone'), JSON.stringify(fields));
    assert.ok(
      fields.some((f) => f.startsWith('orderConfig')),
      JSON.stringify(fields),
    );
    assert.ok(!fields.includes('cardStyle'), 'an unchanged field is not listed');
    assert.ok(!fields.some((f) => f.includes('pickupEnabled')), 'an unchanged orderConfig field is not listed');
    const text = JSON.stringify(entry);
    assert.ok(!text.includes('Secret Garden') && !text.includes('4321') && !text.includes('Kyiv'), 'values are never stored');
  });
});
