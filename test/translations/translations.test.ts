import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

const MENU = {
  categories: [{ externalId: 'soups', name: 'Soups' }],
  ingredients: [{ externalId: 'dill', name: 'Dill' }],
  products: [
    {
      externalId: 'borscht',
      name: 'Borscht',
      description: 'Beet soup',
      priceMinor: 450,
      badgeLabel: 'Hot',
      categoryExternalId: 'soups',
      ingredientExternalIds: ['dill'],
      modifierGroups: [
        { name: 'Size', type: 'single_choice', options: [{ ingredientExternalId: 'dill' }] },
        { name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'dill', priceAdjustment: 20 }] },
      ],
    },
  ],
};

describe('PUT /v1/translations', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  /** A venue with uk, de and en enabled and one small menu. */
  async function seeded(): Promise<VenueFixture> {
    const v = await createVenue(t.app);
    const settings = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk', 'de'] } });
    assert.equal(settings.status, 200);
    const res = await call(t.app, 'POST', '/v1/sync', { key: v.key, body: MENU });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return v;
  }

  function put(v: VenueFixture, body: unknown, headers: Record<string, string> = {}) {
    return call(t.app, 'PUT', '/v1/translations', { key: v.key, body, headers });
  }

  async function readMenu(v: VenueFixture) {
    const res = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.equal(res.status, 200);
    return res.body;
  }

  async function auditEntries(v: VenueFixture) {
    const res = await call(t.app, 'GET', '/v1/audit-log?limit=100', { key: v.key });
    return res.body.items.filter((e: any) => e.action.endsWith('.translations'));
  }

  it('writes products, categories and ingredients by externalId or id and modifier groups by id', async () => {
    const v = await seeded();
    const menu = await readMenu(v);
    const [size, extras] = menu.products[0].modifierGroups;
    const res = await put(v, {
      products: [
        {
          ref: 'borscht',
          translations: { uk: { name: 'Борщ', description: 'Буряковий суп', badgeLabel: 'Гарячий' }, de: { name: 'Borschtsch' } },
        },
      ],
      categories: [{ ref: menu.categories[0].id, translations: { uk: { name: 'Супи' } } }],
      ingredients: [{ ref: 'dill', translations: { de: { name: 'Dill' } } }],
      modifierGroups: [
        { id: size.id, translations: { uk: { name: 'Розмір' } } },
        { id: extras.id, translations: { de: { name: 'Extras' } } },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { applied: 6, notFound: [] });

    const after = await readMenu(v);
    const p = after.products[0];
    assert.deepEqual(p.translations, {
      uk: { name: 'Борщ', description: 'Буряковий суп', badgeLabel: 'Гарячий' },
      de: { name: 'Borschtsch' },
    });
    assert.deepEqual(after.categories[0].translations, { uk: { name: 'Супи' } });
    assert.deepEqual(after.ingredients[0].translations, { de: { name: 'Dill' } });
    assert.deepEqual(
      p.modifierGroups.map((g: any) => [g.id, g.translations]),
      [
        [size.id, { uk: { name: 'Розмір' } }],
        [extras.id, { de: { name: 'Extras' } }],
      ],
    );
    assert.equal(p.name, 'Borscht', 'the content itself is unchanged');

    const byId = await put(v, { products: [{ ref: p.id, translations: { uk: { badgeLabel: 'Хіт' } } }] });
    assert.equal(byId.status, 200);
    assert.equal((await readMenu(v)).products[0].translations.uk.badgeLabel, 'Хіт');
  });

  it('merges: omitted locales and fields are kept, a value replaces, "" clears', async () => {
    const v = await seeded();
    assert.equal(
      (
        await put(v, {
          products: [{ ref: 'borscht', translations: { uk: { name: 'Борщ', description: 'Суп' }, de: { name: 'Borschtsch' } } }],
        })
      ).status,
      200,
    );
    const res = await put(v, { products: [{ ref: 'borscht', translations: { uk: { description: '', badgeLabel: 'Новинка' } } }] });
    assert.equal(res.status, 200);
    assert.deepEqual((await readMenu(v)).products[0].translations, {
      uk: { name: 'Борщ', badgeLabel: 'Новинка' },
      de: { name: 'Borschtsch' },
    });

    await put(v, { products: [{ ref: 'borscht', translations: { de: { name: '' } } }] });
    assert.deepEqual(
      (await readMenu(v)).products[0].translations,
      { uk: { name: 'Борщ', badgeLabel: 'Новинка' } },
      'a locale left empty goes away',
    );
  });

  it('is overwritten by a re-sync of the same items that sends other values for those locales', async () => {
    // A sync skips an item identical to the one that last wrote the row without reading the row;
    // a translation written here in between must make that row read and compared again.
    const v = await createVenue(t.app);
    await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk'] } });
    const synced = {
      categories: [{ externalId: 'soups', name: 'Soups', translations: { uk: { name: 'Супи' } } }],
      ingredients: [{ externalId: 'dill', name: 'Dill', translations: { uk: { name: 'Кріп' } } }],
      products: [{ externalId: 'borscht', name: 'Borscht', priceMinor: 450, translations: { uk: { name: 'Борщ' } } }],
    };
    assert.equal((await call(t.app, 'POST', '/v1/sync', { key: v.key, body: synced })).status, 201);
    const res = await put(v, {
      products: [{ ref: 'borscht', translations: { uk: { name: 'Інше' } } }],
      categories: [{ ref: 'soups', translations: { uk: { name: 'Інше' } } }],
      ingredients: [{ ref: 'dill', translations: { uk: { name: 'Інше' } } }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));

    const again = await call(t.app, 'POST', '/v1/sync', { key: v.key, body: synced });
    assert.equal(again.status, 201);
    for (const section of ['categories', 'ingredients', 'products']) {
      assert.deepEqual([again.body[section].updated, again.body[section].skipped], [1, 0], section);
    }
    const menu = await readMenu(v);
    assert.deepEqual(
      [menu.categories[0].translations.uk.name, menu.ingredients[0].translations.uk.name, menu.products[0].translations.uk.name],
      ['Супи', 'Кріп', 'Борщ'],
    );
    const third = await call(t.app, 'POST', '/v1/sync', { key: v.key, body: synced });
    for (const section of ['categories', 'ingredients', 'products']) {
      assert.deepEqual([third.body[section].updated, third.body[section].skipped], [0, 1], section);
    }
  });

  it('reports entries that match nothing in notFound and applies the rest', async () => {
    const v = await seeded();
    const res = await put(v, {
      products: [
        { ref: 'ghost', translations: { uk: { name: 'Привид' } } },
        { ref: 'borscht', translations: { uk: { name: 'Борщ' } } },
      ],
      categories: [{ ref: 'borscht', translations: { uk: { name: 'X' } } }],
      ingredients: [{ ref: '01900000-0000-7000-8000-000000000000', translations: { uk: { name: 'X' } } }],
      modifierGroups: [{ id: 'ghost-group', translations: { uk: { name: 'X' } } }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.applied, 1);
    assert.equal(res.body.notFound.length, 4);
    assert.ok(res.body.notFound.includes('product:ghost'), JSON.stringify(res.body.notFound));
    assert.ok(res.body.notFound.includes('category:borscht'));
    assert.ok(res.body.notFound.includes('ingredient:01900000-0000-7000-8000-000000000000'));
    assert.ok(res.body.notFound.some((r: string) => r.endsWith(':ghost-group')));
    assert.deepEqual((await readMenu(v)).products[0].translations, { uk: { name: 'Борщ' } });
  });

  it('is all or nothing: one bad entry anywhere is a 400 with its code and nothing is written', async () => {
    const v = await seeded();
    const groupId = (await readMenu(v)).products[0].modifierGroups[0].id;
    const good = {
      products: [{ ref: 'borscht', translations: { uk: { name: 'Борщ' } } }],
      categories: [{ ref: 'soups', translations: { uk: { name: 'Супи' } } }],
    };
    const cases: [string, object][] = [
      ['INVALID_LOCALE', { ...good, ingredients: [{ ref: 'dill', translations: { xx: { name: 'X' } } }] }],
      ['INVALID_LOCALE', { ...good, modifierGroups: [{ id: groupId, translations: { 'en-US': { name: 'Size' } } }] }],
      ['LOCALE_NOT_ENABLED', { ...good, ingredients: [{ ref: 'dill', translations: { fr: { name: 'Aneth' } } }] }],
      ['LOCALE_NOT_ENABLED', { ...good, products: [...good.products, { ref: 'ghost', translations: { es: { name: 'X' } } }] }],
      ['EMPTY_TRANSLATION', { ...good, modifierGroups: [{ id: groupId, translations: { de: {} } }] }],
      ['EMPTY_TRANSLATION', { ...good, categories: [{ ref: 'soups', translations: { de: { name: '   ' } } }] }],
    ];
    const before = await readMenu(v);
    for (const [code, body] of cases) {
      const res = await put(v, body);
      assert.equal(res.status, 400, `${code}: ${JSON.stringify(body)}`);
      assert.equal(res.body.code, code, JSON.stringify(res.body));
    }
    const after = await readMenu(v);
    assert.deepEqual(after, before);
    assert.deepEqual(await auditEntries(v), []);
  });

  it('rejects fields a type does not translate, and unknown properties, with 400', async () => {
    const v = await seeded();
    const bodies = [
      { categories: [{ ref: 'soups', translations: { uk: { description: 'X' } } }] },
      { products: [{ ref: 'borscht', translations: { uk: { title: 'X' } } }] },
      { products: [{ ref: 'borscht', translations: { uk: { name: 'X' } }, extra: 1 }] },
      { products: [{ translations: { uk: { name: 'X' } } }] },
      { dishes: [] },
    ];
    for (const body of bodies) {
      const res = await put(v, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.message, 'Validation failed');
    }
  });

  it('rejects more than 500 entries in a section with 400', async () => {
    const v = await seeded();
    const entries = Array.from({ length: 501 }, (_, i) => ({ ref: i === 0 ? 'borscht' : `p${i}`, translations: { uk: { name: 'X' } } }));
    const res = await put(v, { products: entries });
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Validation failed');
    assert.deepEqual((await readMenu(v)).products[0].translations, {});

    const atCap = await put(v, { ingredients: entries.slice(0, 500).map((e, i) => ({ ...e, ref: i === 0 ? 'dill' : e.ref })) });
    assert.equal(atCap.status, 200);
    assert.equal(atCap.body.notFound.length, 499);
  });

  it('writes one audit entry per entity type touched', async () => {
    const v = await seeded();
    const groupId = (await readMenu(v)).products[0].modifierGroups[0].id;
    const res = await put(
      v,
      {
        products: [
          { ref: 'borscht', translations: { uk: { name: 'Борщ' } } },
          { ref: 'ghost', translations: { uk: { name: 'X' } } },
        ],
        categories: [{ ref: 'soups', translations: { uk: { name: 'Супи' } } }],
        ingredients: [{ ref: 'dill', translations: { de: { name: 'Dill' } } }],
        modifierGroups: [{ id: groupId, translations: { uk: { name: 'Розмір' } } }],
      },
      { 'x-request-id': 'translations-audit-1' },
    );
    assert.equal(res.status, 200);
    const entries = await auditEntries(v);
    assert.deepEqual(entries.map((e: any) => e.action).sort(), [
      'category.translations',
      'ingredient.translations',
      'modifier_group.translations',
      'product.translations',
    ]);
    for (const e of entries) {
      assert.equal(e.requestId, 'translations-audit-1');
      assert.equal(e.source, 'api_key');
      const text = JSON.stringify(e.changes);
      assert.ok(!text.includes('Борщ') && !text.includes('Супи') && !text.includes('Розмір'), 'translated text is never stored');
    }

    const onlyProducts = await put(v, {
      products: [{ ref: 'borscht', translations: { de: { name: 'Borschtsch' } } }],
      categories: [{ ref: 'ghost', translations: { uk: { name: 'X' } } }],
    });
    assert.equal(onlyProducts.status, 200);
    const all = await auditEntries(v);
    assert.equal(all.length, 5, 'a section that matched nothing writes no entry');
    assert.equal(all[0].action, 'product.translations');
  });
});
