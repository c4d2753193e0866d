import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { App } from '../../src/http/types.js';
import { BODY_LIMIT_BYTES } from '../../src/limits.js';
import { testDatabase, type TestDatabase } from '../helpers/db.js';
import { DEFAULT_TEST_ORDER_CONFIG, ORDER_MENU } from '../helpers/orders.js';

// Secrets stay secret: canary values are planted in requests, good and bad, and looked
// for in every place the service writes to. Each canary has its own rule:
//
// - An API key (its secret) is shown once, in the response that creates it, and nowhere else:
//   not in the log, the audit log, an error or any other response. The same holds for a wrong
//   key-shaped value sent as a key, wherever it is sent (header, query string, URL path).
// - The operator token (ADMIN_TOKEN), right or wrong, appears in no log line, audit entry or response.
// - A customer's phone and email belong to the order: the Order a guest places and the Orders API
//   show them. They never reach the log, the audit log or an error response.
// - A translation value belongs to the menu: menu reads show it. It never reaches the log, an
//   error (a sync's per-item errors included) or the audit log, whose changes hold counts and
//   locales only (field values and secrets are never stored).
// - A table's QR token and a guest order's view token are credentials in a path:
//   whoever holds the link reads what it names. The responses that hand them out show them; no log
//   line shows them, nor an error's `path`, on the routes that take them or on a path that only
//   starts like one.
//
// What a request names is not secret: field names, locales, externalIds and the URL path (the
// error envelope's `path`) may be echoed, so canaries are planted as values. Query strings
// are neither logged nor echoed. A credential-shaped path segment is masked, in the log and in the
// envelope alike, because keys do get pasted into URLs.

const OPERATOR_TOKEN = 'CanaryOperatorToken-4f1b9e2a7c6d8e0f3a5b7c9d';
const WRONG_OPERATOR_TOKEN = 'CanaryWrongOperatorToken-8e2d4c6a0b1f3e5d7c9a';
const WRONG_KEY = 'carta_live_CanaryWrongKeyQ7x2Z9mPp4Lk8Vn3';
const PHONE = '+31694172253';
const EMAIL = 'ada.canary.9c41@example.org';
const TRANSLATION = 'Kanarienvogel5e2b Suppe';

interface Canary {
  name: string;
  /** Strings whose presence betrays the value, raw or URL-encoded. */
  needles: string[];
  /** A key or token: kept out of every response but those in shownIn (by label), not only errors. */
  credential: boolean;
  shownIn: string[];
}

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Options = { key?: string; headers?: Record<string, string>; body?: unknown; raw?: string };

interface Sent {
  label: string;
  status: number;
  text: string;
  headers: string;
  json: any;
}

describe('secrets stay secret', () => {
  let app: App;
  let database: TestDatabase;
  const logChunks: string[] = [];
  const sent: Sent[] = [];
  let apiKey = '';
  let readOnlyKey = '';
  let venue: { id: string; slug: string };
  let friesId = '';
  let tableToken = '';
  let orderToken = '';
  const audit: any[] = [];

  /** One request through the real app, kept with its label for the checks below. `raw` is sent as is. */
  async function send(label: string, method: Method, url: string, options: Options = {}): Promise<Sent> {
    const res = await app.inject({
      method,
      url,
      headers: {
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
        ...(options.body !== undefined || options.raw !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      payload: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    });
    let json: unknown;
    try {
      json = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      json = undefined;
    }
    const r = { label, status: res.statusCode, text: res.body, headers: JSON.stringify(res.headers), json };
    sent.push(r);
    return r;
  }

  /** A planted request that must answer `status`. */
  async function ok(label: string, status: number, method: Method, url: string, options: Options = {}) {
    const r = await send(label, method, url, options);
    assert.equal(r.status, status, `${label}: ${r.text.slice(0, 500)}`);
    return r;
  }

  const customer = { customerName: 'Ada', customerPhone: PHONE, customerEmail: EMAIL };
  const ordersUrl = () => `/guest/v1/venues/${venue.slug}/orders`;
  const orderBody = (extra: Record<string, unknown> = {}) => ({
    type: 'pickup',
    paymentMethod: 'cash',
    items: [{ productId: friesId, quantity: 1 }],
    ...customer,
    ...extra,
  });
  const translationsBody = (locale: string, name: unknown) => ({ products: [{ ref: 'fries', translations: { [locale]: { name } } }] });
  /** A JSON body over the 5 MB cap that starts with the canaries. */
  const oversized = (head: Record<string, unknown>) => JSON.stringify({ ...head, comment: 'x'.repeat(BODY_LIMIT_BYTES) });
  const query = new URLSearchParams({
    api_key: 'KEY',
    token: OPERATOR_TOKEN,
    phone: PHONE,
    email: EMAIL,
    name: TRANSLATION,
  });
  const queryWith = (key: string) => `?${query.toString().replace('KEY', key)}`;

  before(async () => {
    database = await testDatabase();
    // trace: the most the logger can say.
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'trace', ADMIN_TOKEN: OPERATOR_TOKEN, DATA_DIR: '/nonexistent' });
    ({ app } = await buildApp({ config, db: database.db, logStream: { write: (line: string) => void logChunks.push(line) } }));
    await app.ready();
    const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };

    // Setup, all of it through the API: a venue with a key, a published menu with a translation, an order.
    const v = await ok('venue.create', 201, 'POST', '/admin/v1/venues', {
      headers: operator,
      body: { name: 'Canary Bistro', currency: 'EUR', plan: 'standard' },
    });
    venue = { id: v.json.id, slug: v.json.slug };
    apiKey = (await ok('key.create', 201, 'POST', `/admin/v1/venues/${venue.id}/api-keys`, { headers: operator, body: { mode: 'live' } }))
      .json.key;
    readOnlyKey = (
      await ok('key.create', 201, 'POST', `/admin/v1/venues/${venue.id}/api-keys`, {
        headers: operator,
        body: { mode: 'live', readOnly: true },
      })
    ).json.key;
    await ok('key.list', 200, 'GET', `/admin/v1/venues/${venue.id}/api-keys`, { headers: operator });
    await ok('settings', 200, 'PATCH', '/v1/settings', {
      key: apiKey,
      body: { enabledLanguages: ['en', 'de'], orderConfig: DEFAULT_TEST_ORDER_CONFIG },
    });

    const menu = structuredClone(ORDER_MENU) as { products: Record<string, unknown>[] };
    for (const p of menu.products) if (p.externalId === 'fries') p.translations = { de: { name: TRANSLATION } };
    // A locale that is not enabled: a per-item error of the sync, the value in it.
    for (const p of menu.products) if (p.externalId === 'soda') p.translations = { fr: { name: TRANSLATION } };
    const synced = await ok('sync', 201, 'POST', '/v1/sync', { key: apiKey, body: menu });
    assert.ok(JSON.stringify(synced.json.products.errors).includes('LOCALE_NOT_ENABLED'), synced.text);
    await ok('translations.put', 200, 'PUT', '/v1/translations', { key: apiKey, body: translationsBody('de', TRANSLATION) });
    await ok('publish', 201, 'POST', '/v1/publish', { key: apiKey });
    const published = await ok('menu.read', 200, 'GET', '/v1/menu?version=published', { key: apiKey });
    friesId = published.json.products.find((p: { externalId: string }) => p.externalId === 'fries').id;

    const order = await ok('order.create', 201, 'POST', ordersUrl(), {
      body: orderBody(),
      headers: { 'idempotency-key': 'canary-order-1' },
    });
    const location = String(JSON.parse(order.headers).location);
    orderToken = location.split('/').at(-1)!;
    await ok('order.list', 200, 'GET', '/v1/orders', { key: apiKey });
    await ok('order.status', 200, 'PATCH', `/v1/orders/${order.json.id}/status`, { key: apiKey, body: { status: 'confirmed' } });

    // A table's and an order's tokens, on every route that takes one.
    const table = await ok('table.create', 201, 'POST', '/v1/tables', { key: apiKey, body: { name: 'Canary table' } });
    tableToken = table.json.qrUrl.split('/t/')[1];
    await ok('table.resolve', 200, 'GET', `/guest/v1/tables/${tableToken}`);
    await ok('table.resolve-head', 200, 'HEAD', `/guest/v1/tables/${tableToken}`);
    await ok('table.page', 200, 'GET', `/t/${tableToken}?lang=de`);
    await ok('table.page-encoded', 200, 'GET', `/%74/${tableToken}`);
    await ok('table.past-token', 404, 'GET', `/guest/v1/tables/${tableToken}/more${queryWith(apiKey)}`);
    await ok('table.page-past-token', 404, 'GET', `/t/${tableToken}/more`);
    await ok('table.wrong-case', 404, 'GET', `/guest/v1/Tables/${tableToken}x`);
    await ok('table.bad-query', 400, 'GET', `/t/${tableToken}?lang=${'x'.repeat(40)}`);
    const view = await ok('order.view', 200, 'GET', location);
    await ok('order.view-304', 304, 'GET', location, { headers: { 'if-none-match': String(JSON.parse(view.headers).etag) } });
    await ok('order.status-page', 200, 'GET', `/m/${venue.slug}/orders/${orderToken}`);
    await ok('order.view-other-venue', 404, 'GET', `/guest/v1/venues/no-such-venue/orders/${orderToken}`);
    await ok('order.view-past-token', 404, 'POST', `${location}/cancel`, { body: { token: orderToken } });
    await ok('order.view-bad-escape', 400, 'GET', `${location}%E0%A4%A`);

    // Keys and tokens where they do not belong.
    await ok('auth.wrong-key', 401, 'GET', '/v1/menu', { key: WRONG_KEY });
    await ok('auth.key-suffixed', 401, 'GET', '/v1/menu', { key: `${apiKey}0` });
    await ok('auth.x-api-key', 401, 'GET', '/v1/menu', { headers: { 'x-api-key': apiKey } });
    await ok('auth.query-key', 401, 'GET', `/v1/menu${queryWith(apiKey)}`);
    await ok('auth.basic', 401, 'GET', '/v1/menu', { headers: { authorization: `Basic ${apiKey}` } });
    await ok('auth.operator-as-key', 401, 'GET', '/v1/menu', { key: OPERATOR_TOKEN });
    await ok('auth.wrong-operator', 401, 'GET', `/admin/v1/venues/${venue.id}`, { key: WRONG_OPERATOR_TOKEN });
    await ok('auth.key-as-operator', 401, 'GET', `/admin/v1/venues/${venue.id}`, { key: apiKey });
    await ok('auth.operator-in-query', 401, 'GET', `/admin/v1/venues/${venue.id}${queryWith(WRONG_KEY)}`);
    await ok('auth.wrong-key-write', 401, 'PUT', '/v1/translations', { key: WRONG_KEY, body: translationsBody('de', TRANSLATION) });
    await ok('auth.read-only', 403, 'PUT', '/v1/translations', { key: readOnlyKey, body: translationsBody('de', TRANSLATION) });

    // Customer data in bad orders.
    const good = JSON.stringify(orderBody());
    await ok('order.malformed-json', 400, 'POST', ordersUrl(), { raw: good.slice(0, -1) });
    await ok('order.proto-poisoning', 400, 'POST', ordersUrl(), { raw: `{"__proto__":{"customerPhone":"${PHONE}"},${good.slice(1)}` });
    await ok('order.phone-too-long', 400, 'POST', ordersUrl(), { body: orderBody({ customerPhone: `${PHONE} ${'7'.repeat(60)}` }) });
    await ok('order.email-wrong-type', 400, 'POST', ordersUrl(), {
      body: orderBody({ customerEmail: [EMAIL], customerPhone: { number: PHONE } }),
    });
    await ok('order.email-wrong-format', 400, 'POST', ordersUrl(), { body: orderBody({ customerEmail: `${EMAIL.replace('@', ' at ')}` }) });
    await ok('order.email-too-long', 400, 'POST', ordersUrl(), { body: orderBody({ customerEmail: `${'a'.repeat(250)}${EMAIL}` }) });
    await ok('order.unknown-product', 400, 'POST', ordersUrl(), {
      body: orderBody({ items: [{ productId: 'no-such-product', quantity: 1 }] }),
    });
    await ok('order.unknown-venue', 404, 'POST', '/guest/v1/venues/no-such-venue/orders', { body: orderBody() });
    await ok('order.idempotency-reuse', 409, 'POST', ordersUrl(), {
      body: orderBody({ comment: 'again' }),
      headers: { 'idempotency-key': 'canary-order-1' },
    });
    await ok('order.text-plain', 400, 'POST', ordersUrl(), { raw: good, headers: { 'content-type': 'text/plain' } });
    await ok('order.form', 400, 'POST', ordersUrl(), {
      raw: new URLSearchParams(customer).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await ok('order.too-large', 413, 'POST', ordersUrl(), { raw: oversized(orderBody()) });

    // Translation values in bad writes.
    const goodTranslations = JSON.stringify(translationsBody('de', TRANSLATION));
    await ok('translations.malformed-json', 400, 'PUT', '/v1/translations', { key: apiKey, raw: goodTranslations.slice(0, -2) });
    await ok('translations.locale-not-enabled', 400, 'PUT', '/v1/translations', { key: apiKey, body: translationsBody('fr', TRANSLATION) });
    await ok('translations.too-long', 400, 'PUT', '/v1/translations', {
      key: apiKey,
      body: translationsBody('de', `${TRANSLATION} ${'x'.repeat(300)}`),
    });
    await ok('translations.wrong-type', 400, 'PUT', '/v1/translations', { key: apiKey, body: translationsBody('de', [TRANSLATION]) });
    await ok('translations.text-plain', 400, 'PUT', '/v1/translations', {
      key: apiKey,
      raw: goodTranslations,
      headers: { 'content-type': 'text/plain' },
    });
    await ok('translations.too-large', 413, 'PUT', '/v1/translations', {
      key: apiKey,
      raw: oversized(translationsBody('de', TRANSLATION)),
    });
    await ok('sync.translation-too-long', 400, 'POST', '/v1/sync', {
      key: apiKey,
      body: {
        products: [
          { externalId: 'fries', name: 'Fries', priceMinor: 500, translations: { de: { name: `${TRANSLATION} ${'x'.repeat(300)}` } } },
        ],
      },
    });

    // Unknown routes with canaries in the path, the query string and the body.
    await ok('route.unknown-get', 404, 'GET', `/v1/${WRONG_KEY}/${apiKey}${queryWith(apiKey)}`);
    await ok('route.unknown-post', 404, 'POST', `/nowhere/${apiKey}${queryWith(WRONG_KEY)}`, {
      body: { ...customer, name: TRANSLATION, token: OPERATOR_TOKEN },
    });
    await ok('route.unknown-guest', 404, 'GET', `/guest/v1/venues/${venue.slug}/${WRONG_KEY}${queryWith(apiKey)}`);
    await send('route.bad-escape', 'GET', `/v1/%E0%A4%A/${apiKey}${queryWith(apiKey)}`);

    // Requests that make the server log an error (a NUL is a 500 or a 400, either is fine here):
    // the error's details must not carry the values around it.
    await send('order.nul', 'POST', ordersUrl(), { body: orderBody({ customerName: 'Ada\u0000', comment: `${PHONE} ${EMAIL}` }) });
    await send('order.nul-phone', 'POST', ordersUrl(), { body: orderBody({ customerPhone: `${PHONE}\u0000`, customerEmail: undefined }) });
    await send('translations.nul', 'PUT', '/v1/translations', { key: apiKey, body: translationsBody('de', `${TRANSLATION}\u0000`) });
    // A timestamp PostgreSQL cannot store (a 500 when this was written): the database error carries
    // the insert's parameters, the customer's phone and email among them.
    await send('order.year-zero', 'POST', ordersUrl(), { body: orderBody({ scheduledFor: '0000-01-01T00:00:00Z' }) });
    await send('sync.nul', 'POST', '/v1/sync', {
      key: apiKey,
      body: { products: [{ externalId: 'fries', name: 'Fries\u0000', priceMinor: 500, translations: { de: { name: TRANSLATION } } }] },
    });

    // Everything the audit log holds, every page.
    for (let page = 1; ; page += 1) {
      const res = await ok('audit.read', 200, 'GET', `/v1/audit-log?limit=100&page=${page}`, { key: apiKey });
      audit.push(...res.json.items);
      if (page >= res.json.totalPages) break;
    }
  });

  after(async () => {
    await app.close();
    await database.dispose();
  });

  const canaries = (): Canary[] => [
    { name: 'the API key', needles: [apiKey, apiKey.slice('carta_live_'.length)], credential: true, shownIn: ['key.create'] },
    {
      name: 'the read-only API key',
      needles: [readOnlyKey, readOnlyKey.slice('carta_live_'.length)],
      credential: true,
      shownIn: ['key.create'],
    },
    { name: 'a wrong key', needles: [WRONG_KEY.slice('carta_live_'.length)], credential: true, shownIn: [] },
    { name: 'the operator token', needles: [OPERATOR_TOKEN], credential: true, shownIn: [] },
    { name: 'a wrong operator token', needles: [WRONG_OPERATOR_TOKEN], credential: true, shownIn: [] },
    // Core digits and the local part: they survive JSON and URL encoding.
    { name: "the customer's phone", needles: ['31694172253'], credential: false, shownIn: [] },
    { name: "the customer's email", needles: ['ada.canary.9c41'], credential: false, shownIn: [] },
    { name: 'a translation value', needles: ['Kanarienvogel5e2b'], credential: false, shownIn: [] },
    // Shown where they are handed out: the table's create response, the order's Location, and the
    // pages their links open (which call the guest API with them).
    { name: "a table's QR token", needles: [tableToken], credential: true, shownIn: ['table.create', 'table.page', 'table.page-encoded'] },
    { name: "an order's view token", needles: [orderToken], credential: true, shownIn: ['order.create', 'order.status-page'] },
  ];

  /** "<where> shows <canary>" for every place that holds a canary's needle. */
  function leaks(places: { where: string; text: string }[], among = canaries()): string[] {
    return places.flatMap((p) => among.filter((c) => c.needles.some((n) => p.text.includes(n))).map((c) => `${p.where} shows ${c.name}`));
  }

  it('made every planted request, and the log holds lines from all of them', () => {
    const text = logChunks.join('');
    assert.ok(sent.length > 40);
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg?: string; requestId?: string });
    for (const r of sent) {
      const requestId = JSON.parse(r.headers)['x-request-id'];
      const own = lines.filter((l) => l.requestId === requestId);
      assert.ok(
        own.some((l) => l.msg === 'request' || l.msg === 'request errored'),
        `no access line for ${r.label}`,
      );
      // A 500 is logged as an error: the error serializer is exercised, not skipped.
      if (r.status >= 500)
        assert.ok(
          own.some((l) => l.level >= 50),
          `no error line for ${r.label}`,
        );
    }
  });

  it("masks a table's and an order's token in the access lines of unmatched paths, the debug lines and the envelope's path", () => {
    const byLabel = (label: string) => sent.find((r) => r.label === label)!;
    const lines = logChunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const linesOf = (label: string) => lines.filter((l) => l.requestId === JSON.parse(byLabel(label).headers)['x-request-id']);
    assert.equal(byLabel('table.past-token').json.path, '/guest/v1/tables/[Redacted]/more');
    assert.equal(byLabel('table.past-token').json.message, 'Route GET /guest/v1/tables/[Redacted]/more not found');
    assert.equal(byLabel('table.page-past-token').json.path, '/t/[Redacted]/more');
    assert.equal(byLabel('table.bad-query').json.path, '/t/[Redacted]');
    assert.equal(byLabel('order.view-past-token').json.path, `/guest/v1/venues/${venue.slug}/orders/[Redacted]/cancel`);
    assert.equal(byLabel('order.view-bad-escape').json.path, `/guest/v1/venues/${venue.slug}/orders/[Redacted]`);
    assert.equal(linesOf('table.past-token').find((l) => l.msg === 'request').route, '/guest/v1/tables/[Redacted]/more');
    // At trace, the incoming line of a matched route shows its path, with the token masked.
    assert.equal(linesOf('table.resolve').find((l) => l.msg === 'incoming request').url, '/guest/v1/tables/[Redacted]');
    assert.equal(linesOf('table.page-encoded').find((l) => l.msg === 'incoming request').url, '/%74/[Redacted]');
    assert.equal(linesOf('order.view').find((l) => l.msg === 'incoming request').url, `/guest/v1/venues/${venue.slug}/orders/[Redacted]`);
    assert.equal(linesOf('order.view').find((l) => l.msg === 'request').route, '/guest/v1/venues/:slug/orders/:token');
  });

  it('logs and echoes the path without its query string, and with credential-shaped segments masked', () => {
    const unknown = sent.find((r) => r.label === 'route.unknown-get')!;
    assert.equal(unknown.json.path, '/v1/carta_live_[Redacted]/carta_live_[Redacted]');
    assert.equal(unknown.json.message, 'Route GET /v1/carta_live_[Redacted]/carta_live_[Redacted] not found');
    const requestId = JSON.parse(unknown.headers)['x-request-id'];
    // The access line names an unmatched path as the envelope does, and a matched one by its pattern.
    const accessLine = (id: string) =>
      logChunks
        .join('')
        .split('\n')
        .map((l) => (l ? JSON.parse(l) : {}))
        .find((l) => l.requestId === id && l.msg === 'request');
    assert.equal(accessLine(requestId).route, '/v1/carta_live_[Redacted]/carta_live_[Redacted]');
    const order = sent.find((r) => r.label === 'order.create')!;
    assert.equal(accessLine(JSON.parse(order.headers)['x-request-id']).route, '/guest/v1/venues/:slug/orders');
  });

  it('keeps every canary out of every log line', () => {
    const lines = logChunks.join('').split('\n').filter(Boolean);
    assert.ok(lines.length > sent.length);
    assert.deepEqual(leaks(lines.map((line) => ({ where: `log line ${line.slice(0, 300)}`, text: line }))), []);
  });

  it('keeps every canary out of every error response, headers included', () => {
    const failures = sent.filter((r) => r.status >= 400);
    assert.ok(failures.length > 30);
    assert.deepEqual(
      leaks(failures.map((r) => ({ where: `${r.label} (${r.status}) ${r.text.slice(0, 300)}`, text: r.text + r.headers }))),
      [],
    );
  });

  it("keeps canaries out of a sync's per-item errors and warnings", () => {
    const syncs = sent.filter((s) => s.label.startsWith('sync') && s.status < 400);
    assert.ok(syncs.length > 0);
    const messages = syncs.flatMap((r) =>
      (['categories', 'ingredients', 'products'] as const).map((section) => ({
        where: `${r.label} ${section}`,
        text: JSON.stringify([r.json[section]?.errors ?? [], r.json[section]?.warnings ?? [], r.json.warnings ?? []]),
      })),
    );
    assert.deepEqual(leaks(messages), []);
  });

  it('shows an API key only in the response that creates it, and the operator token in none', () => {
    const credentials = canaries().filter((c) => c.credential);
    const elsewhere = sent.map((r) => ({ where: `${r.label} (${r.status})`, text: r.text + r.headers, label: r.label }));
    assert.deepEqual(
      credentials.flatMap((c) =>
        leaks(
          elsewhere.filter((r) => !c.shownIn.includes(r.label)),
          [c],
        ),
      ),
      [],
    );
    assert.ok(
      sent.some((r) => r.label === 'key.create' && r.text.includes(apiKey)),
      'the create response shows the key',
    );
  });

  it('logs a database error without the values it carries', () => {
    // Shaped like the errors PGlite and node-postgres raise: PGlite attaches the statement's
    // parameters, and a data exception (class 22) quotes the offending input in its message.
    const err = Object.assign(new Error(`invalid input syntax for type uuid: "${PHONE}"`), {
      severity: 'ERROR',
      code: '22P02',
      detail: `Key (customer_email)=(${EMAIL}) already exists.`,
      where: `unnamed portal parameter $2 = '${TRANSLATION}'`,
      hint: OPERATOR_TOKEN,
      table: 'orders',
      query: 'insert into orders (customer_phone, customer_email) values ($1, $2)',
      params: [PHONE, EMAIL, apiKey],
    });
    const before = logChunks.length;
    app.log.error({ err }, 'unhandled error');
    const line = JSON.parse(logChunks.slice(before).join(''));
    assert.deepEqual(leaks([{ where: 'the error line', text: JSON.stringify(line) }]), []);
    assert.equal(line.err.code, '22P02', 'what the error names is kept');
    assert.equal(line.err.table, 'orders');
    assert.match(line.err.message, /^invalid input syntax for type uuid/);
  });

  it('keeps every canary out of the audit log, whose changes are summaries', () => {
    const actions = new Set(audit.map((e) => e.action));
    for (const action of ['settings.update', 'menu.sync', 'product.translations', 'menu.publish', 'order.status_update']) {
      assert.ok(actions.has(action), `no ${action} entry: ${[...actions].join(', ')}`);
    }
    assert.deepEqual(leaks(audit.map((e) => ({ where: `audit ${e.action}`, text: JSON.stringify(e) }))), []);
  });

  it('still shows the customer and the translation where they belong', () => {
    const byLabel = (label: string) => sent.find((r) => r.label === label)!;
    assert.equal(byLabel('order.create').json.customerPhone, PHONE);
    assert.equal(byLabel('order.create').json.customerEmail, EMAIL);
    assert.ok(byLabel('order.list').text.includes(EMAIL));
    const fries = byLabel('menu.read').json.products.find((p: { externalId: string }) => p.externalId === 'fries');
    assert.equal(fries.translations.de.name, TRANSLATION);
  });
});
