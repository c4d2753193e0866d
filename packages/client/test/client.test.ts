import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  CartaError,
  CLIENT_VERSION,
  createCartaClient,
  SyncCatalogError,
  unwrap,
  type RetryEvent,
  type SyncProduct,
} from '../src/index.js';
import { retryingFetch, retryPolicy } from '../src/retry.js';
import { admin, createVenue, recordingFetch, startServer, type TestServer, type VenueFixture } from './server.js';

type Log = Parameters<typeof recordingFetch>[0];

/** Throws like fetch does when a connection breaks: a TypeError whose cause has the socket's code. */
function connectionReset(): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
}

/**
 * A fetch that loses the answers to the first `drops` requests matching `path`: the server has
 * run them and answered, the client sees a connection reset.
 */
function losingAnswers(inner: typeof fetch, path: string, drops: number): typeof fetch {
  let left = drops;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const response = await inner(input, init);
    if (left > 0 && url.pathname === path) {
      left -= 1;
      await response.arrayBuffer();
      throw connectionReset();
    }
    return response;
  };
}

/**
 * A fetch that answers the first request to `path` as the server does while another request under
 * the same Idempotency-Key still runs (409 IDEMPOTENCY_KEY_IN_PROGRESS, Retry-After), without
 * sending it; the requests after it reach the server.
 */
function inProgressFirst(inner: typeof fetch, path: string, held: (string | null)[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (held.length > 0 || new URL(request.url).pathname !== path) return inner(request);
    held.push(request.headers.get('idempotency-key'));
    const envelope = {
      statusCode: 409,
      code: 'IDEMPOTENCY_KEY_IN_PROGRESS',
      message: 'still running',
      requestId: 'r',
      timestamp: new Date().toISOString(),
      path,
    };
    return new Response(JSON.stringify(envelope), { status: 409, headers: { 'content-type': 'application/json', 'retry-after': '0' } });
  };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function auditCount(key: string, baseUrl: string, action: 'menu.sync' | 'menu.publish'): Promise<number> {
  const client = createCartaClient({ baseUrl, apiKey: key });
  const page = await unwrap(client.api.GET('/v1/audit-log', { params: { query: { action, limit: 100 } } }));
  return page.total;
}

const SMALL_MENU = {
  categories: [{ externalId: 'drinks', name: 'Drinks', translations: { uk: { name: 'Напої' } } }],
  ingredients: [
    { externalId: 'milk', name: 'Milk', translations: { uk: { name: 'Молоко' } } },
    { externalId: 'oat', name: 'Oat milk' },
  ],
  products: [
    {
      externalId: 'latte',
      name: 'Latte',
      description: 'Espresso and milk',
      priceMinor: 350,
      categoryExternalId: 'drinks',
      ingredientExternalIds: ['milk'],
      modifierGroups: [
        {
          name: 'Milk',
          type: 'single_choice' as const,
          options: [{ ingredientExternalId: 'milk' }, { ingredientExternalId: 'oat', priceAdjustment: 50 }],
          translations: { uk: { name: 'Молоко' } },
        },
      ],
      translations: { uk: { name: 'Лате' } },
    },
  ],
};

describe('@carta/client against a real server', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  async function venue(plan: 'free' | 'standard' = 'standard'): Promise<VenueFixture> {
    return createVenue(s.t.app, { plan });
  }

  it('reads the draft and published menu, typed, and resolves names to a locale', async () => {
    const v = await venue();
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key });
    await unwrap(client.api.PATCH('/v1/settings', { body: { enabledLanguages: ['en', 'uk'] } }));
    const synced = await client.syncCatalog(SMALL_MENU);
    assert.deepEqual([synced.categories.created, synced.ingredients.created, synced.products.created], [1, 2, 1]);

    const draft = await client.getMenu();
    assert.equal(draft.version, 'draft');
    assert.equal(draft.publicationId, null);
    const latte = draft.products[0];
    assert.deepEqual([latte.externalId, latte.name, latte.priceMinor, latte.categoryExternalId], ['latte', 'Latte', 350, 'drinks']);
    assert.deepEqual(
      latte.modifierGroups[0].options.map((o) => [o.ingredientName, o.priceAdjustment]),
      [
        ['Milk', 0],
        ['Oat milk', 50],
      ],
    );

    const uk = await client.getMenu({ locale: 'uk' });
    assert.equal(uk.products[0].name, 'Лате');
    assert.equal(uk.products[0].description, 'Espresso and milk', 'no translation: the stored value');
    assert.equal(uk.categories[0].name, 'Напої');
    assert.equal(uk.products[0].modifierGroups[0].name, 'Молоко');
    assert.deepEqual(
      uk.products[0].modifierGroups[0].options.map((o) => o.ingredientName),
      ['Молоко', 'Oat milk'],
    );
    assert.deepEqual(uk.products[0].ingredients, [{ externalId: 'milk', name: 'Молоко' }]);

    await assert.rejects(client.getMenu({ version: 'published' }), (err: unknown) => {
      assert.ok(err instanceof CartaError);
      assert.deepEqual([err.statusCode, err.code], [404, 'MENU_NOT_PUBLISHED']);
      return true;
    });
    const published = await client.publish();
    assert.deepEqual(published.counts, { categories: 1, ingredients: 2, products: 1 });
    const live = await client.getMenu({ version: 'published' });
    assert.equal(live.publicationId, published.publicationId);

    const reference = await unwrap(client.api.GET('/v1/reference'));
    assert.equal(reference.planLimits.plan, 'standard');
    assert.equal(reference.planLimits.usage.products, 1);
  });

  it('sends and reads modifier rules and default options, typed', async () => {
    const v = await venue();
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key });
    // Typed as the generated sync body: this file stops compiling if the fields leave the document.
    const groups: NonNullable<SyncProduct['modifierGroups']> = [
      {
        name: 'Milk',
        type: 'single_choice',
        isRequired: false,
        options: [
          { ingredientExternalId: 'milk', isDefault: true },
          { ingredientExternalId: 'oat', priceAdjustment: 50 },
        ],
      },
      {
        name: 'Extra milk',
        type: 'add_ingredients',
        minSelections: 1,
        maxSelections: 3,
        maxQuantityPerOption: 2,
        options: [{ ingredientExternalId: 'oat' }],
      },
    ];
    const ingredients = [
      { externalId: 'milk', name: 'Milk' },
      { externalId: 'oat', name: 'Oat milk' },
    ];
    const synced = await client.syncCatalog({
      ingredients,
      products: [{ externalId: 'flat-white', name: 'Flat white', priceMinor: 380, modifierGroups: groups }],
    });
    assert.deepEqual([synced.products.created, synced.products.errors, synced.products.warnings], [1, [], []]);

    const [product] = (await client.getMenu()).products;
    const read = product.modifierGroups.map((g) => ({
      name: g.name,
      rules: [g.minSelections, g.maxSelections, g.maxQuantityPerOption],
      defaults: g.options.map((o) => o.isDefault),
    }));
    assert.deepEqual(read, [
      { name: 'Milk', rules: [0, 1, null], defaults: [true, false] },
      { name: 'Extra milk', rules: [1, 3, 2], defaults: [false] },
    ]);
  });

  it('turns the error envelope into a CartaError with its fields, mapping sync positions to the caller\u2019s arrays', async () => {
    const v = await venue();
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key });

    const invalid = await client.api.POST('/v1/sync', { body: { products: [{ externalId: 'x', name: 'X', priceMinor: -1 }] } });
    assert.equal(invalid.response.status, 400);
    await assert.rejects(
      unwrap(client.api.POST('/v1/sync', { body: { products: [{ externalId: 'x', name: 'X', priceMinor: -1 }] } })),
      (err: unknown) => {
        assert.ok(err instanceof CartaError);
        assert.equal(err.name, 'CartaError');
        assert.equal(err.statusCode, 400);
        assert.equal(err.message, 'Validation failed');
        assert.match(err.errors?.[0] ?? '', /^products\[0\]\.priceMinor /);
        assert.match(err.requestId ?? '', /\S/);
        assert.equal(err.path, '/v1/sync');
        assert.ok(err.timestamp && !Number.isNaN(Date.parse(err.timestamp)));
        return true;
      },
    );

    // Product 250 is in the second request of 200: its message names products[250], not [50].
    const products = Array.from({ length: 260 }, (_, i) => ({ externalId: `p${i}`, name: `P${i}`, priceMinor: i === 250 ? -5 : 100 }));
    await assert.rejects(client.syncCatalog({ products }), (err: unknown) => {
      assert.ok(err instanceof SyncCatalogError && err instanceof CartaError);
      assert.equal(err.statusCode, 400);
      assert.match(err.errors?.[0] ?? '', /^products\[250\]\.priceMinor /);
      assert.equal(err.result.requests, 1, 'the first request went through');
      assert.equal(err.result.products.created, 200);
      return true;
    });

    const unknown = createCartaClient({ baseUrl: s.baseUrl, apiKey: `carta_live_${'x'.repeat(32)}` });
    await assert.rejects(
      unknown.getMenu(),
      (err: unknown) => err instanceof CartaError && err.statusCode === 401 && err.message === 'Invalid API key',
    );

    const order = await client.api.GET('/v1/orders/{id}', { params: { path: { id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' } } });
    await assert.rejects(
      unwrap(Promise.resolve(order)),
      (err: unknown) => err instanceof CartaError && err.statusCode === 404 && err.message === 'Order not found' && err.code === undefined,
    );

    const free = createCartaClient({ baseUrl: s.baseUrl, apiKey: (await venue('free')).key });
    const tooMany = Array.from({ length: 71 }, (_, i) => ({ externalId: `p${i}`, name: `P${i}`, priceMinor: 100 }));
    await assert.rejects(free.syncCatalog({ products: tooMany }), (err: unknown) => {
      assert.ok(err instanceof CartaError);
      assert.deepEqual([err.statusCode, err.code], [400, 'PRODUCT_BULK_LIMIT_EXCEEDED']);
      assert.deepEqual(err.details, { limit: 70, available: 70, requested: 71 });
      return true;
    });
    await assert.rejects(
      free.pollOrders({ onOrder: () => undefined }),
      (err: unknown) => err instanceof CartaError && err.code === 'PAID_PLAN_REQUIRED',
    );
  });

  it('does not repeat a request the server refused (400)', async () => {
    const v = await venue();
    const log: Log = [];
    const retries: RetryEvent[] = [];
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, fetch: recordingFetch(log), onRetry: (e) => retries.push(e) });
    await assert.rejects(
      client.syncCatalog({ products: [{ externalId: 'x', name: '', priceMinor: 1, colour: 'red' } as never] }),
      CartaError,
    );
    assert.equal(log.length, 1);
    assert.equal(log[0].status, 400);
    assert.deepEqual(retries, []);
  });

  it('sends every write with a fresh Idempotency-Key and repeats a lost answer under the same key: the server runs it once', async () => {
    const v = await venue();
    const log: Log = [];
    const retries: RetryEvent[] = [];
    const fetchLosing = losingAnswers(recordingFetch(log), '/v1/publish', 1);
    const client = createCartaClient({
      baseUrl: s.baseUrl,
      apiKey: v.key,
      fetch: losingAnswers(fetchLosing, '/v1/sync', 1),
      onRetry: (e) => retries.push(e),
    });

    await unwrap(client.api.PATCH('/v1/settings', { body: { enabledLanguages: ['en', 'uk'] } }));
    const synced = await client.syncCatalog(SMALL_MENU);
    assert.equal(synced.products.created, 1, 'the replayed answer of the first run, not "skipped" from a second');
    const published = await client.publish();
    const again = await client.publish();
    assert.notEqual(again.publicationId, published.publicationId, 'two calls are two publishes');

    const writes = log.filter((r) => r.method === 'POST');
    assert.equal(log[0].method, 'PATCH');
    assert.deepEqual(
      writes.map((r) => [r.path, r.status, r.replayed]),
      [
        ['/v1/sync', 201, false],
        ['/v1/sync', 201, true],
        ['/v1/publish', 201, false],
        ['/v1/publish', 201, true],
        ['/v1/publish', 201, false],
      ],
    );
    assert.ok(writes.every((r) => typeof r.key === 'string' && /^[0-9a-f-]{36}$/.test(r.key)));
    assert.equal(writes[0].key, writes[1].key, 'the retry of a sync carries its key');
    assert.equal(writes[2].key, writes[3].key, 'the retry of a publish carries its key');
    assert.equal(new Set(writes.map((r) => r.key)).size, 3);
    assert.ok(
      log.filter((r) => r.method === 'GET').every((r) => r.key === null),
      'reads carry no key',
    );
    assert.deepEqual(
      retries.map((r) => [r.statusCode, r.code]),
      [
        [0, 'ECONNRESET'],
        [0, 'ECONNRESET'],
      ],
    );

    assert.equal(await auditCount(v.key, s.baseUrl, 'menu.sync'), 1);
    assert.equal(await auditCount(v.key, s.baseUrl, 'menu.publish'), 2);
  });

  it('waits out 409 IDEMPOTENCY_KEY_IN_PROGRESS and repeats the write under the same key', async () => {
    const v = await venue();
    const log: Log = [];
    const retries: RetryEvent[] = [];
    const held: (string | null)[] = [];
    const fetchInProgress = inProgressFirst(recordingFetch(log), '/v1/publish', held);
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, fetch: fetchInProgress, onRetry: (e) => retries.push(e) });
    await client.syncCatalog(SMALL_MENU);
    await client.publish();
    assert.deepEqual(
      retries.map((r) => [r.statusCode, r.code]),
      [[409, 'IDEMPOTENCY_KEY_IN_PROGRESS']],
    );
    const sent = log.filter((r) => r.path === '/v1/publish');
    assert.deepEqual(
      sent.map((r) => [r.status, r.key]),
      [[201, held[0]]],
      'the retry carries the key that was in progress',
    );
    assert.equal(await auditCount(v.key, s.baseUrl, 'menu.publish'), 1);
  });

  it('never repeats a write that has no Idempotency-Key', async () => {
    const v = await venue();
    const log: Log = [];
    const send = retryingFetch(losingAnswers(recordingFetch(log), '/v1/publish', 1), retryPolicy({ maxRetries: 4, baseDelayMs: 1 }));
    const request = new Request(`${s.baseUrl}/v1/publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    await assert.rejects(
      send(request),
      (err: unknown) => err instanceof CartaError && err.statusCode === 0 && err.code === 'NETWORK_ERROR',
    );
    assert.equal(log.length, 1, 'sent once');
    assert.equal(await auditCount(v.key, s.baseUrl, 'menu.publish'), 1, 'and run once');
  });

  it('retries a refused connection with backoff, then gives up with a NETWORK_ERROR CartaError', async () => {
    const retries: RetryEvent[] = [];
    const client = createCartaClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      apiKey: 'k',
      maxRetries: 3,
      baseDelayMs: 20,
      onRetry: (e) => retries.push(e),
    });
    await assert.rejects(client.getMenu(), (err: unknown) => {
      assert.ok(err instanceof CartaError);
      assert.deepEqual([err.statusCode, err.code], [0, 'NETWORK_ERROR']);
      assert.match(err.message, /ECONNREFUSED/);
      return true;
    });
    assert.deepEqual(
      retries.map((r) => [r.retry, r.code]),
      [
        [1, 'ECONNREFUSED'],
        [2, 'ECONNREFUSED'],
        [3, 'ECONNREFUSED'],
      ],
    );
    assert.ok(
      retries.every((r, i) => r.delayMs >= 0 && r.delayMs < 20 * 2 ** i),
      'full jitter below each doubling step',
    );
  });

  it('sends its User-Agent and works with the operator API too', async () => {
    const seen: string[] = [];
    const client = createCartaClient({
      baseUrl: s.baseUrl,
      apiKey: 'test-admin-token-0123456789abcdef0123456789',
      fetch: async (input, init) => {
        seen.push((input instanceof Request ? input.headers : new Headers(init?.headers)).get('user-agent') ?? '');
        return fetch(input, init);
      },
    });
    const created = await unwrap(client.api.POST('/admin/v1/venues', { body: { name: 'Client Cafe', currency: 'EUR', plan: 'standard' } }));
    const shown = await admin(s.t.app, 'GET', `/venues/${created.id}`);
    assert.equal(shown.body.name, 'Client Cafe');
    assert.deepEqual(seen, [`carta-client/${CLIENT_VERSION}`]);
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(CLIENT_VERSION, pkg.version);
  });
});
