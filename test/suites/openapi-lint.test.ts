import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { ERROR_CODE_DOCS } from '../../src/errors.js';
import { validatorCompiler } from '../../src/http/validation.js';
import { SettingsPatchBody } from '../../src/modules/settings/settings.schemas.js';
import { GuestOrderBody } from '../../src/modules/orders/order-body.schemas.js';
import { CleanupBody, ProductPatchBody, SyncBody } from '../../src/modules/menu/menu.schemas.js';
import { OrderStatusBody } from '../../src/modules/orders/orders.schemas.js';
import { call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { expectStatus } from '../helpers/orders.js';

// What makes the document good for tools, beyond being valid OpenAPI (test/http/openapi.test.ts)
// and clean under `npm run lint:openapi`: names, security, errors and examples of every operation.

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const PUBLIC_PREFIXES = ['/guest/v1/', '/media/', '/health', '/ready', '/v1/openapi.json'];

interface Operation {
  method: string;
  path: string;
  op: any;
}

function operations(doc: any): Operation[] {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => ({ method, path, op })),
  );
}

const errorStatuses = (op: any) => Object.keys(op.responses).filter((s) => Number(s) >= 400);
/** The catalogue codes a response's description names (`CODE`). */
const codesOf = (response: any): string[] => [...String(response?.description ?? '').matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1]);
const isWrite = (method: string) => method !== 'get';

async function documentOf(t: TestApp): Promise<any> {
  const res = await call(t.app, 'GET', '/v1/openapi.json');
  assert.equal(res.status, 200);
  return res.body;
}

describe('the OpenAPI document for tools', () => {
  let t: TestApp;
  let doc: any;
  let ops: Operation[];
  before(async () => {
    t = await startApp();
    doc = await documentOf(t);
    ops = operations(doc);
  });
  after(() => t.close());

  it('gives every operation a unique camelCase operationId, a summary, a description and a described tag', () => {
    const tags = new Map<string, any>(doc.tags.map((tag: any) => [tag.name, tag]));
    const seen = new Map<string, string>();
    for (const { method, path, op } of ops) {
      const label = `${method} ${path}`;
      assert.match(op.operationId ?? '', /^[a-z][a-zA-Z0-9]*$/, `${label} operationId`);
      assert.equal(seen.get(op.operationId), undefined, `${label} reuses ${op.operationId}`);
      seen.set(op.operationId, label);
      assert.ok(typeof op.summary === 'string' && op.summary.length > 0 && op.summary.length <= 80, `${label} summary`);
      assert.ok(typeof op.description === 'string' && op.description.length > op.summary.length, `${label} description`);
      assert.ok(Array.isArray(op.tags) && op.tags.length === 1, `${label} has one tag`);
      assert.ok(tags.get(op.tags[0])?.description, `${label}: tag ${op.tags[0]} is described`);
    }
    for (const [name, id] of [
      ['post /v1/sync', 'syncMenu'],
      ['post /v1/publish', 'publishMenu'],
      ['get /v1/orders', 'listOrders'],
      ['patch /v1/orders/{id}/status', 'updateOrderStatus'],
      ['post /guest/v1/venues/{slug}/orders', 'placeGuestOrder'],
      ['get /v1/openapi.json', 'getOpenApiDocument'],
    ]) {
      assert.equal(seen.get(id), name, id);
    }
  });

  it('defines every security scheme an operation uses, and leaves the public routes open', () => {
    assert.equal(doc.security, undefined, 'no document-wide default to override');
    for (const { method, path, op } of ops) {
      const label = `${method} ${path}`;
      assert.ok(Array.isArray(op.security), `${label} states its security`);
      for (const requirement of op.security) {
        for (const name of Object.keys(requirement))
          assert.ok(doc.components.securitySchemes[name], `${label} uses undefined scheme ${name}`);
      }
      if (PUBLIC_PREFIXES.some((p) => path.startsWith(p))) assert.deepEqual(op.security, [], label);
      else if (path.startsWith('/admin/v1/')) assert.deepEqual(op.security, [{ adminToken: [] }], label);
      else assert.deepEqual(op.security, [{ apiKey: [] }], label);
    }
  });

  it('documents the errors of every operation in the envelope, by codes of the closed catalogue', () => {
    const catalogue = new Set(Object.keys(ERROR_CODE_DOCS));
    for (const { method, path, op } of ops) {
      const label = `${method} ${path}`;
      assert.ok(
        errorStatuses(op).some((s) => s.startsWith('4')),
        `${label} has a 4xx`,
      );
      for (const status of errorStatuses(op)) {
        const response = op.responses[status];
        // GET /ready's 503 is the probe's own answer ({ status }), not an API error.
        if (op.operationId === 'getReadiness') continue;
        assert.equal(response.content?.['application/json']?.schema?.$ref, '#/components/schemas/ErrorResponse', `${label} ${status}`);
        assert.ok(response.description.split('\n').length > 1, `${label} ${status} lists what it means`);
        for (const code of codesOf(response)) {
          assert.ok(catalogue.has(code), `${label} ${status}: ${code} is not in src/errors.ts`);
          assert.ok(op.description.includes(`\`${code}\``), `${label}: the description names ${code}`);
        }
      }
    }
  });

  it('documents what every /v1 operation shares: authentication, subscription, rate limits and 503s', () => {
    for (const { method, path, op } of ops) {
      if (!path.startsWith('/v1/') || path === '/v1/openapi.json') continue;
      const label = `${method} ${path}`;
      const codes = (status: number) => codesOf(op.responses[status]);
      assert.ok(op.responses['401'], `${label} 401`);
      assert.ok(codes(403).includes('SUBSCRIPTION_INACTIVE'), `${label} 403`);
      assert.ok(codes(429).includes('RATE_LIMITED'), `${label} 429`);
      assert.ok(codes(503).includes('DATABASE_UNAVAILABLE'), `${label} 503`);
      if (path.includes('{')) assert.ok(op.responses['414'], `${label} 414`);
      if (path.startsWith('/v1/orders') || path.startsWith('/v1/webhooks'))
        assert.ok(codes(403).includes('PAID_PLAN_REQUIRED'), `${label} PAID_PLAN_REQUIRED`);
      if (isWrite(method)) {
        assert.ok(codes(403).includes('READ_ONLY_KEY'), `${label} READ_ONLY_KEY`);
        assert.deepEqual(
          codes(409).filter((c) => c.startsWith('IDEMPOTENCY')),
          ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'],
          label,
        );
        assert.ok(codes(413).includes('PAYLOAD_TOO_LARGE'), `${label} 413`);
        assert.ok(codes(503).includes('LOCK_TIMEOUT'), `${label} LOCK_TIMEOUT`);
      } else {
        assert.ok(!codes(403).includes('READ_ONLY_KEY'), `${label}: a read is never READ_ONLY_KEY`);
      }
    }
  });

  it('documents Retry-After on every response whose codes send it', () => {
    for (const { method, path, op } of ops) {
      for (const status of errorStatuses(op)) {
        const codes = codesOf(op.responses[status]);
        const retrying = ['429', '503'].includes(status) || codes.includes('IDEMPOTENCY_KEY_IN_PROGRESS');
        if (op.operationId === 'getReadiness' || !retrying) continue;
        const header = op.responses[status].headers?.['retry-after'];
        assert.equal(header?.schema?.type, 'integer', `${method} ${path} ${status} Retry-After`);
      }
    }
  });

  it('carries a license, a contact, described tags and a server', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    assert.equal(doc.info.license.identifier, pkg.license);
    assert.ok(doc.info.contact?.name);
    assert.ok(doc.tags.every((tag: any) => typeof tag.description === 'string' && tag.description.length > 0));
    // PUBLIC_BASE_URL unset: a relative server, resolved against wherever the document was fetched.
    assert.deepEqual(
      doc.servers.map((s: any) => s.url),
      ['/'],
    );
  });

  it('gives the request bodies named examples that their routes accept', () => {
    const withExamples = new Set<string>();
    for (const { method, path, op } of ops) {
      const media = op.requestBody?.content?.['application/json'];
      if (!media?.examples) continue;
      withExamples.add(op.operationId);
      const validate = validatorCompiler({ schema: media.schema, httpPart: 'body', method, url: path }) as (v: unknown) => {
        error?: unknown;
      };
      for (const [name, example] of Object.entries<any>(media.examples)) {
        assert.ok(example.summary, `${op.operationId} ${name} summary`);
        assert.equal(validate(structuredClone(example.value)).error, undefined, `${op.operationId} ${name}`);
      }
    }
    for (const id of ['syncMenu', 'placeGuestOrder', 'updateOrderStatus']) assert.ok(withExamples.has(id), id);
  });
});

describe('examples are documentation only', () => {
  it('leaves validation as it was: the schemas that carry x-examples accept them and still refuse unknown fields', () => {
    for (const schema of [SyncBody, ProductPatchBody, CleanupBody, OrderStatusBody, GuestOrderBody, SettingsPatchBody]) {
      const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' }) as (v: unknown) => { error?: unknown };
      const examples = (schema as unknown as { 'x-examples': Record<string, { value: object }> })['x-examples'];
      assert.ok(Object.keys(examples).length > 0);
      for (const [name, { value }] of Object.entries(examples)) {
        assert.equal(validate(structuredClone(value)).error, undefined, name);
        assert.notEqual(validate({ ...value, 'x-examples': {} }).error, undefined, `${name} with an unknown field`);
      }
    }
  });
});

describe('the main examples, run against a real server', () => {
  let t: TestApp;
  let doc: any;
  before(async () => {
    // The pickup example is scheduled for 2027-03-14T18:00Z: ordered that morning.
    t = await startApp({}, undefined, { clock: () => Date.parse('2027-03-14T09:00:00Z') });
    doc = await documentOf(t);
  });
  after(() => t.close());

  const exampleOf = (path: string, method: string, name: string) =>
    structuredClone(doc.paths[path][method].requestBody.content['application/json'].examples[name].value);

  it('syncs the translated menu, takes the guest order and confirms it', async () => {
    const v = await createVenue(t.app);
    expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: exampleOf('/v1/settings', 'patch', 'languages') }), 200);
    const sync = await call(t.app, 'POST', '/v1/sync', { key: v.key, body: exampleOf('/v1/sync', 'post', 'withTranslations') });
    expectStatus(sync, 201);
    for (const section of ['categories', 'ingredients', 'products']) assert.deepEqual(sync.body[section].errors, [], section);
    assert.ok(sync.body.translations.applied > 0);
    expectStatus(await call(t.app, 'POST', '/v1/publish', { key: v.key }), 201);
    expectStatus(
      await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { orderConfig: { scheduledOrders: { enabled: true } } } }),
      200,
    );

    const menu = await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu?locale=es`);
    expectStatus(menu, 200);
    const latte = menu.body.products.find((p: any) => p.name === 'Café con leche');
    const oat = latte.modifierGroups[0].options.find((o: any) => o.priceAdjustment === 1500);
    const order = exampleOf('/guest/v1/venues/{slug}/orders', 'post', 'pickup');
    order.items[0].productId = latte.id;
    order.items[0].modifiers[0].optionId = oat.id;
    const placed = await call(t.app, 'POST', `/guest/v1/venues/${v.slug}/orders`, { body: order });
    expectStatus(placed, 201);
    assert.equal(placed.body.totalAmount, 2 * (6500 + 1500));

    const confirmed = await call(t.app, 'PATCH', `/v1/orders/${placed.body.id}/status`, {
      key: v.key,
      body: exampleOf('/v1/orders/{id}/status', 'patch', 'confirm'),
    });
    expectStatus(confirmed, 200);
    assert.equal(confirmed.body.status, 'confirmed');
  });
});

describe('the server the document names', () => {
  it('is PUBLIC_BASE_URL when set, without a trailing slash, and / when unset', async () => {
    const env = { RATE_LIMITS: 'off', LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent' };
    assert.equal(loadConfig({ ...env, PUBLIC_BASE_URL: 'https://menu.example.net/' }).apiServerUrl, 'https://menu.example.net');
    assert.equal(loadConfig(env).apiServerUrl, '/');
    const t = await startApp({ apiServerUrl: 'https://menu.example.net' });
    try {
      assert.deepEqual(
        (await documentOf(t)).servers.map((s: any) => s.url),
        ['https://menu.example.net'],
      );
    } finally {
      await t.close();
    }
  });
});
