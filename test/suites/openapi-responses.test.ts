import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { expectStatus } from '../helpers/orders.js';

// Real responses against docs/openapi.json's response schemas, checked by Ajv with its DEFAULT
// options (strict, no multipleOf precision), as a client or a validating proxy (Prism) would. A
// `multipleOf: 0.1` on nutrition grams made such validators refuse 0.3, 1.2 or 2.9: binary floating
// point divides 0.3 by 0.1 into 2.9999999999999996.

type AddFormats = (ajv: Ajv) => Ajv;
const formatsModule = ajvFormats as unknown as { default: AddFormats | { default: AddFormats } };
const addFormats: AddFormats = typeof formatsModule.default === 'function' ? formatsModule.default : formatsModule.default.default;

const doc = JSON.parse(fs.readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
const DOC_ID = 'https://carta.example/openapi.json';

/** The document's schemas with their `#/components/schemas/X` refs pointed at `$defs` of one registered schema. */
function rebased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebased);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', `${DOC_ID}#/$defs/`) : rebased(v),
    ]),
  );
}

const ajv = new Ajv();
addFormats(ajv);
ajv.addSchema({ $id: DOC_ID, $defs: rebased(doc.components?.schemas ?? {}) as object });

/** The validator of one documented response's JSON body. */
function responseValidator(method: string, path: string, status: number): ValidateFunction {
  const schema = doc.paths[path]?.[method]?.responses?.[String(status)]?.content?.['application/json']?.schema;
  assert.ok(schema, `${method.toUpperCase()} ${path} ${status} is documented with a JSON body`);
  return ajv.compile(rebased(schema) as object);
}

function assertDocumented(method: string, path: string, status: number, body: unknown): void {
  const validate = responseValidator(method, path, status);
  assert.ok(validate(body), `${method.toUpperCase()} ${path} ${status}: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
}

/** Every one-decimal value from 0.0 to 9.9, and some larger: a third of them are not multiples of 0.1 in binary. */
const TENTHS = Array.from({ length: 100 }, (_, i) => i / 10).concat([12.3, 99.9, 100.7, 999.9, 1000]);
const NUTRIENTS = ['fat', 'saturatedFat', 'carbohydrate', 'sugars', 'fibre', 'protein', 'salt'];

describe('real responses validate against the published OpenAPI document with a default Ajv', () => {
  let t: TestApp;
  let v: VenueFixture;
  before(async () => {
    t = await startApp();
    v = await createVenue(t.app);
    // Products whose nutrition values go through every tenth (0.3, 1.2, 2.9, 0.7, ...).
    const products = Array.from({ length: Math.ceil(TENTHS.length / NUTRIENTS.length) }, (_, i) => ({
      externalId: `p${i}`,
      name: `Product ${i}`,
      priceMinor: 100 + i,
      calories: 100,
      nutrition: Object.fromEntries(NUTRIENTS.map((n, j) => [n, TENTHS[(i * NUTRIENTS.length + j) % TENTHS.length]])),
    }));
    expectStatus(await call(t.app, 'POST', '/v1/sync', { key: v.key, body: { products } }), 201);
    expectStatus(await call(t.app, 'POST', '/v1/publish', { key: v.key, body: {} }), 201);
  });
  after(() => t?.close());

  it('publishes no multipleOf with a fraction (validators that divide in binary floating point refuse valid values)', () => {
    const found: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${at}/${i}`));
      else if (node !== null && typeof node === 'object') {
        for (const [k, sub] of Object.entries(node)) {
          if (k === 'multipleOf' && typeof sub === 'number' && !Number.isInteger(sub)) found.push(`${at}: ${sub}`);
          walk(sub, `${at}/${k}`);
        }
      }
    };
    walk(doc, '#');
    assert.deepEqual(found, []);
  });

  it('GET /v1/menu (draft and published) with nutrition values 0.0 to 9.9', async () => {
    for (const version of ['draft', 'published']) {
      const res = await call(t.app, 'GET', `/v1/menu?version=${version}`, { key: v.key });
      expectStatus(res, 200);
      const seen = new Set(res.body.products.flatMap((p: any) => Object.values(p.nutrition ?? {})));
      for (const value of [0.3, 1.2, 2.9, 0.7]) assert.ok(seen.has(value), `${version} reads ${value}`);
      assertDocumented('get', '/v1/menu', 200, res.body);
    }
  });

  it('GET /v1/products/:ref for every product', async () => {
    const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    for (const p of menu.body.products) {
      const res = await call(t.app, 'GET', `/v1/products/${p.externalId}`, { key: v.key });
      expectStatus(res, 200);
      assertDocumented('get', '/v1/products/{ref}', 200, res.body);
    }
  });

  it('GET /guest/v1/venues/:slug/menu', async () => {
    const res = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`);
    expectStatus(res, 200);
    assert.ok(res.body.products.some((p: any) => p.nutrition?.fat === 0.3 || Object.values(p.nutrition ?? {}).includes(2.9)));
    assertDocumented('get', '/guest/v1/venues/{slug}/menu', 200, res.body);
  });

  it('a PATCH of a product with one-decimal values answers the documented product', async () => {
    const res = await call(t.app, 'PATCH', '/v1/products/p0', {
      key: v.key,
      body: { nutrition: { fat: 0.3, sugars: 1.2, salt: 2.9, protein: 0.7 } },
    });
    expectStatus(res, 200);
    assertDocumented('patch', '/v1/products/{ref}', 200, res.body);
  });
});
