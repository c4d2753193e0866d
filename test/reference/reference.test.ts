import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BODY_LIMIT_BYTES,
  CLEANUP_ARRAY_CAP,
  IP_RATE_LIMITS,
  MB,
  MEDIA_BODY_LIMIT_BYTES,
  SYNC_ARRAY_CAPS,
  SYNC_NESTED_CAPS,
  VENUE_RATE_LIMITS,
  VENUE_RATE_WINDOW_SEC,
} from '../../src/limits.js';
import { ORDER_STATUS_TRANSITIONS } from '../../src/shared/order-status.js';
import { admin, call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { SPEC_ORDER_TRANSITIONS } from '../helpers/order-transitions.js';

// The plan table, written out rather than imported: the test pins the decision itself.
const PLAN_TABLE = {
  free: {
    rateLimitTier: 'free',
    limits: { maxProducts: 70, maxCategories: 10, maxIngredients: 300, maxBanners: 3, maxQrTables: 10 },
    features: { hasDelivery: false, aiEnabled: true, ordersApi: false },
  },
  standard: {
    rateLimitTier: 'paid',
    limits: { maxProducts: 2000, maxCategories: 200, maxIngredients: 300, maxBanners: 20, maxQrTables: 500 },
    features: { hasDelivery: true, aiEnabled: true, ordersApi: true },
  },
  pro: {
    rateLimitTier: 'paid',
    limits: { maxProducts: 2000, maxCategories: 200, maxIngredients: 300, maxBanners: 20, maxQrTables: 500 },
    features: { hasDelivery: true, aiEnabled: true, ordersApi: true },
  },
} as const;

const ZERO_USAGE = { products: 0, categories: 0, ingredients: 0, banners: 0, tables: 0 };

describe('GET /v1/reference', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('lists exactly the documented top-level keys', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'allergens',
      'badgeColors',
      'cardStyles',
      'conventions',
      'currencies',
      'dietaryLabels',
      'languages',
      'modifierTypes',
      'openapi',
      'orderStatusTransitions',
      'orderStatuses',
      'planLimits',
      'requestLimits',
      'resources',
      'units',
    ]);
  });

  it('serves the static catalog values', async () => {
    const v = await createVenue(t.app);
    const { body } = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.deepEqual(body.units, ['PCS', 'G', 'ML']);
    assert.deepEqual(body.badgeColors, ['RED', 'PURPLE', 'YELLOW', 'GREEN', 'BLUE', 'GREY']);
    assert.deepEqual(body.modifierTypes.accepted, ['single_choice', 'multiple_choice', 'add_ingredients', 'remove_ingredients']);
    assert.deepEqual(body.modifierTypes.canonical, ['single_choice', 'add_ingredients', 'remove_ingredients']);
    assert.deepEqual(Object.keys(body.modifierTypes.deprecated), ['multiple_choice']);
    assert.match(body.modifierTypes.deprecated.multiple_choice, /add_ingredients/);
    assert.deepEqual(body.orderStatuses, ['new', 'confirmed', 'preparing', 'delivering', 'completed', 'cancelled']);
    assert.deepEqual(body.cardStyles, ['minimalism', 'compact', 'premium']);
    assert.deepEqual(body.currencies, ['UAH', 'USD', 'EUR', 'PLN', 'GBP', 'CAD', 'PEN', 'CLP', 'MXN', 'COP', 'UZS']);
    assert.deepEqual(body.languages, ['uk', 'en', 'es', 'fr', 'de', 'it', 'pt-BR', 'ru', 'pl', 'cs', 'zh-CN', 'ar', 'ja', 'uz']);
    assert.equal(typeof body.conventions.money, 'string');
    assert.equal(typeof body.conventions.timestamps, 'string');
    assert.equal(body.openapi.url, '/v1/openapi.json');
  });

  it('shows the order state machine that status updates enforce', async () => {
    const v = await createVenue(t.app);
    const { body } = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.deepEqual(body.orderStatusTransitions, ORDER_STATUS_TRANSITIONS);
    assert.deepEqual(body.orderStatusTransitions, SPEC_ORDER_TRANSITIONS);
  });

  it('shows the request limits the service enforces', async () => {
    const v = await createVenue(t.app);
    const { body } = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    const limits = body.requestLimits;
    assert.equal(limits.bodyLimitMb, BODY_LIMIT_BYTES / MB);
    assert.equal(limits.bodyLimitMb, 5);
    assert.equal(limits.mediaBodyLimitMb, MEDIA_BODY_LIMIT_BYTES / MB);
    assert.equal(limits.mediaBodyLimitMb, 21);
    assert.deepEqual(limits.rateLimits, IP_RATE_LIMITS);
    assert.deepEqual(limits.rateLimits, {
      short: { limit: 10, windowSec: 1 },
      medium: { limit: 50, windowSec: 10 },
      long: { limit: 300, windowSec: 60 },
    });
    assert.deepEqual(limits.planRateLimits, { windowSec: VENUE_RATE_WINDOW_SEC, keyedBy: 'venue', tiers: VENUE_RATE_LIMITS });
    assert.equal(limits.planRateLimits.windowSec, 60);
    assert.deepEqual(limits.planRateLimits.tiers.general, { free: 30, paid: 120 });
    assert.deepEqual(limits.planRateLimits.tiers.media, { free: 5, paid: 30 });
    assert.deepEqual(limits.planRateLimits.tiers.heavy, { free: 10, paid: 60 });
    assert.deepEqual(limits.syncArrayCaps, SYNC_ARRAY_CAPS);
    assert.deepEqual(limits.syncArrayCaps, { categories: 200, ingredients: 200, products: 500 });
    assert.deepEqual(limits.syncNestedCaps, SYNC_NESTED_CAPS);
    assert.deepEqual(limits.syncNestedCaps, { modifierGroupsPerProduct: 20, optionsPerModifierGroup: 50, ingredientRefsPerProduct: 100 });
    assert.equal(limits.cleanupArrayCap, CLEANUP_ARRAY_CAP);
    assert.equal(limits.cleanupArrayCap, 1000);
  });

  it('indexes the /v1 resources with their operations', async () => {
    const v = await createVenue(t.app);
    const { body } = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    const reference = body.resources.find((r: { name: string }) => r.name === 'reference');
    assert.deepEqual(reference, { name: 'reference', basePath: '/v1/reference', operations: ['GET /v1/reference'] });
    const openapi = body.resources.find((r: { name: string }) => r.name === 'openapi');
    assert.deepEqual(openapi, { name: 'openapi', basePath: '/v1/openapi.json', operations: ['GET /v1/openapi.json'] });
    for (const r of body.resources) {
      assert.ok(r.basePath.startsWith('/v1/'), r.basePath);
      for (const op of r.operations) {
        assert.doesNotMatch(op, /^HEAD /);
        // The base path is a real prefix of each of its operations.
        const path = op.split(' ')[1];
        assert.ok(path === r.basePath || path.startsWith(`${r.basePath}/`), `${op} under ${r.basePath}`);
      }
    }
  });

  for (const plan of ['free', 'standard', 'pro'] as const) {
    it(`shows the ${plan} plan limits and features`, async () => {
      const v = await createVenue(t.app, { plan });
      const { body } = await call(t.app, 'GET', '/v1/reference', { key: v.key });
      assert.deepEqual(body.planLimits, { plan, ...PLAN_TABLE[plan], usage: ZERO_USAGE });
    });
  }

  it('shows a plan change on the next call', async () => {
    const v = await createVenue(t.app, { plan: 'free' });
    const before = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(before.body.planLimits.plan, 'free');
    assert.equal(before.body.planLimits.limits.maxProducts, 70);

    assert.equal((await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'standard' })).status, 200);
    const upgraded = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.deepEqual(upgraded.body.planLimits, { plan: 'standard', ...PLAN_TABLE.standard, usage: ZERO_USAGE });

    await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'free' });
    const downgraded = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.deepEqual(downgraded.body.planLimits, { plan: 'free', ...PLAN_TABLE.free, usage: ZERO_USAGE });
  });

  it("counts the venue's products, categories and ingredients, hidden products included", async () => {
    const a = await createVenue(t.app);
    const b = await createVenue(t.app);
    const db = t.database.db;
    await db.query(
      `insert into categories (venue_id, id, external_id, name)
       values ($1, gen_random_uuid(), 'c1', 'Drinks'), ($1, gen_random_uuid(), null, 'Food')`,
      [a.id],
    );
    await db.query(
      `insert into ingredients (venue_id, id, external_id, name)
       values ($1, gen_random_uuid(), 'i1', 'Salt'), ($1, gen_random_uuid(), 'i2', 'Pepper'), ($1, gen_random_uuid(), 'i3', 'Oil')`,
      [a.id],
    );
    await db.query(
      `insert into products (venue_id, id, external_id, name, price_minor, menu_visible, cleaned_up_at)
       values ($1, gen_random_uuid(), 'p1', 'Tea', 1000, true, null),
              ($1, gen_random_uuid(), 'p2', 'Coffee', 1500, true, null),
              ($1, gen_random_uuid(), 'p3', 'Juice', 2000, false, now()),
              ($1, gen_random_uuid(), 'p4', 'Water', 500, false, null)`,
      [a.id],
    );

    const resA = await call(t.app, 'GET', '/v1/reference', { key: a.key });
    assert.deepEqual(resA.body.planLimits.usage, { products: 4, categories: 2, ingredients: 3, banners: 0, tables: 0 });
    const resB = await call(t.app, 'GET', '/v1/reference', { key: b.key });
    assert.deepEqual(resB.body.planLimits.usage, ZERO_USAGE);
  });

  it('is available to a read-only key and a test key', async () => {
    const v = await createVenue(t.app, { readOnly: true });
    assert.equal((await call(t.app, 'GET', '/v1/reference', { key: v.key })).status, 200);
    const testKey = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' });
    assert.equal((await call(t.app, 'GET', '/v1/reference', { key: testKey.body.key })).status, 200);
  });
});
