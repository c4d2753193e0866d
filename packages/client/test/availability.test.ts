import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CartaError, createCartaClient, unwrap, type AvailabilityInput, type Settings, type SoldOut } from '../src/index.js';
import { createVenue, recordingFetch, startServer, type TestServer } from './server.js';

// setAvailability and listAvailability (PUT and GET /v1/availability) against a real server, and
// the opening hours and order pause of the settings through the typed api.

const MENU = {
  ingredients: [{ externalId: 'milk', name: 'Milk' }],
  products: [
    { externalId: 'latte', name: 'Latte', priceMinor: 350, ingredientExternalIds: ['milk'] },
    { externalId: 'scone', name: 'Scone', priceMinor: 250 },
  ],
};

describe('@carta/client: availability', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  it('marks sold out and available again, lists what is sold out now, with an Idempotency-Key on the PUT', async () => {
    const v = await createVenue(s.t.app);
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, fetch: recordingFetch(log) });
    await client.syncCatalog(MENU);
    const scone = (await client.getMenu()).products.find((p) => p.externalId === 'scone')!;

    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const input: AvailabilityInput = {
      products: [
        { ref: 'latte', available: false, until },
        { ref: scone.id, available: false },
      ],
      ingredients: [{ ref: 'milk', available: false, until: null }],
    };
    assert.deepEqual(await client.setAvailability(input), { products: { updated: 2 }, ingredients: { updated: 1 } });
    const put = log.find((r) => r.method === 'PUT')!;
    assert.equal(put.path, '/v1/availability');
    assert.match(put.key ?? '', /^[0-9a-f-]{36}$/);

    const list: SoldOut = await client.listAvailability();
    assert.deepEqual(
      list.products.map((p) => [p.ref, p.name, p.until]),
      [
        ['latte', 'Latte', until],
        ['scone', 'Scone', null],
      ],
    );
    assert.equal(list.products[1].id, scone.id);
    assert.deepEqual(
      list.ingredients.map((i) => [i.ref, i.externalId, i.until]),
      [['milk', 'milk', null]],
    );
    assert.ok(!Number.isNaN(Date.parse(list.ingredients[0].updatedAt)));

    assert.deepEqual(
      await client.setAvailability({
        products: [
          { ref: 'latte', available: true },
          { ref: 'scone', available: true },
        ],
      }),
      {
        products: { updated: 2 },
        ingredients: { updated: 0 },
      },
    );
    const after = await client.listAvailability();
    assert.deepEqual([after.products, after.ingredients.map((i) => i.ref)], [[], ['milk']]);
  });

  it('refuses an unknown ref with a CartaError naming it, and writes nothing', async () => {
    const v = await createVenue(s.t.app);
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key });
    await client.syncCatalog(MENU);
    await assert.rejects(
      client.setAvailability({
        products: [
          { ref: 'latte', available: false },
          { ref: 'p9', available: false },
        ],
      }),
      (err: unknown) => {
        assert.ok(err instanceof CartaError);
        assert.deepEqual([err.statusCode, err.message, err.errors], [400, 'Validation failed', ['products[1].ref "p9" not found']]);
        return true;
      },
    );
    assert.deepEqual(await client.listAvailability(), { products: [], ingredients: [] });

    const readOnly = createCartaClient({ baseUrl: s.baseUrl, apiKey: (await createVenue(s.t.app, { readOnly: true })).key });
    await assert.rejects(
      readOnly.setAvailability({ products: [] }),
      (err: unknown) => err instanceof CartaError && err.code === 'READ_ONLY_KEY',
    );
  });

  it('reads and updates the opening hours and order pause of the settings, typed', async () => {
    const v = await createVenue(s.t.app);
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key });
    const pausedUntil = new Date(Date.now() + 30 * 60_000).toISOString();
    const updated: Settings = await unwrap(
      client.api.PATCH('/v1/settings', {
        body: {
          timezone: 'Europe/Madrid',
          openingHours: {
            weekly: [{ day: 'monday', isOpen: true, openTime: '09:00', closeTime: '15:00' }],
            exceptions: [{ date: '2026-12-25', isOpen: false }],
          },
          orderConfig: { pausedUntil, scheduledOrders: { enabled: true } },
        },
      }),
    );
    assert.equal(updated.timezone, 'Europe/Madrid');
    assert.deepEqual(updated.openingHours?.exceptions, [{ date: '2026-12-25', isOpen: false }]);
    assert.deepEqual(
      [updated.orderConfig.pausedUntil, updated.orderConfig.prepTimeMinutes, updated.orderConfig.scheduledOrders],
      [pausedUntil, 15, { enabled: true, maxDaysAhead: 2 }],
    );
    const read = await unwrap(client.api.GET('/v1/settings'));
    assert.deepEqual(read.openingHours, updated.openingHours);

    // The pause and the hours are on every plan, a free one too.
    const free = createCartaClient({ baseUrl: s.baseUrl, apiKey: (await createVenue(s.t.app, { plan: 'free' })).key });
    const paused = await unwrap(free.api.PATCH('/v1/settings', { body: { orderConfig: { pausedUntil }, openingHours: null } }));
    assert.equal(paused.orderConfig.pausedUntil, pausedUntil);
  });
});
