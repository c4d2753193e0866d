import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CartaError, createCartaClient, type MenuDiff, type PublicationPage, type RestoreResult, type SyncMenu } from '../src/index.js';
import { createVenue, recordingFetch, startServer, type TestServer } from './server.js';

// listPublications, getPublication, diffMenus and restorePublication against a real
// server, and the field-level changes of a dry run through syncCatalog.

const MENU: SyncMenu = {
  categories: [{ externalId: 'mains', name: 'Mains', sortOrder: 1 }],
  ingredients: [{ externalId: 'cheese', name: 'Cheese', translations: { uk: { name: 'Сир' } } }],
  products: [
    { externalId: 'burger', name: 'Burger', priceMinor: 1000, categoryExternalId: 'mains', ingredientExternalIds: ['cheese'] },
    { externalId: 'cola', name: 'Cola', priceMinor: 300 },
  ],
};

const EMPTY = { added: [], removed: [], changed: [] };

describe('@carta/client: publication history, diff and restore', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  async function venueClient(log: Parameters<typeof recordingFetch>[0] = []) {
    const v = await createVenue(s.t.app);
    const client = createCartaClient({ baseUrl: s.baseUrl, apiKey: v.key, fetch: recordingFetch(log) });
    await client.api.PATCH('/v1/settings', { body: { enabledLanguages: ['en', 'uk'] } });
    return client;
  }

  it('lists publications newest first, pages them, and reads one in the menu read shape', async () => {
    const client = await venueClient();
    await client.syncCatalog(MENU);
    const first = await client.publish();
    await client.syncCatalog({ products: [{ externalId: 'fries', name: 'Fries', priceMinor: 400 }] });
    const second = await client.publish();

    const page: PublicationPage = await client.listPublications();
    assert.deepEqual(
      page.items.map((p) => [p.id, p.counts, p.restoredFrom]),
      [
        [second.publicationId, { categories: 1, ingredients: 1, products: 3 }, null],
        [first.publicationId, { categories: 1, ingredients: 1, products: 2 }, null],
      ],
    );
    assert.equal(page.items[0].publishedAt, second.publishedAt);
    assert.deepEqual([page.total, page.page, page.limit, page.totalPages], [2, 1, 20, 1]);
    const paged = await client.listPublications({ page: 2, limit: 1 });
    assert.deepEqual([paged.items.map((p) => p.id), paged.totalPages], [[first.publicationId], 2]);

    const snapshot = await client.getPublication(first.publicationId);
    assert.deepEqual([snapshot.version, snapshot.publicationId], ['published', first.publicationId]);
    assert.deepEqual(
      snapshot.products.map((p) => p.externalId),
      ['burger', 'cola'],
    );
    const localized = await client.getPublication(first.publicationId, { locale: 'uk' });
    assert.equal(localized.ingredients[0].name, 'Сир');
  });

  it('diffs two menus by ref with field names, published to draft by default', async () => {
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = await venueClient(log);
    await client.syncCatalog(MENU);
    const { publicationId } = await client.publish();
    await client.syncCatalog({
      products: [
        { externalId: 'burger', name: 'Cheeseburger', priceMinor: 1200 },
        { externalId: 'fries', name: 'Fries', priceMinor: 400 },
      ],
    });

    const diff: MenuDiff = await client.diffMenus();
    assert.deepEqual(diff, {
      from: 'published',
      to: 'draft',
      categories: EMPTY,
      ingredients: EMPTY,
      products: { added: ['fries'], removed: [], changed: [{ ref: 'burger', fields: ['name', 'priceMinor'] }] },
    });
    assert.equal(log.at(-1)?.path, '/v1/menu/diff', 'no empty query parameters');
    const reverse = await client.diffMenus({ from: 'draft', to: publicationId });
    assert.deepEqual([reverse.from, reverse.to, reverse.products.removed], ['draft', publicationId, ['fries']]);
    assert.deepEqual((await client.diffMenus({ from: publicationId, to: 'published' })).products, EMPTY);
  });

  it('restores a publication into the draft, and with publish in the same call, with an Idempotency-Key', async () => {
    const log: Parameters<typeof recordingFetch>[0] = [];
    const client = await venueClient(log);
    await client.syncCatalog(MENU);
    const { publicationId } = await client.publish();
    await client.syncCatalog({
      products: [
        { externalId: 'burger', name: 'Burger', priceMinor: 9900 },
        { externalId: 'fries', name: 'Fries', priceMinor: 400 },
      ],
    });
    await client.publish();

    const restored: RestoreResult = await client.restorePublication(publicationId);
    assert.deepEqual(restored, {
      restoredFrom: publicationId,
      counts: { categories: 1, ingredients: 1, products: 2 },
      publicationId: null,
    });
    const post = log.find((r) => r.method === 'POST' && r.path === `/v1/publications/${publicationId}/restore`)!;
    assert.match(post.key ?? '', /^[0-9a-f-]{36}$/);
    const draft = await client.getMenu();
    assert.equal(draft.products.find((p) => p.externalId === 'burger')?.priceMinor, 1000);
    assert.equal(draft.products.find((p) => p.externalId === 'fries')?.menuVisible, false, 'a product the snapshot lacks is hidden');

    const published = await client.restorePublication(publicationId, { publish: true });
    assert.equal(typeof published.publicationId, 'string');
    const [latest] = (await client.listPublications({ limit: 1 })).items;
    assert.deepEqual([latest.id, latest.restoredFrom], [published.publicationId, publicationId]);
    // The snapshot never had fries: the hidden one the restore left in the draft is published as added.
    assert.deepEqual((await client.diffMenus({ from: publicationId, to: 'published' })).products, {
      added: ['fries'],
      removed: [],
      changed: [],
    });
  });

  it('refuses an unknown publication with CartaError 404 PUBLICATION_NOT_FOUND, and published before any publish with MENU_NOT_PUBLISHED', async () => {
    const client = await venueClient();
    const unknown = globalThis.crypto.randomUUID();
    const notFound = (code: string) => (err: unknown) => err instanceof CartaError && err.statusCode === 404 && err.code === code;
    await assert.rejects(client.getPublication(unknown), notFound('PUBLICATION_NOT_FOUND'));
    await assert.rejects(client.restorePublication(unknown, { publish: true }), notFound('PUBLICATION_NOT_FOUND'));
    await assert.rejects(client.diffMenus(), notFound('MENU_NOT_PUBLISHED'));
    await assert.rejects(client.diffMenus({ from: 'draft', to: unknown }), notFound('PUBLICATION_NOT_FOUND'));
  });

  it('gives a dry run the changes of every item across requests, each once', async () => {
    const client = await venueClient();
    await client.syncCatalog(MENU);
    const dry = await client.syncCatalog(
      {
        categories: [
          { externalId: 'mains', name: 'Mains', sortOrder: 5 },
          { externalId: 'sides', name: 'Sides' },
        ],
        ingredients: [{ externalId: 'cheese', name: 'Cheddar' }],
        products: [
          { externalId: 'burger', name: 'Burger', priceMinor: 1100, categoryExternalId: 'sides', ingredientExternalIds: ['cheese'] },
          { externalId: 'cola', name: 'Cola', priceMinor: 300 },
          { externalId: 'fries', name: 'Fries', priceMinor: 400, categoryExternalId: 'sides' },
        ],
      },
      { dryRun: true, productsPerRequest: 1 },
    );
    assert.ok(dry.requests >= 4, 'categories and ingredients, then one product a request, each with its references');
    assert.deepEqual(dry.categories.changes, [
      { externalId: 'mains', action: 'updated', fields: ['sortOrder'] },
      { externalId: 'sides', action: 'created', fields: [] },
    ]);
    assert.deepEqual(dry.ingredients.changes, [{ externalId: 'cheese', action: 'updated', fields: ['name'] }]);
    assert.deepEqual(dry.products.changes, [
      { externalId: 'burger', action: 'updated', fields: ['categoryExternalId', 'priceMinor'] },
      { externalId: 'fries', action: 'created', fields: [] },
    ]);
    const real = await client.syncCatalog({ products: [{ externalId: 'cola', name: 'Cola', priceMinor: 350 }] });
    assert.deepEqual(real.products.changes, [], 'a real sync lists no changes');
  });
});
