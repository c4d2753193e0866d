import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { admin, call, startApp, type TestApp } from '../helpers/app.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY_RE = /^carta_(live|test)_[0-9A-Za-z]{32}$/;

let seq = 0;
/** A name unique to this run, so derived slugs never collide across tests. */
function uniqueName(base = 'Admin Venue'): string {
  seq += 1;
  return `${base} ${process.pid} ${Date.now()} ${seq}`;
}

describe('operator API', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  describe('operator authentication', () => {
    it("answers 401 'Invalid admin token' without a token", async () => {
      const res = await call(t.app, 'POST', '/admin/v1/venues', { body: { name: 'X', currency: 'EUR' } });
      assert.equal(res.status, 401);
      assert.equal(res.body.message, 'Invalid admin token');
      assert.equal(res.body.path, '/admin/v1/venues');
    });

    it("answers 401 'Invalid admin token' for a wrong token", async () => {
      for (const authorization of ['Bearer wrong-token', 'Bearer test-admin-token-0123456789abcdef012345678X', 'Basic abc']) {
        const res = await call(t.app, 'GET', `/admin/v1/venues/${randomUUID()}`, { headers: { authorization } });
        assert.equal(res.status, 401, authorization);
        assert.equal(res.body.message, 'Invalid admin token');
      }
    });

    it('does not accept an API key as the operator token', async () => {
      const created = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const key = await admin(t.app, 'POST', `/venues/${created.body.id}/api-keys`, { mode: 'live' });
      const res = await call(t.app, 'GET', `/admin/v1/venues/${created.body.id}`, { key: key.body.key });
      assert.equal(res.status, 401);
    });
  });

  describe('venues', () => {
    it('creates a venue with its defaults and a sandbox twin', async () => {
      const name = uniqueName('Café Olé & Co');
      const res = await admin(t.app, 'POST', '/venues', { name, currency: 'UAH' });
      assert.equal(res.status, 201);
      const v = res.body;
      assert.deepEqual(Object.keys(v).sort(), [
        'createdAt',
        'currency',
        'defaultLanguage',
        'id',
        'name',
        'plan',
        'sandbox',
        'slug',
        'subscriptionStatus',
      ]);
      assert.equal(v.name, name);
      assert.equal(v.currency, 'UAH');
      assert.equal(v.plan, 'free');
      assert.equal(v.subscriptionStatus, 'active');
      assert.equal(v.defaultLanguage, 'en');
      assert.match(v.createdAt, ISO_UTC_MS);
      assert.match(v.id, /^[0-9a-f-]{36}$/);
      assert.match(v.slug, /^cafe-ole-co-\d+-\d+-\d+$/);
      assert.deepEqual(Object.keys(v.sandbox).sort(), ['id', 'slug']);
      assert.equal(v.sandbox.slug, `${v.slug}-sandbox`);
      assert.notEqual(v.sandbox.id, v.id);
    });

    it('takes every optional field when given', async () => {
      const slug = `explicit-${process.pid}-${Date.now()}`;
      const res = await admin(t.app, 'POST', '/venues', {
        name: 'Explicit',
        currency: 'PLN',
        slug,
        plan: 'pro',
        defaultLanguage: 'pl',
        subscriptionStatus: 'trialing',
      });
      assert.equal(res.status, 201);
      assert.equal(res.body.slug, slug);
      assert.equal(res.body.plan, 'pro');
      assert.equal(res.body.defaultLanguage, 'pl');
      assert.equal(res.body.subscriptionStatus, 'trialing');
      assert.equal(res.body.sandbox.slug, `${slug}-sandbox`);
    });

    it('derives a free slug when the name is taken', async () => {
      const name = uniqueName('Same Name');
      const a = await admin(t.app, 'POST', '/venues', { name, currency: 'EUR' });
      const b = await admin(t.app, 'POST', '/venues', { name, currency: 'EUR' });
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.notEqual(a.body.slug, b.body.slug);
      assert.ok(b.body.slug.startsWith(a.body.slug));
    });

    it('answers 409 when an explicit slug is taken', async () => {
      const slug = `taken-${process.pid}-${Date.now()}`;
      const first = await admin(t.app, 'POST', '/venues', { name: 'First', currency: 'EUR', slug });
      assert.equal(first.status, 201);
      const second = await admin(t.app, 'POST', '/venues', { name: 'Second', currency: 'EUR', slug });
      assert.equal(second.status, 409);
      assert.equal(second.body.code, 'SLUG_ALREADY_EXISTS');
    });

    it("answers 409 when an explicit slug equals another venue's sandbox slug", async () => {
      const slug = `twin-${process.pid}-${Date.now()}`;
      await admin(t.app, 'POST', '/venues', { name: 'Twin', currency: 'EUR', slug });
      const clash = await admin(t.app, 'POST', '/venues', { name: 'Clash', currency: 'EUR', slug: `${slug}-sandbox` });
      assert.equal(clash.status, 409);
      assert.equal(clash.body.code, 'SLUG_ALREADY_EXISTS');
    });

    it('rejects a currency outside the reference list and a malformed slug with 400', async () => {
      for (const body of [
        { name: 'X', currency: 'BTC' },
        { name: 'X', currency: 'eur' },
        { name: 'X', currency: 'EUR', slug: 'UPPER' },
        { name: 'X', currency: 'EUR', slug: 'ab' },
        { name: 'X', currency: 'EUR', slug: 'a'.repeat(65) },
        { name: 'X', currency: 'EUR', slug: 'with space' },
        { name: 'X', currency: 'EUR', plan: 'enterprise' },
        { name: 'X', currency: 'EUR', subscriptionStatus: 'paused' },
        { name: 'X', currency: 'EUR', defaultLanguage: 'xx' },
        { name: '', currency: 'EUR' },
      ]) {
        const res = await admin(t.app, 'POST', '/venues', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.message, 'Validation failed');
      }
    });

    it('shows a venue by id', async () => {
      const created = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const res = await admin(t.app, 'GET', `/venues/${created.body.id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, created.body);
    });

    it('answers 404 for an unknown venue id', async () => {
      const res = await admin(t.app, 'GET', `/venues/${randomUUID()}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'VENUE_NOT_FOUND');
    });

    it('does not manage a sandbox venue as a venue of its own', async () => {
      const created = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const res = await admin(t.app, 'GET', `/venues/${created.body.sandbox.id}`);
      assert.equal(res.status, 404);
    });

    it('answers 400 for a venue id that is not a uuid', async () => {
      const res = await admin(t.app, 'GET', '/venues/not-a-uuid');
      assert.equal(res.status, 400);
      assert.equal(res.body.message, 'Validation failed');
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith('id ')),
        res.body.errors.join('; '),
      );
    });

    it('changes name, plan and subscription status', async () => {
      const created = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const res = await admin(t.app, 'PATCH', `/venues/${created.body.id}`, {
        name: 'Renamed',
        plan: 'standard',
        subscriptionStatus: 'past_due',
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'Renamed');
      assert.equal(res.body.plan, 'standard');
      assert.equal(res.body.subscriptionStatus, 'past_due');
      assert.equal(res.body.slug, created.body.slug);
      assert.equal(res.body.currency, 'EUR');

      const shown = await admin(t.app, 'GET', `/venues/${created.body.id}`);
      assert.deepEqual(shown.body, res.body);
    });

    it('keeps the sandbox on the live plan and status', async () => {
      const created = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      await admin(t.app, 'PATCH', `/venues/${created.body.id}`, { plan: 'pro', subscriptionStatus: 'suspended' });
      const { rows } = await t.database.db.query<{ plan: string; subscription_status: string }>(
        'select plan, subscription_status from venues where id = $1',
        [created.body.sandbox.id],
      );
      assert.deepEqual(rows[0], { plan: 'pro', subscription_status: 'suspended' });
    });

    it('leaves a venue unchanged by an empty patch', async () => {
      const created = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const res = await admin(t.app, 'PATCH', `/venues/${created.body.id}`, {});
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, created.body);
    });

    it('rejects a patch of fields that cannot change, or with bad values', async () => {
      const created = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      for (const body of [{ currency: 'USD' }, { slug: 'new-slug' }, { plan: 'gold' }, { subscriptionStatus: 'paused' }]) {
        const res = await admin(t.app, 'PATCH', `/venues/${created.body.id}`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
      }
    });

    it('answers 404 when patching an unknown venue', async () => {
      const res = await admin(t.app, 'PATCH', `/venues/${randomUUID()}`, { plan: 'pro' });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'VENUE_NOT_FOUND');
    });
  });

  describe('API keys', () => {
    it('creates a key and returns it once with its shape', async () => {
      const venue = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const res = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'live', label: 'POS' });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'id', 'key', 'label', 'mode', 'readOnly']);
      assert.match(res.body.key, KEY_RE);
      assert.ok(res.body.key.startsWith('carta_live_'));
      assert.equal(res.body.mode, 'live');
      assert.equal(res.body.readOnly, false);
      assert.equal(res.body.label, 'POS');
      assert.match(res.body.createdAt, ISO_UTC_MS);
    });

    it('creates a read-only test key without a label', async () => {
      const venue = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const res = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'test', readOnly: true });
      assert.equal(res.status, 201);
      assert.ok(res.body.key.startsWith('carta_test_'));
      assert.equal(res.body.readOnly, true);
      assert.equal(res.body.label, null);
    });

    it('rejects a key request with a bad mode or unknown fields', async () => {
      const venue = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      for (const body of [{}, { mode: 'prod' }, { mode: 'live', scope: 'all' }, { mode: 'live', readOnly: 'yes' }]) {
        const res = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
      }
    });

    it('answers 404 when creating a key for an unknown venue', async () => {
      const res = await admin(t.app, 'POST', `/venues/${randomUUID()}/api-keys`, { mode: 'live' });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'VENUE_NOT_FOUND');
    });

    it('lists keys with hints and revocation times, never the key', async () => {
      const venue = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const a = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'live', label: 'a' });
      const b = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'test', readOnly: true });
      await admin(t.app, 'DELETE', `/api-keys/${b.body.id}`);

      const res = await admin(t.app, 'GET', `/venues/${venue.body.id}/api-keys`);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['items']);
      assert.equal(res.body.items.length, 2);
      const [first, second] = res.body.items;
      assert.deepEqual(Object.keys(first).sort(), ['createdAt', 'hint', 'id', 'label', 'mode', 'readOnly', 'revokedAt']);
      assert.deepEqual(first, {
        id: a.body.id,
        mode: 'live',
        readOnly: false,
        label: 'a',
        hint: a.body.key.slice(-4),
        createdAt: a.body.createdAt,
        revokedAt: null,
      });
      assert.equal(second.id, b.body.id);
      assert.equal(second.hint, b.body.key.slice(-4));
      assert.match(second.revokedAt, ISO_UTC_MS);
      const text = JSON.stringify(res.body);
      assert.equal(text.includes(a.body.key), false);
      assert.equal(text.includes(b.body.key), false);
    });

    it('answers 404 when listing keys of an unknown venue', async () => {
      const res = await admin(t.app, 'GET', `/venues/${randomUUID()}/api-keys`);
      assert.equal(res.status, 404);
    });

    it('regenerates a key under the same id with a new secret and hint', async () => {
      const venue = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const created = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'test', readOnly: true, label: 'ci' });
      const res = await admin(t.app, 'POST', `/api-keys/${created.body.id}/regenerate`);
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'id', 'key', 'label', 'mode', 'readOnly']);
      assert.equal(res.body.id, created.body.id);
      assert.ok(res.body.key.startsWith('carta_test_'));
      assert.match(res.body.key, KEY_RE);
      assert.notEqual(res.body.key, created.body.key);
      assert.equal(res.body.readOnly, true);
      assert.equal(res.body.label, 'ci');

      const list = await admin(t.app, 'GET', `/venues/${venue.body.id}/api-keys`);
      assert.equal(list.body.items[0].hint, res.body.key.slice(-4));
    });

    it('revokes a key with 204 and an empty body', async () => {
      const venue = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const created = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'live' });
      const res = await admin(t.app, 'DELETE', `/api-keys/${created.body.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.raw.body, '');
      // Revoking twice is harmless.
      assert.equal((await admin(t.app, 'DELETE', `/api-keys/${created.body.id}`)).status, 204);
    });

    it('does not regenerate a revoked key', async () => {
      const venue = await admin(t.app, 'POST', '/venues', { name: uniqueName(), currency: 'EUR' });
      const created = await admin(t.app, 'POST', `/venues/${venue.body.id}/api-keys`, { mode: 'live' });
      await admin(t.app, 'DELETE', `/api-keys/${created.body.id}`);
      const res = await admin(t.app, 'POST', `/api-keys/${created.body.id}/regenerate`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'API_KEY_NOT_FOUND');
    });

    it('answers 404 for an unknown key id and 400 for a malformed one', async () => {
      for (const [method, url] of [
        ['POST', `/api-keys/${randomUUID()}/regenerate`],
        ['DELETE', `/api-keys/${randomUUID()}`],
      ] as const) {
        const res = await admin(t.app, method, url);
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal(res.body.code, 'API_KEY_NOT_FOUND');
      }
      assert.equal((await admin(t.app, 'DELETE', '/api-keys/123')).status, 400);
    });
  });
});

describe('operator API without ADMIN_TOKEN', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ adminToken: null });
  });
  after(() => t.close());

  it('answers 404 in the envelope on every /admin route, with or without a token', async () => {
    const id = randomUUID();
    const routes = [
      ['POST', '/admin/v1/venues'],
      ['GET', `/admin/v1/venues/${id}`],
      ['PATCH', `/admin/v1/venues/${id}`],
      ['POST', `/admin/v1/venues/${id}/api-keys`],
      ['GET', `/admin/v1/venues/${id}/api-keys`],
      ['POST', `/admin/v1/api-keys/${id}/regenerate`],
      ['DELETE', `/admin/v1/api-keys/${id}`],
    ] as const;
    for (const [method, url] of routes) {
      for (const headers of [{}, { authorization: 'Bearer anything-at-all-0123456789abcdef' }] as Record<string, string>[]) {
        const res = await call(t.app, method, url, { headers, body: method === 'POST' || method === 'PATCH' ? {} : undefined });
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal(res.body.statusCode, 404);
        assert.equal(res.body.path, url);
        assert.equal(typeof res.body.requestId, 'string');
      }
    }
  });
});
