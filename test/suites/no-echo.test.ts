import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../src/limits.js';
import { call, createVenue, startApp, type Method, type TestApp, type VenueFixture } from '../helpers/app.js';
import { createOrder, orderBody, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

// An error names the field and the rule that failed, never the value sent
// (docs/security.md). Each case below sends a distinctive canary into one place a value can be
// put (a body, a query parameter, a header, a path parameter, the content type, the raw JSON
// text) and looks for it in the answer.
//
// What a request names may come back: the envelope's `path` and a route-not-found
// message that repeats it, property names (`colour is not allowed`), and externalIds and refs,
// which name items. A path segment a route declares secret (a table's or an order's
// token) is masked even there.

const CANARY = 'Qz7EchoCanary';
const TABLE_NAME = `${CANARY}Table`;

interface Case {
  label: string;
  method: Method;
  url: string;
  /** A JSON body, or `raw` text sent as is. */
  body?: unknown;
  raw?: string;
  key?: 'venue' | 'admin';
  headers?: Record<string, string>;
  /** The status the case must get (a refusal). */
  status: number;
  /** The envelope's `path` must not show it either (the segment is a secret parameter). */
  secretPath?: boolean;
}

describe('errors never echo the value sent', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;
  let orderId = '';
  let venueSlug = '';
  let n = 0;
  /** A canary of its own for each case, so a leak names the case. */
  const canary = () => `${CANARY}${(n += 1)}`;

  before(async () => {
    t = await startApp();
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
    venueSlug = v.slug;
    orderId = (await createOrder(t.app, v.slug, orderBody(ids))).id;
    assert.equal((await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: TABLE_NAME } })).status, 201);
  });
  after(() => t.close());

  async function send(c: Case) {
    const headers: Record<string, string> = { ...c.headers };
    if (c.key === 'venue') headers.authorization = `Bearer ${v.key}`;
    if (c.key === 'admin') headers.authorization = `Bearer ${t.config.adminToken}`;
    if (c.raw !== undefined) {
      const res = await t.app.inject({
        method: c.method,
        url: c.url,
        headers: { 'content-type': 'application/json', ...headers },
        payload: c.raw,
      });
      let body: any = res.body;
      try {
        body = JSON.parse(res.body);
      } catch {
        // an HTML page or nothing
      }
      return { status: res.statusCode, body, headers: res.headers };
    }
    return call(t.app, c.method, c.url, { body: c.body, headers });
  }

  /** The answer as text, without what may name the request (its path, and a 404 message that repeats it). */
  function visible(c: Case, res: { body: any; headers: Record<string, unknown> }): string {
    const { 'x-request-id': _id, ...headers } = res.headers;
    if (typeof res.body !== 'object' || res.body === null) return `${String(res.body)} ${JSON.stringify(headers)}`;
    const body = { ...res.body };
    if (!c.secretPath) {
      if (body.message === `Route ${c.method} ${body.path} not found`) delete body.message;
      delete body.path;
    }
    return `${JSON.stringify(body)} ${JSON.stringify(headers)}`;
  }

  /** Each case's canary is made when the case list is built, after setup. */
  function cases(): (Case & { needle: string })[] {
    const list: Case[] = [];
    const at = (c: Omit<Case, 'status'> & { status?: number }, needle: string) =>
      list.push({ status: 400, ...c, label: `${c.label} [${needle}]` });
    let x: string;

    // The JSON text itself.
    x = canary();
    at({ label: 'truncated JSON', method: 'POST', url: '/v1/sync', key: 'venue', raw: `{"products":[{"externalId":"p1","name":"${x}` }, x);
    x = canary();
    at({ label: 'JSON with a bad token', method: 'POST', url: `/guest/v1/venues/${venueSlug}/orders`, raw: `{"comment": ${x}}` }, x);
    x = canary();
    at({ label: 'prototype poisoning', method: 'POST', url: '/v1/sync', key: 'venue', raw: `{"__proto__":{"name":"${x}"}}` }, x);
    x = canary();
    at(
      {
        label: 'constructor poisoning',
        method: 'PUT',
        url: '/v1/translations',
        key: 'venue',
        raw: `{"constructor":{"prototype":{"x":"${x}"}}}`,
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'body over the cap',
        method: 'POST',
        url: '/v1/sync',
        key: 'venue',
        raw: `{"x":"${x}","pad":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`,
        status: 413,
      },
      x,
    );
    x = canary();
    at(
      { label: 'content type', method: 'PUT', url: '/v1/translations', key: 'venue', raw: '{}', headers: { 'content-type': `text/${x}` } },
      x,
    );
    x = canary();
    at(
      {
        label: 'json-like content type',
        method: 'POST',
        url: '/v1/sync',
        key: 'venue',
        raw: '{}',
        headers: { 'content-type': `application/${x}+json` },
      },
      x,
    );

    // Body values: types, enums, patterns, formats, lengths, and the rules services check.
    x = canary();
    at(
      {
        label: 'integer given text',
        method: 'POST',
        url: '/v1/sync',
        key: 'venue',
        body: { products: [{ externalId: 'p1', name: 'P', priceMinor: x }] },
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'nullable integer given text',
        method: 'POST',
        url: '/v1/sync',
        key: 'venue',
        body: { products: [{ externalId: 'p1', name: 'P', priceMinor: 100, salePriceMinor: x }] },
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'text over its length',
        method: 'POST',
        url: '/v1/sync',
        key: 'venue',
        body: { products: [{ externalId: 'p1', name: `${x}${'x'.repeat(300)}`, priceMinor: 100 }] },
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'unknown property',
        method: 'POST',
        url: '/v1/sync',
        key: 'venue',
        body: { products: [{ externalId: 'p1', name: 'P', priceMinor: 100, colour: x }] },
      },
      x,
    );
    x = canary();
    at({ label: 'status enum', method: 'PATCH', url: `/v1/orders/${orderId}/status`, key: 'venue', body: { status: x } }, x);
    x = canary();
    at({ label: 'settings timezone', method: 'PATCH', url: '/v1/settings', key: 'venue', body: { timezone: `Europe/${x}` } }, x);
    x = canary();
    at({ label: 'order type enum', method: 'POST', url: `/guest/v1/venues/${venueSlug}/orders`, body: orderBody(ids, { type: x }) }, x);
    x = canary();
    at(
      {
        label: 'order product id',
        method: 'POST',
        url: `/guest/v1/venues/${venueSlug}/orders`,
        body: orderBody(ids, { items: [{ productId: x, quantity: 1 }] }),
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'order option id',
        method: 'POST',
        url: `/guest/v1/venues/${venueSlug}/orders`,
        body: orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 1, modifiers: [{ optionId: x }] }] }),
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'order table id',
        method: 'POST',
        url: `/guest/v1/venues/${venueSlug}/orders`,
        body: orderBody(ids, { type: 'dine_in', tableId: x }),
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'order timestamp',
        method: 'POST',
        url: `/guest/v1/venues/${venueSlug}/orders`,
        body: orderBody(ids, { scheduledFor: `2030-01-01T${x}` }),
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'webhook url with credentials',
        method: 'POST',
        url: '/v1/webhooks',
        key: 'venue',
        body: { url: `https://user:${x}@example.com/hook`, events: ['order.created'] },
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'webhook url not https',
        method: 'POST',
        url: '/v1/webhooks',
        key: 'venue',
        body: { url: `http://${x}.example.com/hook`, events: ['order.created'] },
      },
      x,
    );
    x = canary();
    at(
      {
        label: 'webhook event enum',
        method: 'POST',
        url: '/v1/webhooks',
        key: 'venue',
        body: { url: 'https://example.com/hook', events: [x] },
      },
      x,
    );
    x = canary();
    at(
      { label: 'banner link', method: 'POST', url: '/v1/banners', key: 'venue', body: { title: 'B', linkUrl: `http://${x}.example.com/` } },
      x,
    );
    x = canary();
    at({ label: 'banner schedule', method: 'POST', url: '/v1/banners', key: 'venue', body: { title: 'B', startsAt: x } }, x);
    x = canary();
    at({ label: 'venue currency', method: 'POST', url: '/admin/v1/venues', key: 'admin', body: { name: 'Echo', currency: x } }, x);
    x = canary();
    at({ label: 'venue plan enum', method: 'PATCH', url: `/admin/v1/venues/${v.id}`, key: 'admin', body: { plan: x } }, x);
    const slug = canary().toLowerCase();
    at(
      {
        label: 'a taken slug',
        method: 'POST',
        url: '/admin/v1/venues',
        key: 'admin',
        body: { name: 'Echo', currency: 'EUR', slug: v.slug },
        status: 409,
      },
      v.slug,
    );
    at(
      {
        label: 'a slug with capitals',
        method: 'POST',
        url: '/admin/v1/venues',
        key: 'admin',
        body: { name: 'Echo', currency: 'EUR', slug: `${slug}X` },
      },
      slug,
    );
    at(
      { label: 'a taken table name', method: 'POST', url: '/v1/tables', key: 'venue', body: { name: TABLE_NAME }, status: 409 },
      TABLE_NAME,
    );

    // Query parameters and headers.
    for (const param of ['updatedSince', 'since', 'createdFrom', 'createdTo', 'status', 'type', 'limit', 'page']) {
      x = canary();
      at({ label: `orders ?${param}`, method: 'GET', url: `/v1/orders?${param}=${x}`, key: 'venue' }, x);
    }
    x = canary();
    at({ label: 'stream ?updatedSince', method: 'GET', url: `/v1/orders/stream?updatedSince=${x}`, key: 'venue' }, x);
    x = canary();
    at({ label: 'stream Last-Event-ID', method: 'GET', url: '/v1/orders/stream', key: 'venue', headers: { 'last-event-id': x } }, x);
    x = canary();
    at({ label: 'menu ?version', method: 'GET', url: `/v1/menu?version=${x}`, key: 'venue' }, x);
    x = canary();
    at({ label: 'audit ?action', method: 'GET', url: `/v1/audit-log?action=${x}`, key: 'venue' }, x);
    x = canary();
    at({ label: 'qr sheet ?page', method: 'GET', url: `/v1/tables/qr-sheet.svg?page=${x}`, key: 'venue' }, x);
    x = canary();
    at(
      {
        label: 'If-Match',
        method: 'PATCH',
        url: '/v1/settings',
        key: 'venue',
        body: { timezone: 'Europe/Kyiv' },
        headers: { 'if-match': `"${x}"` },
        status: 412,
      },
      x,
    );
    x = canary();
    at({ label: 'Idempotency-Key', method: 'POST', url: '/v1/publish', key: 'venue', headers: { 'idempotency-key': `${x}\u00e9` } }, x);

    // Path parameters: the resource's not-found, never the value (the path itself may name it).
    x = canary();
    at({ label: 'product ref', method: 'GET', url: `/v1/products/${x}`, key: 'venue', status: 404 }, x);
    x = canary();
    at({ label: 'order id', method: 'GET', url: `/v1/orders/${x}`, key: 'venue', status: 404 }, x);
    x = canary();
    at({ label: 'banner id', method: 'PATCH', url: `/v1/banners/${x}`, key: 'venue', body: { title: 'B' }, status: 404 }, x);
    x = canary();
    at({ label: 'venue slug', method: 'GET', url: `/guest/v1/venues/${x}/menu`, status: 404 }, x);
    x = canary();
    at({ label: 'api key id', method: 'POST', url: `/admin/v1/api-keys/${x}/regenerate`, key: 'admin' }, x);
    x = canary();
    at({ label: 'unknown route', method: 'GET', url: `/v1/${x}`, key: 'venue', status: 404 }, x);
    x = canary();
    at({ label: 'bad percent-encoding', method: 'GET', url: `/v1/products/%E0%A4%A${x}`, key: 'venue' }, x);
    x = canary();
    at({ label: 'parameter too long', method: 'GET', url: `/v1/products/${x}${'y'.repeat(600)}`, key: 'venue', status: 414 }, x);
    // Secret segments: not even in the path.
    x = canary();
    at({ label: 'table token', method: 'GET', url: `/guest/v1/tables/${x}`, status: 404, secretPath: true }, x);
    x = canary();
    at({ label: 'order view token', method: 'GET', url: `/guest/v1/venues/${venueSlug}/orders/${x}`, status: 404, secretPath: true }, x);
    x = canary();
    at({ label: 'table page token', method: 'GET', url: `/t/${x}`, status: 404, secretPath: true }, x);
    x = canary();
    at({ label: 'status page token', method: 'GET', url: `/m/${venueSlug}/orders/${x}`, status: 404, secretPath: true }, x);
    x = canary();
    at({ label: 'past a table token', method: 'GET', url: `/guest/v1/tables/${x}/more`, status: 404, secretPath: true }, x);
    return list.map((c) => ({ ...c, needle: /\[(.+)\]$/.exec(c.label)![1] }));
  }

  it('keeps the value sent out of every refusal', async () => {
    const leaks: string[] = [];
    const wrong: string[] = [];
    for (const c of cases()) {
      const res = await send(c);
      if (res.status !== c.status) wrong.push(`${c.label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      const text = visible(c, res);
      if (text.includes(c.needle)) leaks.push(`${c.label}: ${text.slice(0, 400)}`);
    }
    assert.deepEqual(wrong, [], 'every case is refused as expected');
    assert.deepEqual(leaks, []);
  });

  it('looks where a canary would show: the path of an unknown route names it in the envelope', async () => {
    const x = canary();
    const res = await call(t.app, 'GET', `/v1/${x}`, { key: v.key });
    assert.equal(res.status, 404);
    assert.equal(res.body.path, `/v1/${x}`);
  });
});
