import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /v1/audit-log', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  function send(v: VenueFixture, method: 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'GET', url: string, body?: unknown, requestId?: string) {
    return call(t.app, method, url, { key: v.key, body, headers: requestId ? { 'x-request-id': requestId } : {} });
  }

  async function auditLog(v: VenueFixture, query = '') {
    const res = await call(t.app, 'GET', `/v1/audit-log${query}`, { key: v.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  it('writes one entry per mutating call, newest first, in the list envelope', async () => {
    const v = await createVenue(t.app);
    const calls: [string, 'POST' | 'PATCH' | 'PUT' | 'DELETE', string, unknown, number][] = [
      [
        'menu.sync',
        'POST',
        '/v1/sync',
        {
          products: [
            { externalId: 'p1', name: 'Tea', priceMinor: 100 },
            { externalId: 'p2', name: 'Coffee', priceMinor: 200 },
          ],
        },
        201,
      ],
      ['product.update', 'PATCH', '/v1/products/p1', { priceMinor: 120 }, 200],
      ['menu.publish', 'POST', '/v1/publish', undefined, 201],
      ['settings.update', 'PATCH', '/v1/settings', { cardStyle: 'compact' }, 200],
      ['product.translations', 'PUT', '/v1/translations', { products: [{ ref: 'p1', translations: { en: { name: 'Black tea' } } }] }, 200],
      ['menu.cleanup', 'POST', '/v1/cleanup', { items: [{ type: 'product', ref: 'p2' }] }, 201],
      ['product.delete', 'DELETE', '/v1/products/p2', undefined, 200],
    ];
    for (const [action, method, url, body, status] of calls) {
      const res = await send(v, method, url, body, `req-${action}`);
      assert.equal(res.status, status, `${action}: ${JSON.stringify(res.body)}`);
      assert.equal(res.headers['x-request-id'], `req-${action}`);
    }

    const log = await auditLog(v);
    assert.deepEqual(Object.keys(log).sort(), ['items', 'limit', 'page', 'total', 'totalPages']);
    assert.deepEqual([log.total, log.page, log.limit, log.totalPages], [calls.length, 1, 20, 1]);
    const expected = calls.map(([action]) => action).reverse();
    assert.deepEqual(
      log.items.map((e: any) => e.action),
      expected,
    );
    for (const e of log.items) {
      assert.deepEqual(Object.keys(e).sort(), ['action', 'changes', 'createdAt', 'entityRef', 'entityType', 'id', 'requestId', 'source']);
      assert.equal(e.requestId, `req-${e.action}`, 'requestId is the x-request-id of the call');
      assert.equal(e.source, 'api_key');
      assert.equal(typeof e.id, 'string');
      assert.equal(typeof e.changes, 'object');
      assert.match(e.createdAt, ISO_UTC);
    }
    const times = log.items.map((e: any) => Date.parse(e.createdAt));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  it('uses the generated request id when the call sends none', async () => {
    const v = await createVenue(t.app);
    const res = await send(v, 'PATCH', '/v1/settings', { name: 'Renamed venue' });
    assert.equal(res.status, 200);
    const log = await auditLog(v);
    assert.equal(log.items[0].requestId, res.headers['x-request-id']);
  });

  it('keeps newest first across many quick calls', async () => {
    const v = await createVenue(t.app);
    const ids: string[] = [];
    for (let i = 0; i < 25; i += 1) {
      const id = `seq-${String(i).padStart(2, '0')}`;
      ids.push(id);
      const res = await send(v, 'PATCH', '/v1/settings', { name: `Name ${i}` }, id);
      assert.equal(res.status, 200);
    }
    const log = await auditLog(v, '?limit=100');
    assert.deepEqual(
      log.items.map((e: any) => e.requestId),
      [...ids].reverse(),
    );
  });

  it('pages with page and limit (default 20, max 100)', async () => {
    const v = await createVenue(t.app);
    for (let i = 0; i < 25; i += 1) {
      assert.equal((await send(v, 'PATCH', '/v1/settings', { name: `Venue ${i}` }, `page-${String(i).padStart(2, '0')}`)).status, 200);
    }
    const first = await auditLog(v);
    assert.deepEqual([first.items.length, first.total, first.page, first.limit, first.totalPages], [20, 25, 1, 20, 2]);
    const second = await auditLog(v, '?page=2');
    assert.deepEqual([second.items.length, second.page, second.totalPages], [5, 2, 2]);
    const all = [...first.items, ...second.items].map((e: any) => e.requestId);
    assert.equal(new Set(all).size, 25, 'pages do not overlap');

    const small = await auditLog(v, '?limit=10&page=3');
    assert.deepEqual([small.items.length, small.limit, small.page, small.totalPages], [5, 10, 3, 3]);
    assert.deepEqual(
      small.items.map((e: any) => e.requestId),
      all.slice(20),
    );
    const beyond = await auditLog(v, '?page=9');
    assert.deepEqual([beyond.items.length, beyond.total], [0, 25]);
    assert.equal((await auditLog(v, '?limit=100')).items.length, 25);

    for (const query of ['?limit=101', '?limit=0', '?page=0', '?limit=abc', '?page=-1']) {
      const res = await call(t.app, 'GET', `/v1/audit-log${query}`, { key: v.key });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.message, 'Validation failed');
    }
  });

  it('filters by action with an exact match, and rejects an action outside the allowed list', async () => {
    const v = await createVenue(t.app);
    await send(v, 'POST', '/v1/sync', { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
    await send(v, 'POST', '/v1/sync', { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 110 }] });
    await send(v, 'PATCH', '/v1/products/p1', { name: 'Green tea' });
    await send(v, 'POST', '/v1/publish');

    const syncs = await auditLog(v, '?action=menu.sync');
    assert.equal(syncs.total, 2);
    assert.ok(syncs.items.every((e: any) => e.action === 'menu.sync'));
    assert.equal((await auditLog(v, '?action=product.update')).total, 1);
    assert.equal((await auditLog(v, '?action=menu.publish')).total, 1);
    assert.equal((await auditLog(v, '?action=order.status_update')).total, 0, 'an allowed action with no entries');

    for (const action of ['menu', 'menu.*', 'MENU.SYNC', 'menu.sync,menu.publish', 'bogus']) {
      const res = await call(t.app, 'GET', `/v1/audit-log?action=${encodeURIComponent(action)}`, { key: v.key });
      assert.equal(res.status, 400, action);
    }
  });

  it('does not log reads or dry-run syncs', async () => {
    const v = await createVenue(t.app);
    const dry = await send(v, 'POST', '/v1/sync?dryRun=true', { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
    assert.equal(dry.status, 201);
    assert.equal(dry.body.dryRun, true);
    for (const url of ['/v1/menu', '/v1/settings', '/v1/reference', '/v1/audit-log', '/v1/menu?version=published', '/v1/products/p1']) {
      await send(v, 'GET', url);
    }
    const log = await auditLog(v);
    assert.deepEqual([log.total, log.items, log.totalPages], [0, [], 0]);
  });

  it('leaves no entry for a change that was rejected or rolled back', async () => {
    const v = await createVenue(t.app, { plan: 'free' });
    const seed = await send(v, 'POST', '/v1/sync', { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] });
    assert.equal(seed.status, 201);
    const baseline = (await auditLog(v)).total;

    const tooMany = Array.from({ length: 11 }, (_, i) => ({ externalId: `c${i}`, name: `Category ${i}` }));
    const rejected: [string, () => Promise<{ status: number; body: any }>, number][] = [
      ['plan limit', () => send(v, 'POST', '/v1/sync', { categories: tooMany }), 400],
      ['schema validation', () => send(v, 'POST', '/v1/sync', { products: [{ externalId: 'p2', name: 'X', priceMinor: -1 }] }), 400],
      [
        'stale If-Match',
        () => call(t.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { name: 'X' }, headers: { 'if-match': '"stale"' } }),
        412,
      ],
      ['sale without price', () => send(v, 'PATCH', '/v1/products/p1', { isSaleActive: true }), 400],
      ['unknown category', () => send(v, 'PATCH', '/v1/products/p1', { categoryRef: 'ghost' }), 404],
      [
        'bad translation',
        () => send(v, 'PUT', '/v1/translations', { products: [{ ref: 'p1', translations: { xx: { name: 'X' } } }] }),
        400,
      ],
      ['empty cleanup', () => send(v, 'POST', '/v1/cleanup', { items: [] }), 400],
      ['delivery on free', () => send(v, 'PATCH', '/v1/settings', { orderConfig: { deliveryEnabled: true } }), 403],
      ['unknown product', () => send(v, 'DELETE', '/v1/products/ghost'), 404],
      ['publish with body', () => send(v, 'POST', '/v1/publish', { x: 1 }), 400],
    ];
    for (const [label, run, status] of rejected) {
      const res = await run();
      assert.equal(res.status, status, `${label}: ${JSON.stringify(res.body)}`);
    }
    const limit = await send(v, 'POST', '/v1/sync', { categories: tooMany });
    assert.equal(limit.body.code, 'CATEGORY_BULK_LIMIT_EXCEEDED');
    assert.equal((await auditLog(v)).total, baseline);
    const menu = await send(v, 'GET', '/v1/menu');
    assert.deepEqual(menu.body.categories, [], 'the rejected sync wrote nothing');
  });

  it('never stores names, descriptions or prices (privacy)', async () => {
    const v = await createVenue(t.app);
    const settings = await send(v, 'PATCH', '/v1/settings', { enabledLanguages: ['en', 'uk'] });
    assert.equal(settings.status, 200);
    const steps: [string, 'POST' | 'PATCH' | 'PUT' | 'DELETE', string, unknown][] = [
      [
        'sync',
        'POST',
        '/v1/sync',
        {
          categories: [{ externalId: 'cat-1', name: 'Zanzibar Treats' }],
          ingredients: [{ externalId: 'ing-1', name: 'Zanzibar Truffle Shavings' }],
          products: [
            {
              externalId: 'special-1',
              name: 'Zanzibar Truffle Special',
              description: 'Hand-shaved Zanzibar truffles, 987654 reasons to try',
              priceMinor: 987654,
              salePriceMinor: 987650,
              badgeLabel: 'Zanzibar',
              categoryExternalId: 'cat-1',
              ingredientExternalIds: ['ing-1'],
              modifierGroups: [
                { name: 'Zanzibar extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'ing-1', priceAdjustment: 987653 }] },
              ],
              translations: { uk: { name: 'Занзібарський трюфель' } },
            },
          ],
        },
      ],
      [
        'patch',
        'PATCH',
        '/v1/products/special-1',
        { name: 'Zanzibar Truffle Special II', priceMinor: 987655, description: 'Zanzibar again' },
      ],
      [
        'translations',
        'PUT',
        '/v1/translations',
        { products: [{ ref: 'special-1', translations: { uk: { description: 'Занзібарський опис' } } }] },
      ],
      ['publish', 'POST', '/v1/publish', undefined],
      ['settings', 'PATCH', '/v1/settings', { name: 'Zanzibar Lounge' }],
      ['cleanup', 'POST', '/v1/cleanup', { items: [{ type: 'ingredient', ref: 'ing-1' }] }],
      ['delete', 'DELETE', '/v1/products/special-1', undefined],
    ];
    for (const [label, method, url, body] of steps) {
      const res = await send(v, method, url, body, `privacy-${label}`);
      assert.ok(res.status < 300, `${label}: ${res.status} ${JSON.stringify(res.body)}`);
    }

    const log = await auditLog(v, '?limit=100');
    assert.equal(log.total, steps.length + 1);
    // Ids are masked first: a random uuid may contain any short run of digits.
    const masked = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>');
    const secrets = ['Zanzibar', 'Truffle', 'Занзібар', '98765', 'Hand-shaved'];
    const text = masked(JSON.stringify(log));
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), `the audit log API shows '${secret}'`);
    }

    const { rows } = await t.database.db.query<{ row: string }>('select row_to_json(a)::text as row from audit_log a where venue_id = $1', [
      v.id,
    ]);
    assert.equal(rows.length, steps.length + 1);
    const stored = masked(rows.map((r) => r.row).join('\n'));
    for (const secret of secrets) {
      assert.ok(!stored.includes(secret), `the audit_log table holds '${secret}'`);
    }
  });
});
