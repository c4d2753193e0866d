import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { auditEntries, publish } from '../helpers/orders.js';
import { syncCalls } from '../helpers/sync.js';

// Publication history, diff and restore: the list, one publication's read, the
// diff between draft, published and any publication, restore with and without publishing, and
// retention against the injected clock. Every test makes its own venue.

const DAY = 86_400_000;
let now = Date.parse('2026-06-01T12:00:00Z');
let t: TestApp;
before(async () => {
  t = await startApp({}, undefined, { clock: () => now });
});
after(() => t.close());

const { syncOk, draft } = syncCalls(() => t.app);

const MENU = {
  categories: [
    { externalId: 'mains', name: 'Mains', sortOrder: 1 },
    { externalId: 'drinks', name: 'Drinks', sortOrder: 2 },
  ],
  ingredients: [
    { externalId: 'cheese', name: 'Cheese', allergens: ['milk'] },
    { externalId: 'bacon', name: 'Bacon' },
  ],
  products: [
    {
      externalId: 'burger',
      name: 'Burger',
      priceMinor: 1000,
      categoryExternalId: 'mains',
      ingredientExternalIds: ['cheese'],
      allergens: ['gluten'],
      modifierGroups: [
        { name: 'Extras', type: 'add_ingredients', maxSelections: 2, options: [{ ingredientExternalId: 'bacon', priceAdjustment: 200 }] },
      ],
      translations: {},
    },
    { externalId: 'cola', name: 'Cola', priceMinor: 300, categoryExternalId: 'drinks' },
  ],
};

const get = (v: VenueFixture, url: string) => call(t.app, 'GET', url, { key: v.key });
const restore = (v: VenueFixture, id: string, body?: unknown) =>
  call(t.app, 'POST', `/v1/publications/${id}/restore`, { key: v.key, body });

async function seeded(): Promise<{ v: VenueFixture; first: string }> {
  const v = await createVenue(t.app);
  await syncOk(v, MENU);
  return { v, first: await publish(t.app, v) };
}

/** A menu document without what a publish or a read stamps on it. */
function content(doc: any) {
  const { publicationId: _p, publishedAt: _a, generatedAt: _g, version: _v, ...rest } = doc;
  const strip = (items: any[]) => items.map(({ updatedAt: _u, ...item }: any) => item);
  return { ...rest, categories: strip(rest.categories), ingredients: strip(rest.ingredients), products: strip(rest.products) };
}

const EMPTY = { added: [], removed: [], changed: [] };

describe('publication history', () => {
  it('lists publications newest first, pages them, and reads each in the menu read shape', async () => {
    const { v, first } = await seeded();
    now += 1000;
    await syncOk(v, { products: [{ externalId: 'cola', name: 'Cola', priceMinor: 350 }] });
    const second = await publish(t.app, v);
    const list = await get(v, '/v1/publications');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((p: any) => p.id),
      [second, first],
    );
    assert.deepEqual(list.body.items[0].counts, { categories: 2, ingredients: 2, products: 2 });
    assert.equal(list.body.items[0].restoredFrom, null);
    assert.deepEqual([list.body.total, list.body.page, list.body.limit, list.body.totalPages], [2, 1, 20, 1]);
    const paged = await get(v, '/v1/publications?limit=1&page=2');
    assert.deepEqual([paged.body.items.map((p: any) => p.id), paged.body.total, paged.body.totalPages], [[first], 2, 2]);
    assert.deepEqual((await get(v, '/v1/publications?page=5')).body.items, []);

    const read = await get(v, `/v1/publications/${first}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.version, 'published');
    assert.equal(read.body.publicationId, first);
    assert.equal(read.body.products.find((p: any) => p.externalId === 'cola').priceMinor, 300);
    const latest = await get(v, `/v1/publications/${second}`);
    assert.deepEqual(latest.body, (await get(v, '/v1/menu?version=published')).body);
  });

  it("answers 404 PUBLICATION_NOT_FOUND for an unknown id, a malformed one and another venue's", async () => {
    const { v, first } = await seeded();
    const other = await createVenue(t.app);
    for (const id of [randomUUID(), 'nope']) assertError(await get(v, `/v1/publications/${id}`), 404, 'PUBLICATION_NOT_FOUND');
    assertError(await get(other, `/v1/publications/${first}`), 404, 'PUBLICATION_NOT_FOUND');
    assertError(await restore(other, first), 404, 'PUBLICATION_NOT_FOUND');
    assertError(await get(other, `/v1/menu/diff?from=${first}`), 404, 'PUBLICATION_NOT_FOUND');
    assert.deepEqual((await get(other, '/v1/publications')).body.items, []);
  });

  it('keeps every publication of the last 90 days and always the latest 20', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, MENU);
    const ids: string[] = [];
    for (let i = 0; i < 22; i += 1) {
      ids.push(await publish(t.app, v));
      now += 1000;
    }
    assert.equal((await get(v, '/v1/publications?limit=100')).body.total, 22, 'all within 90 days');
    now += 91 * DAY;
    ids.push(await publish(t.app, v));
    const kept = (await get(v, '/v1/publications?limit=100')).body.items.map((p: any) => p.id);
    assert.deepEqual(kept, ids.slice(-20).reverse());
    assertError(await get(v, `/v1/publications/${ids[0]}`), 404, 'PUBLICATION_NOT_FOUND');
  });

  it('frees the images only pruned publications used', async () => {
    const v = await createVenue(t.app);
    await syncOk(v, MENU);
    const upload = async (colour: string) => {
      const res = await call(t.app, 'POST', '/v1/products/burger/image', {
        key: v.key,
        body: { base64: toBase64(await makeImage(400, 400, 'png', { colour })) },
      });
      assert.equal(res.status, 201);
      return new URL(res.body.imageUrl, 'http://x').pathname;
    };
    const old = await upload('#aa0000');
    await publish(t.app, v);
    const current = await upload('#00aa00');
    assert.equal((await call(t.app, 'GET', old)).status, 200, 'the first publication still shows the old image');
    now += 91 * DAY;
    for (let i = 0; i < 20; i += 1) {
      await publish(t.app, v);
      now += 1000;
    }
    assert.equal((await get(v, '/v1/publications?limit=100')).body.total, 20);
    assert.equal((await call(t.app, 'GET', old)).status, 404);
    assert.equal((await call(t.app, 'GET', current)).status, 200);
  });
});

describe('GET /v1/menu/diff', () => {
  it('answers 404 MENU_NOT_PUBLISHED for published before any publish', async () => {
    const v = await createVenue(t.app);
    assertError(await get(v, '/v1/menu/diff'), 404, 'MENU_NOT_PUBLISHED');
    const self = await get(v, '/v1/menu/diff?from=draft&to=draft');
    assert.deepEqual(self.body, { from: 'draft', to: 'draft', categories: EMPTY, ingredients: EMPTY, products: EMPTY });
  });

  it('diffs the draft against the published menu by default, field by field', async () => {
    const { v } = await seeded();
    assert.deepEqual((await get(v, '/v1/menu/diff')).body, {
      from: 'published',
      to: 'draft',
      categories: EMPTY,
      ingredients: EMPTY,
      products: EMPTY,
    });
    await syncOk(v, {
      categories: [{ externalId: 'desserts', name: 'Desserts' }],
      products: [
        { externalId: 'burger', name: 'Burger', priceMinor: 1100 },
        { externalId: 'cake', name: 'Cake', priceMinor: 500, categoryExternalId: 'desserts' },
      ],
    });
    await call(t.app, 'POST', '/v1/cleanup', {
      key: v.key,
      body: {
        items: [
          { type: 'product', ref: 'cola' },
          { type: 'ingredient', ref: 'bacon' },
        ],
      },
    });
    const diff = (await get(v, '/v1/menu/diff')).body;
    assert.deepEqual(diff.categories, { added: ['desserts'], removed: [], changed: [] });
    assert.deepEqual(diff.ingredients, { added: [], removed: ['bacon'], changed: [] });
    assert.deepEqual(diff.products.added, ['cake']);
    assert.deepEqual(diff.products.removed, []);
    const changed = Object.fromEntries(diff.products.changed.map((c: any) => [c.ref, c.fields]));
    assert.deepEqual(changed.cola, ['menuVisible']);
    // The bacon option went with its ingredient.
    assert.deepEqual(changed.burger, ['modifierGroups', 'priceMinor']);
    const reverse = (await get(v, '/v1/menu/diff?from=draft&to=published')).body;
    assert.deepEqual([reverse.products.removed, reverse.ingredients.added], [['cake'], ['bacon']]);
  });

  it('finds nothing between a publication and a publish of the unchanged draft', async () => {
    const { v, first } = await seeded();
    const second = await publish(t.app, v);
    const diff = (await get(v, `/v1/menu/diff?from=${first}&to=${second}`)).body;
    assert.deepEqual([diff.categories, diff.ingredients, diff.products], [EMPTY, EMPTY, EMPTY]);
  });
});

describe('POST /v1/publications/:id/restore', () => {
  it('makes the draft the snapshot again in one call, and a publish of it equals the snapshot in every field, images included', async () => {
    const { v } = await seeded();
    const image = toBase64(await makeImage(400, 400, 'png', { colour: '#00aa00' }));
    assert.equal((await call(t.app, 'POST', '/v1/products/burger/image', { key: v.key, body: { base64: image } })).status, 201);
    const snapshotId = await publish(t.app, v);
    const snapshot = (await get(v, `/v1/publications/${snapshotId}`)).body;

    // Another image, new prices, a product gone, a category and an ingredient deleted, a new product.
    const other = toBase64(await makeImage(400, 400, 'png', { colour: '#0000aa' }));
    assert.equal((await call(t.app, 'POST', '/v1/products/burger/image', { key: v.key, body: { base64: other } })).status, 201);
    await syncOk(v, {
      products: [
        { externalId: 'burger', name: 'Burger!', priceMinor: 1500, modifierGroups: [] },
        { externalId: 'fries', name: 'Fries', priceMinor: 400 },
      ],
    });
    assert.equal((await call(t.app, 'DELETE', '/v1/products/cola', { key: v.key })).status, 200);
    await call(t.app, 'POST', '/v1/cleanup', {
      key: v.key,
      body: {
        items: [
          { type: 'category', ref: 'mains' },
          { type: 'ingredient', ref: 'bacon' },
        ],
      },
    });

    const res = await restore(v, snapshotId);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { restoredFrom: snapshotId, counts: { categories: 2, ingredients: 2, products: 2 }, publicationId: null });

    const diff = (await get(v, `/v1/menu/diff?from=${snapshotId}&to=draft`)).body;
    assert.deepEqual([diff.categories, diff.ingredients], [EMPTY, EMPTY]);
    assert.deepEqual(diff.products, { added: ['fries'], removed: [], changed: [] });
    const fries = (await draft(v)).products.find((p: any) => p.externalId === 'fries');
    assert.equal(fries.menuVisible, false, 'a draft product the snapshot lacks is hidden');

    const published = await call(t.app, 'POST', '/v1/publications/' + snapshotId + '/restore', { key: v.key, body: { publish: true } });
    assert.equal(published.status, 200);
    assert.equal(typeof published.body.publicationId, 'string');
    const again = (await get(v, '/v1/menu?version=published')).body;
    assert.equal(again.publicationId, published.body.publicationId);
    const visible = (doc: any) => ({ ...content(doc), products: content(doc).products.filter((p: any) => p.externalId !== 'fries') });
    assert.deepEqual(visible(again), content(snapshot));
    assert.ok(again.products.find((p: any) => p.externalId === 'burger').image.imageUrl, 'the image is back');
    const imageUrl = new URL(again.products.find((p: any) => p.externalId === 'burger').image.imageUrl, 'http://x');
    assert.equal((await call(t.app, 'GET', imageUrl.pathname)).status, 200);

    const list = (await get(v, '/v1/publications')).body.items;
    assert.equal(list[0].restoredFrom, snapshotId);
    const restores = await auditEntries(t.app, v.key, 'menu.restore');
    assert.equal(restores.length, 2);
    assert.equal(restores[0].entityRef, snapshotId);
    assert.equal((await auditEntries(t.app, v.key, 'menu.publish')).length, 3);
  });

  it('leaves the draft, the publications and the audit log as they were when the restore fails inside its transaction', async () => {
    const { v, first } = await seeded();
    // A draft the restore would change in every section: a new price and product, a category and an ingredient gone.
    await syncOk(v, {
      products: [
        { externalId: 'burger', name: 'Burger', priceMinor: 1500 },
        { externalId: 'fries', name: 'Fries', priceMinor: 400 },
      ],
    });
    await call(t.app, 'POST', '/v1/cleanup', {
      key: v.key,
      body: {
        items: [
          { type: 'category', ref: 'drinks' },
          { type: 'ingredient', ref: 'bacon' },
        ],
      },
    });
    const before = await draft(v);
    // The diff reads the draft's rows every time (GET /v1/menu may answer from its cache).
    const changes = (await get(v, `/v1/menu/diff?from=${first}&to=draft`)).body;
    const publications = (await get(v, '/v1/publications')).body.items;

    // A real database error, raised by a trigger for this venue only: on the products write (after
    // the deletes and the category and ingredient writes), then on the publication insert (the last step).
    const db = t.database.db;
    await db.exec(`create or replace function fail_restore() returns trigger language plpgsql as $$
      begin
        if new.venue_id = '${v.id}' then raise exception 'restore failure for the test'; end if;
        return new;
      end $$`);
    const failures: [string, string, unknown][] = [
      ['products', 'before insert or update on products', undefined],
      ['menu_publications', 'before insert on menu_publications', { publish: true }],
    ];
    try {
      for (const [table, when, body] of failures) {
        await db.exec(`create trigger fail_restore ${when} for each row execute function fail_restore()`);
        try {
          assertError(await restore(v, first, body), 500);
        } finally {
          await db.exec(`drop trigger fail_restore on ${table}`);
        }
        assert.deepEqual(await draft(v), before, `a failure on ${table} left the draft changed`);
        assert.deepEqual((await get(v, `/v1/menu/diff?from=${first}&to=draft`)).body, changes);
        assert.deepEqual((await get(v, '/v1/publications')).body.items, publications);
        assert.deepEqual(await auditEntries(t.app, v.key, 'menu.restore'), []);
      }
    } finally {
      await db.exec('drop function fail_restore()');
    }

    // Nothing was left half-held: the same restore now goes through.
    const res = await restore(v, first, { publish: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const diff = (await get(v, `/v1/menu/diff?from=${first}&to=draft`)).body;
    assert.deepEqual([diff.categories, diff.ingredients, diff.products], [EMPTY, EMPTY, { added: ['fries'], removed: [], changed: [] }]);
  });

  it('writes only the products that changed since the snapshot', async () => {
    const { v, first } = await seeded();
    const product = async (ref: string) => (await get(v, `/v1/products/${ref}`)).body;
    const burger = await product('burger');
    now += 1000;
    await syncOk(v, { products: [{ externalId: 'cola', name: 'Cola', priceMinor: 350 }] });
    now += 1000;
    const res = await restore(v, first);
    assert.equal(res.status, 200);
    assert.equal((await product('cola')).priceMinor, 300);
    assert.equal((await product('burger')).updatedAt, burger.updatedAt, 'an unchanged product is not written');
    const [entry] = await auditEntries(t.app, v.key, 'menu.restore');
    assert.equal(entry.changes.productsWritten, 1);
    assert.deepEqual(res.body.counts, { categories: 2, ingredients: 2, products: 2 });
  });

  it('answers 404 for an unknown publication and 400 for an unknown body field, writing nothing', async () => {
    const { v, first } = await seeded();
    assertError(await restore(v, randomUUID()), 404, 'PUBLICATION_NOT_FOUND');
    assertError(await restore(v, first, { publish: 'yes' }), 400);
    assertError(await restore(v, first, { other: true }), 400);
    assert.deepEqual(await auditEntries(t.app, v.key, 'menu.restore'), []);
  });
});

describe('POST /v1/sync?dryRun=true changes', () => {
  it('lists each item a sync would create or update with the read-shape fields it changes', async () => {
    const { v } = await seeded();
    const body = {
      categories: [
        { externalId: 'mains', name: 'Mains', sortOrder: 5 },
        { externalId: 'new', name: 'New' },
      ],
      ingredients: [{ externalId: 'cheese', name: 'Cheese', allergens: ['milk', 'eggs'] }],
      products: [
        { externalId: 'burger', name: 'Cheeseburger', priceMinor: 1200, categoryExternalId: 'drinks', ingredientExternalIds: [] },
        { externalId: 'cola', name: 'Cola', priceMinor: 300, categoryExternalId: 'drinks' },
        { externalId: 'fries', name: 'Fries', priceMinor: 400 },
      ],
    };
    const res = await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.categories.changes, [
      { externalId: 'mains', action: 'updated', fields: ['sortOrder'] },
      { externalId: 'new', action: 'created', fields: [] },
    ]);
    assert.deepEqual(res.body.ingredients.changes, [{ externalId: 'cheese', action: 'updated', fields: ['allergens'] }]);
    assert.deepEqual(res.body.products.changes, [
      { externalId: 'burger', action: 'updated', fields: ['categoryExternalId', 'ingredients', 'name', 'priceMinor'] },
      { externalId: 'fries', action: 'created', fields: [] },
    ]);
    const real = await syncOk(v, body);
    assert.equal(real.products.changes, undefined, 'a real sync lists no changes');
  });

  it('names menuVisible for a cleaned-up product a sync brings back', async () => {
    const { v } = await seeded();
    await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'product', ref: 'cola' }] } });
    const res = await call(t.app, 'POST', '/v1/sync?dryRun=true', { key: v.key, body: { products: [MENU.products[1]] } });
    assert.deepEqual(res.body.products.changes, [{ externalId: 'cola', action: 'updated', fields: ['menuVisible'] }]);
  });
});
