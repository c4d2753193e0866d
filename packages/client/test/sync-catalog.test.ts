import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCartaClient, unwrap, type SyncMenu, type SyncProgress } from '../src/index.js';
import { catalogue } from './catalogue.js';
import { createVenue, recordingFetch, startServer, type TestServer } from './server.js';

const WINDOW_MS = Number(process.env.CLIENT_SYNC_WINDOW_MS ?? 100);

describe('syncCatalog on a real server', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  async function venueClient(log: Parameters<typeof recordingFetch>[0] = []) {
    const v = await createVenue(s.t.app, { plan: 'standard' });
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, fetch: recordingFetch(log) });
    await unwrap(client.api.PATCH('/v1/settings', { body: { enabledLanguages: ['en', 'uk'] } }));
    return client;
  }

  it('pushes a 2,000-product catalogue in requests within the caps, then reports it all skipped', async (ctx) => {
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = await venueClient(log);
    const menu = catalogue(2000);
    const progress: SyncProgress[] = [];

    let started = Date.now();
    const first = await client.syncCatalog(menu, { onProgress: (p) => progress.push(p) });
    const firstMs = Date.now() - started;

    assert.deepEqual(
      [first.categories, first.ingredients, first.products].map((s) => [
        s.created,
        s.updated,
        s.skipped,
        s.errors.length,
        s.warnings.length,
      ]),
      [
        [40, 0, 0, 0, 0],
        [250, 0, 0, 0, 0],
        [2000, 0, 0, 0, 0],
      ],
    );
    assert.deepEqual(first.warnings, []);
    assert.equal(first.dryRun, false);
    // uk names of 40 categories, 250 ingredients, 2000 products and 2000 of their "Size" groups.
    assert.equal(first.translationsApplied, 40 + 250 + 2000 + 2000);

    const syncs = log.filter((r) => r.path === '/v1/sync');
    assert.equal(first.requests, syncs.length);
    assert.equal(syncs.length, 11, 'categories and ingredients (2), then 200 products a request');
    assert.ok(syncs.every((r) => r.status === 201 && r.key !== null));
    assert.equal(new Set(syncs.map((r) => r.key)).size, syncs.length, 'a fresh Idempotency-Key per request');

    assert.deepEqual(
      progress.map((p) => p.requestsDone),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    assert.ok(progress.every((p) => p.requestsTotal === 11));
    assert.deepEqual(progress.at(-1)?.result, first);
    assert.ok(progress[5].result.products.created < 2000, 'running totals');

    const drafted = await client.getMenu();
    assert.equal(drafted.products.length, 2000);
    const p1234 = drafted.products.find((p) => p.externalId === 'prod-1234');
    assert.equal(p1234?.categoryExternalId, 'cat-34');
    assert.deepEqual(
      p1234?.ingredients.map((i) => i.externalId),
      ['ing-234', 'ing-235', 'ing-236'],
    );
    assert.deepEqual(
      p1234?.modifierGroups.map((g) => g.options.length),
      [2, 3],
    );

    started = Date.now();
    const second = await client.syncCatalog(menu);
    const secondMs = Date.now() - started;
    assert.deepEqual(
      [second.categories, second.ingredients, second.products].map((s) => [s.created, s.updated, s.skipped]),
      [
        [0, 0, 40],
        [0, 0, 250],
        [0, 0, 2000],
      ],
    );
    assert.equal(second.translationsApplied, 0);
    ctx.diagnostic(`2,000 products: first sync ${firstMs} ms, second (all skipped) ${secondMs} ms`);
  });

  it('dry-runs a catalogue split across requests with the warnings a real run would give, and writes nothing', async () => {
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = await venueClient(log);
    const menu = catalogue(450);
    // One reference the menu does not define, so exactly one warning is expected.
    menu.products![420].categoryExternalId = 'cat-missing';

    const dry = await client.syncCatalog(menu, { dryRun: true });
    assert.equal(dry.dryRun, true);
    assert.deepEqual(
      [dry.categories, dry.ingredients, dry.products].map((s) => [s.created, s.updated, s.skipped, s.errors.length]),
      [
        [40, 0, 0, 0],
        [250, 0, 0, 0],
        [450, 0, 0, 0],
      ],
    );
    assert.equal(dry.products.warnings.length, 1, dry.products.warnings.join('\n'));
    assert.match(dry.products.warnings[0], /^Product prod-420: /);
    assert.ok(log.filter((r) => r.path === '/v1/sync?dryRun=true').length >= 4);

    const drafted = await client.getMenu();
    assert.deepEqual([drafted.categories.length, drafted.ingredients.length, drafted.products.length], [0, 0, 0]);
  });
});

/** Products heavy to plan and write (20 modifier groups of 4 options each), over 200 ingredients. */
function heavyMenu(products: number): SyncMenu {
  const ingredients = Array.from({ length: 200 }, (_, i) => ({ externalId: `i${i}`, name: `Ingredient ${i}` }));
  return {
    ingredients,
    products: Array.from({ length: products }, (_, p) => ({
      externalId: `p${p}`,
      name: `Product ${p}`,
      priceMinor: 1000 + p,
      modifierGroups: Array.from({ length: 20 }, (_, g) => ({
        name: `Group ${g}`,
        type: 'add_ingredients' as const,
        options: Array.from({ length: 4 }, (_, o) => ({ ingredientExternalId: `i${(p + g * 4 + o) % 200}`, priceAdjustment: 10 * o })),
      })),
    })),
  };
}

describe('syncCatalog when the server answers 413 SYNC_TOO_LARGE', () => {
  let s: TestServer;
  before(async () => {
    // A sync window far below the default 30 s that a whole chunk of heavy products
    // cannot meet but a few products can: the server's answer to "too much at once".
    s = await startServer({ syncTimeoutMs: WINDOW_MS });
  });
  after(() => s.close());

  it('splits the chunk in half until each part fits, and merges every part into one result', async (ctx) => {
    const v = await createVenue(s.t.app, { plan: 'standard' });
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, fetch: recordingFetch(log) });
    const progress: SyncProgress[] = [];

    const result = await client.syncCatalog(heavyMenu(200), { onProgress: (p) => progress.push(p) });
    const tooLarge = log.filter((r) => r.status === 413);
    ctx.diagnostic(`${log.length} requests, ${tooLarge.length} answered 413`);
    assert.ok(tooLarge.length >= 1, 'the server refused at least one chunk');
    assert.equal(result.requests, log.filter((r) => r.status === 201).length);
    assert.deepEqual([result.ingredients.created, result.products.created, result.products.errors.length], [200, 200, 0]);
    assert.equal(progress.at(-1)?.requestsTotal, result.requests, 'each split added one request to the total');
    assert.equal(progress.at(-1)?.requestsDone, result.requests);

    const drafted = await client.getMenu();
    assert.equal(drafted.products.length, 200);
    assert.ok(drafted.products.every((p) => p.modifierGroups.length === 20));
  });
});
