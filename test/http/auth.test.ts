import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/http/types.js';
import { admin, call, createVenue, startApp, type Method, type TestApp } from '../helpers/app.js';

const KEY_RE = /^carta_(live|test)_[0-9A-Za-z]{32}$/;
const SOME_ID = '0193a0b0-0000-7000-8000-000000000000';

/**
 * Every /v1 operation behind a key, from the reference resources index (the registered routes),
 * with path parameters filled in: the list grows with the API.
 */
async function keyedOperations(app: App, key: string): Promise<{ method: Method; url: string }[]> {
  const { body } = await call(app, 'GET', '/v1/reference', { key });
  return body.resources
    .flatMap((r: { operations: string[] }) => r.operations)
    .map((op: string) => {
      const [method, url] = op.split(' ');
      return { method: method as Method, url: url.replace(/:\w+/g, SOME_ID) };
    })
    .filter((op: { url: string }) => op.url !== '/v1/openapi.json');
}

describe('API key authentication', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it("answers 401 'Missing API key' without an Authorization header", async () => {
    const res = await call(t.app, 'GET', '/v1/reference');
    assert.equal(res.status, 401);
    assert.equal(res.body.message, 'Missing API key');
    assert.equal(res.body.statusCode, 401);
  });

  it("treats a non-Bearer Authorization header as no key: 401 'Missing API key'", async () => {
    const res = await call(t.app, 'GET', '/v1/reference', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    assert.equal(res.status, 401);
    assert.equal(res.body.message, 'Missing API key');
  });

  it("answers 401 'Missing API key' for an empty Bearer token", async () => {
    const res = await call(t.app, 'GET', '/v1/reference', { headers: { authorization: 'Bearer ' } });
    assert.equal(res.status, 401);
    assert.equal(res.body.message, 'Missing API key');
  });

  it("answers 401 'Invalid API key format' for a token without a carta_live_/carta_test_ prefix", async () => {
    for (const token of ['sk_live_0123456789abcdefghijABCDEFGHIJ01', 'carta_prod_0123456789abcdefghijABCDEFGHIJ01', 'nonsense']) {
      const res = await call(t.app, 'GET', '/v1/reference', { key: token });
      assert.equal(res.status, 401, token);
      assert.equal(res.body.message, 'Invalid API key format', token);
    }
  });

  it("answers 401 'Invalid API key' for a well-formed key nobody issued", async () => {
    for (const token of ['carta_live_0123456789abcdefghijABCDEFGHIJ01', 'carta_test_0123456789abcdefghijABCDEFGHIJ01']) {
      const res = await call(t.app, 'GET', '/v1/reference', { key: token });
      assert.equal(res.status, 401, token);
      assert.equal(res.body.message, 'Invalid API key', token);
    }
  });

  it('accepts a live key for its venue', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(res.status, 200);
  });

  it('accepts the Bearer scheme case-insensitively', async () => {
    const v = await createVenue(t.app);
    const res = await call(t.app, 'GET', '/v1/reference', { headers: { authorization: `bearer ${v.key}` } });
    assert.equal(res.status, 200);
  });

  it('rejects a revoked key at once', async () => {
    const v = await createVenue(t.app);
    assert.equal((await call(t.app, 'GET', '/v1/reference', { key: v.key })).status, 200);
    const del = await admin(t.app, 'DELETE', `/api-keys/${v.keyId}`);
    assert.equal(del.status, 204);
    const res = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(res.status, 401);
    assert.equal(res.body.message, 'Invalid API key');
  });

  it('rejects the old key at once after a regeneration and accepts the new one', async () => {
    const v = await createVenue(t.app);
    const regen = await admin(t.app, 'POST', `/api-keys/${v.keyId}/regenerate`);
    assert.equal(regen.status, 201);
    assert.match(regen.body.key, KEY_RE);
    assert.notEqual(regen.body.key, v.key);
    assert.equal(regen.body.id, v.keyId);

    const old = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(old.status, 401);
    assert.equal(old.body.message, 'Invalid API key');
    const fresh = await call(t.app, 'GET', '/v1/reference', { key: regen.body.key });
    assert.equal(fresh.status, 200);
  });

  it('rejects a write made with a read-only key', async () => {
    const v = await createVenue(t.app, { readOnly: true });
    const writes = (await keyedOperations(t.app, v.key)).filter((op) => op.method !== 'GET');
    assert.ok(writes.length > 0);
    for (const { method, url } of writes) {
      const res = await call(t.app, method, url, { key: v.key, body: method === 'DELETE' ? undefined : {} });
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.body.code, 'READ_ONLY_KEY', `${method} ${url}`);
    }
  });

  it('refuses a read-only write before validating its body, and writes nothing', async () => {
    const v = await createVenue(t.app, { readOnly: true });
    const invalid = await call(t.app, 'POST', '/v1/sync', { key: v.key, body: { nonsense: true } });
    assert.equal(invalid.status, 403);
    assert.equal(invalid.body.code, 'READ_ONLY_KEY');
    const valid = await call(t.app, 'POST', '/v1/sync', {
      key: v.key,
      body: { categories: [{ externalId: 'c1', name: 'Drinks' }] },
    });
    assert.equal(valid.status, 403);
    const ref = await call(t.app, 'GET', '/v1/reference', { key: v.key });
    assert.equal(ref.body.planLimits.usage.categories, 0);
  });

  it('lets a read-only key use every read', async () => {
    const v = await createVenue(t.app, { readOnly: true });
    for (const { method, url } of (await keyedOperations(t.app, v.key)).filter((op) => op.method === 'GET')) {
      const res = await call(t.app, method, url, { key: v.key });
      assert.notEqual(res.status, 401, `${method} ${url}`);
      assert.notEqual(res.status, 403, `${method} ${url}`);
    }
  });

  describe('subscription status', () => {
    for (const status of ['suspended', 'canceled'] as const) {
      it(`rejects every call with 403 SUBSCRIPTION_INACTIVE while the subscription is ${status}`, async () => {
        const v = await createVenue(t.app);
        const operations = await keyedOperations(t.app, v.key);
        const patch = await admin(t.app, 'PATCH', `/venues/${v.id}`, { subscriptionStatus: status });
        assert.equal(patch.status, 200);
        for (const { method, url } of operations) {
          const res = await call(t.app, method, url, { key: v.key, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
          assert.equal(res.status, 403, `${method} ${url}`);
          assert.equal(res.body.code, 'SUBSCRIPTION_INACTIVE', `${method} ${url}`);
        }
      });
    }

    it('resumes access once the subscription is active again', async () => {
      const v = await createVenue(t.app);
      await admin(t.app, 'PATCH', `/venues/${v.id}`, { subscriptionStatus: 'suspended' });
      assert.equal((await call(t.app, 'GET', '/v1/reference', { key: v.key })).status, 403);
      await admin(t.app, 'PATCH', `/venues/${v.id}`, { subscriptionStatus: 'active' });
      assert.equal((await call(t.app, 'GET', '/v1/reference', { key: v.key })).status, 200);
    });

    for (const status of ['past_due', 'trialing'] as const) {
      it(`still serves a venue whose subscription is ${status}`, async () => {
        const v = await createVenue(t.app);
        await admin(t.app, 'PATCH', `/venues/${v.id}`, { subscriptionStatus: status });
        assert.equal((await call(t.app, 'GET', '/v1/reference', { key: v.key })).status, 200);
      });
    }

    it('applies the live venue subscription status to its test keys', async () => {
      const v = await createVenue(t.app);
      const testKey = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' });
      await admin(t.app, 'PATCH', `/venues/${v.id}`, { subscriptionStatus: 'canceled' });
      const res = await call(t.app, 'GET', '/v1/reference', { key: testKey.body.key });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'SUBSCRIPTION_INACTIVE');
    });
  });

  describe('test-mode keys', () => {
    it('serves a test key from the sandbox venue with the live plan', async () => {
      const v = await createVenue(t.app, { plan: 'free' });
      const testKey = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' });
      assert.equal(testKey.status, 201);
      assert.match(testKey.body.key, /^carta_test_[0-9A-Za-z]{32}$/);
      assert.equal(testKey.body.mode, 'test');

      const res = await call(t.app, 'GET', '/v1/reference', { key: testKey.body.key });
      assert.equal(res.status, 200);
      assert.equal(res.body.planLimits.plan, 'free');
    });

    it('shows a plan change of the live venue to its sandbox key on the next call', async () => {
      const v = await createVenue(t.app, { plan: 'free' });
      const testKey = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' });
      await admin(t.app, 'PATCH', `/venues/${v.id}`, { plan: 'pro' });
      const res = await call(t.app, 'GET', '/v1/reference', { key: testKey.body.key });
      assert.equal(res.status, 200);
      assert.equal(res.body.planLimits.plan, 'pro');
      assert.equal(res.body.planLimits.rateLimitTier, 'paid');
    });

    it('keeps live and sandbox usage apart', async () => {
      const v = await createVenue(t.app);
      const testKey = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' });
      await t.database.db.query(`insert into categories (venue_id, id, external_id, name) values ($1, gen_random_uuid(), 'c1', 'Drinks')`, [
        v.sandboxId,
      ]);
      const sandbox = await call(t.app, 'GET', '/v1/reference', { key: testKey.body.key });
      const live = await call(t.app, 'GET', '/v1/reference', { key: v.key });
      assert.equal(sandbox.body.planLimits.usage.categories, 1);
      assert.equal(live.body.planLimits.usage.categories, 0);
    });
  });

  describe('key issuance and storage', () => {
    it('issues carta_live_ and carta_test_ keys of exactly 32 base62 characters', async () => {
      const v = await createVenue(t.app);
      assert.match(v.key, /^carta_live_[0-9A-Za-z]{32}$/);
      const testKey = await admin(t.app, 'POST', `/venues/${v.id}/api-keys`, { mode: 'test' });
      assert.match(testKey.body.key, /^carta_test_[0-9A-Za-z]{32}$/);
    });

    it('never returns the key from the list endpoint, only its last 4 characters as hint', async () => {
      const v = await createVenue(t.app);
      const list = await admin(t.app, 'GET', `/venues/${v.id}/api-keys`);
      assert.equal(list.status, 200);
      assert.equal(list.body.items.length, 1);
      const item = list.body.items[0];
      assert.equal(item.hint, v.key.slice(-4));
      assert.equal('key' in item, false);
      assert.equal(JSON.stringify(list.body).includes(v.key), false);
    });

    it('stores only a sha256 hash of the key', async () => {
      const v = await createVenue(t.app);
      const { rows } = await t.database.db.query<Record<string, unknown>>('select * from api_keys where id = $1', [v.keyId]);
      assert.equal(rows.length, 1);
      const row = rows[0];
      for (const [column, value] of Object.entries(row)) {
        assert.equal(String(value).includes(v.key), false, `column ${column} holds the key`);
        assert.equal(String(value).includes(v.key.slice('carta_live_'.length)), false, `column ${column} holds the secret`);
      }
      assert.equal(row.key_hash, createHash('sha256').update(v.key).digest('hex'));
    });
  });

  describe('tenant isolation', () => {
    it("shows a venue's key only that venue's usage", async () => {
      const a = await createVenue(t.app);
      const b = await createVenue(t.app);
      await t.database.db.query(
        `insert into ingredients (venue_id, id, external_id, name) values ($1, gen_random_uuid(), 'i1', 'Salt'), ($1, gen_random_uuid(), 'i2', 'Pepper')`,
        [a.id],
      );
      const resA = await call(t.app, 'GET', '/v1/reference', { key: a.key });
      const resB = await call(t.app, 'GET', '/v1/reference', { key: b.key });
      assert.equal(resA.body.planLimits.usage.ingredients, 2);
      assert.equal(resB.body.planLimits.usage.ingredients, 0);
    });
  });
});
