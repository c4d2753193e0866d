import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BannerCreateBody, BannerPatchBody } from '../../src/modules/merch/banners.schemas.js';
import { CategoryInput, IngredientInput, ModifierGroupInput, ProductInput, ProductPatchBody } from '../../src/modules/menu/menu.schemas.js';
import { call, createVenue, startApp, type Call, type TestApp, type VenueFixture } from '../helpers/app.js';

// Inline translations in POST /v1/sync, and the length of a translated text on every path that
// writes one.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

/** A venue with English (its default) and Ukrainian enabled; Spanish is supported but not enabled. */
async function bilingualVenue(): Promise<VenueFixture> {
  const v = await createVenue(t.app);
  const res = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk'] } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.enabledLanguages, ['en', 'uk']);
  return v;
}

function sync(v: VenueFixture, body: unknown): Promise<Call> {
  return call(t.app, 'POST', '/v1/sync', { key: v.key, body });
}

async function syncOk(v: VenueFixture, body: unknown): Promise<any> {
  const res = await sync(v, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function product(v: VenueFixture, ref: string): Promise<any> {
  const res = await call(t.app, 'GET', `/v1/products/${ref}`, { key: v.key });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function draft(v: VenueFixture): Promise<any> {
  return (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
}

const p1 = { externalId: 'p1', name: 'Margherita', priceMinor: 21500 };

describe('POST /v1/sync: inline translations are stored', () => {
  it('stores translations of categories, ingredients, products and modifier groups and counts the locale entries written', async () => {
    const v = await bilingualVenue();
    const res = await syncOk(v, {
      categories: [{ externalId: 'c1', name: 'Pizza', translations: { uk: { name: 'Піца' } } }],
      ingredients: [{ externalId: 'i1', name: 'Basil', translations: { uk: { name: 'Базилік' }, en: { name: 'Fresh basil' } } }],
      products: [
        {
          ...p1,
          badgeLabel: 'NEW',
          translations: { uk: { name: 'Маргарита', description: 'Томати та моцарела', badgeLabel: 'НОВЕ' } },
          modifierGroups: [
            {
              name: 'Extras',
              type: 'add_ingredients',
              translations: { uk: { name: 'Додатки' } },
              options: [{ ingredientExternalId: 'i1' }],
            },
          ],
        },
      ],
    });
    // 1 category locale + 2 ingredient locales + 1 product locale + 1 modifier group locale.
    assert.equal(res.translations.applied, 5);
    assert.deepEqual([res.categories.errors, res.ingredients.errors, res.products.errors], [[], [], []]);

    const menu = await draft(v);
    assert.deepEqual(menu.categories[0].translations, { uk: { name: 'Піца' } });
    assert.deepEqual(menu.ingredients[0].translations, { uk: { name: 'Базилік' }, en: { name: 'Fresh basil' } });
    const p = await product(v, 'p1');
    assert.deepEqual(p.translations, { uk: { name: 'Маргарита', description: 'Томати та моцарела', badgeLabel: 'НОВЕ' } });
    assert.deepEqual(p.modifierGroups[0].translations, { uk: { name: 'Додатки' } });
  });

  it('counts 0 applied translations for a repeated request whose items are all skipped', async () => {
    const v = await bilingualVenue();
    const body = { products: [{ ...p1, translations: { uk: { name: 'Маргарита' } } }] };
    assert.equal((await syncOk(v, body)).translations.applied, 1);
    const again = await syncOk(v, body);
    assert.equal(again.products.skipped, 1);
    assert.equal(again.translations.applied, 0);
  });

  it('counts a change in a translation only as an update', async () => {
    const v = await bilingualVenue();
    await syncOk(v, { products: [{ ...p1, translations: { uk: { name: 'Маргарита' } } }] });
    const res = await syncOk(v, { products: [{ ...p1, translations: { uk: { name: 'Піца Маргарита' } } }] });
    assert.deepEqual([res.products.updated, res.products.skipped], [1, 0]);
    assert.equal(res.translations.applied, 1);
    assert.deepEqual((await product(v, 'p1')).translations, { uk: { name: 'Піца Маргарита' } });
  });

  it('accepts a locale once it is enabled in settings', async () => {
    const v = await bilingualVenue();
    const body = { products: [{ ...p1, translations: { es: { name: 'Margarita' } } }] };
    assert.match((await syncOk(v, body)).products.errors[0], /LOCALE_NOT_ENABLED/);
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk', 'es'] } })).status, 200);
    const res = await syncOk(v, body);
    assert.deepEqual(res.products.errors, []);
    assert.equal(res.products.created, 1);
    assert.deepEqual((await product(v, 'p1')).translations, { es: { name: 'Margarita' } });
  });

  it("accepts the venue's default language without enabling anything", async () => {
    const v = await createVenue(t.app);
    const res = await syncOk(v, { products: [{ ...p1, translations: { en: { name: 'Margherita pizza' } } }] });
    assert.deepEqual(res.products.errors, []);
    assert.equal(res.translations.applied, 1);
  });
});

describe('POST /v1/sync: translation problems are per-item errors', () => {
  it('reports an unsupported locale as INVALID_LOCALE naming the product, saves the other products and not that one', async () => {
    const v = await bilingualVenue();
    const res = await syncOk(v, {
      products: [
        { ...p1, translations: { xx: { name: 'Nope' } } },
        { externalId: 'p2', name: 'Marinara', priceMinor: 100, translations: { uk: { name: 'Маринара' } } },
      ],
    });
    assert.equal(res.success, true);
    assert.equal(res.products.created, 1);
    assert.equal(res.products.errors.length, 1);
    assert.match(res.products.errors[0], /^Product p1: .*INVALID_LOCALE/);
    assert.equal(res.translations.applied, 1);
    assert.equal((await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).status, 404);
    assert.deepEqual((await product(v, 'p2')).translations, { uk: { name: 'Маринара' } });
  });

  it('reports a supported locale that is not enabled as LOCALE_NOT_ENABLED naming the category', async () => {
    const v = await bilingualVenue();
    const res = await syncOk(v, {
      categories: [
        { externalId: 'c1', name: 'Pizza', translations: { es: { name: 'Pizza' } } },
        { externalId: 'c2', name: 'Drinks', translations: { uk: { name: 'Напої' } } },
      ],
    });
    assert.equal(res.categories.created, 1);
    assert.equal(res.categories.errors.length, 1);
    assert.match(res.categories.errors[0], /^Category c1: .*LOCALE_NOT_ENABLED/);
    assert.deepEqual(
      (await draft(v)).categories.map((c: any) => c.externalId),
      ['c2'],
    );
  });

  it('reports an empty locale object as EMPTY_TRANSLATION naming the ingredient', async () => {
    const v = await bilingualVenue();
    const res = await syncOk(v, {
      ingredients: [
        { externalId: 'i1', name: 'Basil', translations: { uk: {} } },
        { externalId: 'i2', name: 'Olives' },
      ],
    });
    assert.equal(res.ingredients.created, 1);
    assert.match(res.ingredients.errors[0], /^Ingredient i1: .*EMPTY_TRANSLATION/);
  });

  it('reports a whitespace-only value as EMPTY_TRANSLATION naming the product', async () => {
    const v = await bilingualVenue();
    const res = await syncOk(v, { products: [{ ...p1, translations: { uk: { name: 'Маргарита', description: '   ' } } }] });
    assert.equal(res.products.created, 0);
    assert.match(res.products.errors[0], /^Product p1: .*EMPTY_TRANSLATION/);
  });

  it('reports a bad modifier group translation against its product and saves nothing of that product', async () => {
    const v = await bilingualVenue();
    const res = await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Basil' }],
      products: [
        {
          ...p1,
          modifierGroups: [
            {
              name: 'Extras',
              type: 'add_ingredients',
              translations: { es: { name: 'Extras' } },
              options: [{ ingredientExternalId: 'i1' }],
            },
          ],
        },
      ],
    });
    assert.equal(res.products.created, 0);
    assert.match(res.products.errors[0], /^Product p1: .*LOCALE_NOT_ENABLED/);
    assert.equal((await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).status, 404);
  });

  it('leaves a stored product unchanged when its update carries a bad translation', async () => {
    const v = await bilingualVenue();
    await syncOk(v, { products: [{ ...p1, translations: { uk: { name: 'Маргарита' } } }] });
    const before = await product(v, 'p1');
    const res = await syncOk(v, { products: [{ ...p1, priceMinor: 1, translations: { uk: { name: ' ' } } }] });
    assert.deepEqual([res.products.updated, res.products.errors.length], [0, 1]);
    assert.equal(res.translations.applied, 0);
    assert.deepEqual(await product(v, 'p1'), before);
  });

  it('treats a category refused for its translations as unknown to the products of the same request', async () => {
    const v = await bilingualVenue();
    const res = await syncOk(v, {
      categories: [{ externalId: 'c1', name: 'Pizza', translations: { fr: { name: 'Pizza' } } }],
      products: [{ ...p1, categoryExternalId: 'c1' }],
    });
    assert.match(res.categories.errors[0], /^Category c1: .*LOCALE_NOT_ENABLED/);
    assert.equal(res.products.created, 1);
    assert.match(res.products.warnings[0], /^Product p1: .*c1/);
    assert.equal((await product(v, 'p1')).categoryExternalId, null);
  });
});

describe('POST /v1/sync: translation merge semantics', () => {
  async function seeded() {
    const v = await bilingualVenue();
    await syncOk(v, {
      products: [
        { ...p1, description: 'Tomato', translations: { uk: { name: 'Маргарита', description: 'Томат' }, en: { name: 'Margherita DOP' } } },
      ],
    });
    return v;
  }

  it('keeps stored translations when translations are omitted', async () => {
    const v = await seeded();
    await syncOk(v, { products: [{ ...p1, priceMinor: 1 }] });
    assert.deepEqual((await product(v, 'p1')).translations, {
      uk: { name: 'Маргарита', description: 'Томат' },
      en: { name: 'Margherita DOP' },
    });
  });

  it('keeps the locales and fields a translation update omits', async () => {
    const v = await seeded();
    const res = await syncOk(v, { products: [{ ...p1, translations: { uk: { name: 'Піца Маргарита' } } }] });
    assert.equal(res.translations.applied, 1);
    assert.deepEqual((await product(v, 'p1')).translations, {
      uk: { name: 'Піца Маргарита', description: 'Томат' },
      en: { name: 'Margherita DOP' },
    });
  });

  it('clears one field sent as an empty string and keeps the rest', async () => {
    const v = await seeded();
    await syncOk(v, { products: [{ ...p1, translations: { uk: { description: '' } } }] });
    assert.deepEqual((await product(v, 'p1')).translations, { uk: { name: 'Маргарита' }, en: { name: 'Margherita DOP' } });
  });

  it('drops a locale whose last field is cleared', async () => {
    const v = await seeded();
    await syncOk(v, { products: [{ ...p1, translations: { en: { name: '' } } }] });
    assert.deepEqual((await product(v, 'p1')).translations, { uk: { name: 'Маргарита', description: 'Томат' } });
  });

  it('merges category and ingredient translations the same way', async () => {
    const v = await bilingualVenue();
    await syncOk(v, {
      categories: [{ externalId: 'c1', name: 'Pizza', translations: { uk: { name: 'Піца' }, en: { name: 'Pizzas' } } }],
      ingredients: [{ externalId: 'i1', name: 'Basil', translations: { uk: { name: 'Базилік' } } }],
    });
    await syncOk(v, {
      categories: [{ externalId: 'c1', name: 'Pizza', translations: { en: { name: '' } } }],
      ingredients: [{ externalId: 'i1', name: 'Basil leaves' }],
    });
    const menu = await draft(v);
    assert.deepEqual(menu.categories[0].translations, { uk: { name: 'Піца' } });
    assert.deepEqual(menu.ingredients[0].translations, { uk: { name: 'Базилік' } });
  });

  it('keeps group ids and group translations written by PUT /v1/translations when the same groups are synced again', async () => {
    const v = await bilingualVenue();
    const body = {
      ingredients: [{ externalId: 'i1', name: 'Basil' }],
      products: [{ ...p1, modifierGroups: [{ name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1' }] }] }],
    };
    await syncOk(v, body);
    const before = (await product(v, 'p1')).modifierGroups[0];
    const put = await call(t.app, 'PUT', '/v1/translations', {
      key: v.key,
      body: { modifierGroups: [{ id: before.id, translations: { uk: { name: 'Додатки' } } }] },
    });
    assert.equal(put.status, 200);
    const again = await syncOk(v, body);
    assert.equal(again.products.skipped, 1);
    const after = (await product(v, 'p1')).modifierGroups[0];
    assert.equal(after.id, before.id);
    assert.equal(after.options[0].id, before.options[0].id);
    assert.deepEqual(after.translations, { uk: { name: 'Додатки' } });
  });

  it('keeps the translations of unchanged groups and replaces them with changed groups', async () => {
    const v = await bilingualVenue();
    const group = (translations?: Record<string, { name: string }>) => ({
      name: 'Extras',
      type: 'add_ingredients',
      options: [{ ingredientExternalId: 'i1' }],
      ...(translations ? { translations } : {}),
    });
    await syncOk(v, {
      ingredients: [{ externalId: 'i1', name: 'Basil' }],
      products: [{ ...p1, modifierGroups: [group({ uk: { name: 'Додатки' } })] }],
    });
    assert.deepEqual((await product(v, 'p1')).modifierGroups[0].translations, { uk: { name: 'Додатки' } });

    // Omitting modifierGroups keeps the groups and their translations.
    await syncOk(v, { products: [{ ...p1, priceMinor: 2 }] });
    assert.deepEqual((await product(v, 'p1')).modifierGroups[0].translations, { uk: { name: 'Додатки' } });

    // The same group sent again without translations keeps them (omitted keeps).
    const same = await syncOk(v, { products: [{ ...p1, priceMinor: 2, modifierGroups: [group()] }] });
    assert.equal(same.products.skipped, 1);
    assert.deepEqual((await product(v, 'p1')).modifierGroups[0].translations, { uk: { name: 'Додатки' } });

    // Changed groups are replaced wholesale: a new group sent without translations has none.
    const res = await syncOk(v, { products: [{ ...p1, priceMinor: 2, modifierGroups: [{ ...group(), name: 'Toppings' }] }] });
    assert.equal(res.products.updated, 1);
    assert.deepEqual((await product(v, 'p1')).modifierGroups[0].translations, {});
  });
});

describe('translated texts are no longer than the fields they translate', () => {
  const maxLength = (schema: any): number | undefined =>
    schema.maxLength ?? schema.anyOf?.map(maxLength).find((n: unknown) => n !== undefined);

  it('gives every translatable field of every entity its own maxLength', () => {
    const entities: [string, any][] = [
      ['product', ProductInput],
      ['product PATCH', ProductPatchBody],
      ['category', CategoryInput],
      ['ingredient', IngredientInput],
      ['modifier group', ModifierGroupInput],
      ['banner', BannerCreateBody],
      ['banner PATCH', BannerPatchBody],
    ];
    for (const [entity, schema] of entities) {
      const [perLocale] = Object.values(schema.properties.translations.patternProperties) as any[];
      const fields = Object.entries(perLocale.properties) as [string, any][];
      assert.ok(fields.length > 0, entity);
      for (const [field, translated] of fields) {
        const own = maxLength(schema.properties[field]);
        assert.equal(typeof own, 'number', `${entity}.${field} has a maxLength`);
        assert.equal(translated.maxLength, own, `${entity}: translated ${field}`);
      }
    }
  });

  // 16 characters, not bytes: Cyrillic takes two bytes a letter in UTF-8.
  const LABEL_16 = 'Новинка сезону!!';
  const LABEL_17 = `${LABEL_16}!`;

  /** Each path that writes a product's translations, sending `badgeLabel` in Ukrainian. */
  const paths: { name: string; status: number; errorPath: string; send: (v: VenueFixture, label: string) => Promise<Call> }[] = [
    {
      name: 'POST /v1/sync',
      status: 201,
      errorPath: 'products[0].translations.uk.badgeLabel',
      send: (v, label) => sync(v, { products: [{ ...p1, badgeLabel: 'New', translations: { uk: { badgeLabel: label } } }] }),
    },
    {
      name: 'PATCH /v1/products/p1',
      status: 200,
      errorPath: 'translations.uk.badgeLabel',
      send: (v, label) => call(t.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { translations: { uk: { badgeLabel: label } } } }),
    },
    {
      name: 'PUT /v1/translations',
      status: 200,
      errorPath: 'products[0].translations.uk.badgeLabel',
      send: (v, label) =>
        call(t.app, 'PUT', '/v1/translations', {
          key: v.key,
          body: { products: [{ ref: 'p1', translations: { uk: { badgeLabel: label } } }] },
        }),
    },
  ];

  for (const path of paths) {
    it(`${path.name}: refuses a 17-character translated badgeLabel with 400 in the error envelope and takes 16`, async () => {
      const v = await bilingualVenue();
      await syncOk(v, { products: [{ ...p1, badgeLabel: 'New' }] });
      const before = await product(v, 'p1');

      const refused = await path.send(v, LABEL_17);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      const { requestId, timestamp, ...rest } = refused.body;
      assert.equal(typeof requestId, 'string');
      assert.ok(!Number.isNaN(Date.parse(timestamp)), timestamp);
      assert.deepEqual(rest, {
        statusCode: 400,
        message: 'Validation failed',
        errors: [`${path.errorPath} must be at most 16 characters`],
        path: path.name.split(' ')[1],
      });
      assert.deepEqual(await product(v, 'p1'), before);

      const taken = await path.send(v, LABEL_16);
      assert.equal(taken.status, path.status, JSON.stringify(taken.body));
      const after = await product(v, 'p1');
      assert.deepEqual(after.translations, { uk: { badgeLabel: LABEL_16 } });
      assert.equal(after.badgeLabel, 'New');
    });
  }
});
