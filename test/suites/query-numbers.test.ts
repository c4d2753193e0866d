import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { fillPattern } from '../helpers/route-table.js';

// Every numeric query parameter of every operation: a number no list can use is a 400
// in the error envelope naming the parameter, never a 500, and a usable one still answers.

const UNUSABLE = ['1e308', 'Infinity', '-Infinity', 'NaN', '1.5', '0', '-1', '9007199254740993', '', 'abc', '-0.5', '1e400'];

interface NumericParam {
  method: string;
  path: string;
  name: string;
  minimum: number;
}

/** Every query parameter the OpenAPI document gives an integer or number type, on every operation. */
function numericParams(doc: any): NumericParam[] {
  const out: NumericParam[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const p of op.parameters ?? []) {
        if (p.in !== 'query' || !['integer', 'number'].includes(p.schema?.type)) continue;
        out.push({ method: method.toUpperCase(), path: path.replace(/\{(\w+)\}/g, ':$1'), name: p.name, minimum: p.schema.minimum ?? 0 });
      }
    }
  }
  return out;
}

let t: TestApp;
let v: VenueFixture;
let params: NumericParam[];
let ids: Record<string, string[]>;
before(async () => {
  t = await startApp();
  v = await createVenue(t.app, { plan: 'pro' });
  const created = async (url: string, body: unknown) => {
    const res = await call(t.app, 'POST', url, { key: v.key, body });
    assert.ok(res.status < 300, `${url}: ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const promotion = await created('/v1/promotions', { name: 'Promo' });
  const table = await created('/v1/tables', { name: 'Table 1' });
  const webhook = await created('/v1/webhooks', { url: 'https://pos.example.com/hooks', events: ['order.created'] });
  ids = { 'promotions/:id': [promotion], 'tables/:id': [table], 'webhooks/:id': [webhook], 'venues/:id': [v.id] };
  params = numericParams((await call(t.app, 'GET', '/v1/openapi.json')).body);
});
after(() => t?.close());

const urlOf = (p: NumericParam, query: string) => `${fillPattern(p.path, ids)[0]}?${query}`;
/** The operator's token on /admin/v1 (the staff list), the venue's key everywhere else. */
const keyOf = (p: NumericParam) => (p.path.startsWith('/admin/') ? ADMIN_TOKEN : v.key);

describe('numeric query parameters', () => {
  it('are found on every paginated list and the QR routes', () => {
    const found = new Set(params.map((p) => `${p.method} ${p.path} ${p.name}`));
    for (const expected of [
      'GET /v1/orders page',
      'GET /v1/orders limit',
      'GET /v1/audit-log page',
      'GET /v1/banners limit',
      'GET /v1/promotions/:id/items page',
      'GET /v1/tables page',
      'GET /v1/tables/qr-sheet.svg page',
      'GET /v1/tables/:id/qr.png size',
      'GET /v1/webhooks/:id/deliveries limit',
      'GET /admin/v1/venues/:id/staff page',
    ]) {
      assert.ok(found.has(expected), `${expected} is in the document`);
    }
  });

  it('refuse a number no list can use with 400, naming the parameter', async () => {
    const failures: string[] = [];
    for (const p of params) {
      for (const value of UNUSABLE) {
        const url = urlOf(p, `${p.name}=${encodeURIComponent(value)}`);
        const res = await call(t.app, p.method as 'GET', url, { key: keyOf(p) });
        const named = Array.isArray(res.body?.errors) && res.body.errors.some((e: string) => e.startsWith(`${p.name} `));
        if (res.status !== 400 || res.body.statusCode !== 400 || res.body.message !== 'Validation failed' || !named) {
          failures.push(`${url}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('answer a usable number as before', async () => {
    for (const p of params) {
      for (const query of [`${p.name}=${p.minimum}`, '']) {
        const url = urlOf(p, query);
        const res = await call(t.app, p.method as 'GET', url, { key: keyOf(p) });
        assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body).slice(0, 300)}`);
      }
    }
  });

  it('answer a page past the end of a list with its empty page', async () => {
    for (const list of ['/v1/orders', '/v1/audit-log', '/v1/tables', '/v1/webhooks']) {
      const res = await call(t.app, 'GET', `${list}?page=1000000&limit=100`, { key: v.key });
      assert.equal(res.status, 200, `${list}: ${JSON.stringify(res.body)}`);
      assert.deepEqual([res.body.items, res.body.page, res.body.limit], [[], 1000000, 100]);
    }
  });
});
