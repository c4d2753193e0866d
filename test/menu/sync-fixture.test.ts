import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { menuFixture, mutate, type ModifierGroupItem, type ProductItem, type SyncBody } from '../../bench/workload.js';
import { BODY_LIMIT_BYTES } from '../../src/limits.js';
import { ALLERGEN_CODES, DIETARY_LABEL_CODES } from '../../src/shared/catalog.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// A realistic full menu through POST /v1/sync, POST /v1/publish and GET /v1/menu?version=published:
// 500 products, 200 categories, 200 ingredients, 3 groups x 8 options, 6 ingredient refs, 2 locales.

const LOCALES = ['uk', 'es'];
const fixture = menuFixture({ seed: 20261122, locales: LOCALES });

let t: TestApp;
let v: VenueFixture;
before(async () => {
  t = await startApp();
  v = await createVenue(t.app, { plan: 'standard' });
  const settings = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', ...LOCALES] } });
  assert.equal(settings.status, 200);
});
after(() => t.close());

async function syncOk(body: SyncBody): Promise<any> {
  const res = await call(t.app, 'POST', '/v1/sync', { key: v.key, body });
  assert.equal(res.status, 201, JSON.stringify(res.body).slice(0, 2000));
  return res.body;
}

const counts = (s: { created: number; updated: number; skipped: number; errors: string[]; warnings: string[] }) => [
  s.created,
  s.updated,
  s.skipped,
  s.errors.length,
  s.warnings.length,
];

/** What a sent group reads back as, defaults filled in. */
function expectedGroup(g: ModifierGroupItem, index: number) {
  const type = g.type === 'multiple_choice' ? 'add_ingredients' : g.type;
  return {
    name: g.name,
    type,
    isRequired: type === 'single_choice' ? (g.isRequired ?? true) : false,
    sortOrder: g.sortOrder ?? index,
    translations: g.translations ?? {},
    options: g.options.map((o, i) => ({
      ingredientExternalId: o.ingredientExternalId,
      action: o.action ?? (type === 'remove_ingredients' ? 'remove' : 'add'),
      priceAdjustment: o.priceAdjustment ?? 0,
      sortOrder: o.sortOrder ?? i,
    })),
  };
}

function expectedProduct(p: ProductItem) {
  return {
    externalId: p.externalId,
    name: p.name,
    description: p.description ?? null,
    priceMinor: p.priceMinor,
    salePriceMinor: p.salePriceMinor ?? null,
    isSaleActive: p.isSaleActive ?? false,
    amount: p.amount ?? null,
    unit: p.unit ?? null,
    badgeLabel: p.badgeLabel ?? null,
    badgeColor: p.badgeColor ?? null,
    categoryExternalId: p.categoryExternalId ?? null,
    ingredientExternalIds: p.ingredientExternalIds ?? [],
    modifierGroups: (p.modifierGroups ?? []).map(expectedGroup),
    sortOrder: p.sortOrder ?? 0,
    menuVisible: p.menuVisible ?? true,
    translations: p.translations ?? {},
    // Food information: codes in the reference's order, unset as [] and null.
    allergens: inReferenceOrder(p.allergens ?? [], ALLERGEN_CODES),
    mayContain: inReferenceOrder(p.mayContain ?? [], ALLERGEN_CODES),
    dietaryLabels: inReferenceOrder(p.dietaryLabels ?? [], DIETARY_LABEL_CODES),
    spiceLevel: p.spiceLevel ?? null,
    calories: p.calories ?? null,
    nutrition: p.nutrition ?? null,
  };
}

function inReferenceOrder(codes: readonly string[], reference: readonly string[]): string[] {
  return reference.filter((code) => codes.includes(code));
}

function readProduct(r: any) {
  return {
    externalId: r.externalId,
    name: r.name,
    description: r.description,
    priceMinor: r.priceMinor,
    salePriceMinor: r.salePriceMinor,
    isSaleActive: r.isSaleActive,
    amount: r.amount,
    unit: r.unit,
    badgeLabel: r.badgeLabel,
    badgeColor: r.badgeColor,
    categoryExternalId: r.categoryExternalId,
    ingredientExternalIds: r.ingredients.map((i: any) => i.externalId),
    modifierGroups: r.modifierGroups.map((g: any) => ({
      name: g.name,
      type: g.type,
      isRequired: g.isRequired,
      sortOrder: g.sortOrder,
      translations: g.translations,
      options: g.options.map((o: any) => ({
        ingredientExternalId: o.ingredientExternalId,
        action: o.action,
        priceAdjustment: o.priceAdjustment,
        sortOrder: o.sortOrder,
      })),
    })),
    sortOrder: r.sortOrder,
    menuVisible: r.menuVisible,
    translations: r.translations,
    allergens: r.allergens,
    mayContain: r.mayContain,
    dietaryLabels: r.dietaryLabels,
    spiceLevel: r.spiceLevel,
    calories: r.calories,
    nutrition: r.nutrition,
  };
}

describe('a realistic full menu through sync, publish and the published read', () => {
  it('is deterministic and fits the request body cap', () => {
    assert.deepEqual(menuFixture({ seed: 20261122, locales: LOCALES }), fixture);
    assert.notDeepEqual(menuFixture({ seed: 1, locales: LOCALES }), fixture);
    assert.deepEqual([fixture.products?.length, fixture.categories?.length, fixture.ingredients?.length], [500, 200, 200]);
    assert.ok(Buffer.byteLength(JSON.stringify(fixture)) < BODY_LIMIT_BYTES);
  });

  it('creates every item of the fixture, with every locale entry applied', async () => {
    const res = await syncOk(fixture);
    assert.deepEqual(counts(res.categories), [200, 0, 0, 0, 0]);
    assert.deepEqual(counts(res.ingredients), [200, 0, 0, 0, 0]);
    assert.deepEqual(counts(res.products), [500, 0, 0, 0, 0]);
    assert.deepEqual(res.warnings, []);
    // 2 locales on each category, ingredient and product, and on each of a product's 3 groups.
    assert.equal(res.translations.applied, 2 * (200 + 200 + 500 * (1 + 3)));
  });

  it('skips everything when the fixture is synced again', async () => {
    const res = await syncOk(fixture);
    assert.deepEqual(counts(res.categories), [0, 0, 200, 0, 0]);
    assert.deepEqual(counts(res.ingredients), [0, 0, 200, 0, 0]);
    assert.deepEqual(counts(res.products), [0, 0, 500, 0, 0]);
    assert.equal(res.translations.applied, 0);
  });

  it('updates exactly the mutated tenth of the products and skips the rest', async () => {
    const { body, changed } = mutate(fixture, 0.1, 7);
    assert.equal(changed, 50);
    const res = await syncOk(body);
    assert.deepEqual(counts(res.categories), [0, 0, 200, 0, 0]);
    assert.deepEqual(counts(res.products), [0, 50, 450, 0, 0]);
  });

  it('reads back from the published menu every product as it was sent', async () => {
    const { body } = mutate(fixture, 0.1, 7);
    const published = await call(t.app, 'POST', '/v1/publish', { key: v.key, body: {} });
    assert.equal(published.status, 201);
    assert.deepEqual(published.body.counts, { categories: 200, ingredients: 200, products: 500 });

    const menu = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.equal(menu.status, 200);
    assert.equal(menu.body.version, 'published');
    assert.equal(menu.body.publicationId, published.body.publicationId);

    const products = new Map<string, any>(menu.body.products.map((p: any) => [p.externalId, p]));
    assert.equal(products.size, 500);
    for (const sent of body.products ?? []) {
      const read = products.get(sent.externalId);
      assert.ok(read, `${sent.externalId} missing from the published menu`);
      assert.deepEqual(readProduct(read), expectedProduct(sent), sent.externalId);
    }

    const categories = new Map<string, any>(menu.body.categories.map((c: any) => [c.externalId, c]));
    for (const sent of body.categories ?? []) {
      const read = categories.get(sent.externalId);
      assert.deepEqual(
        {
          name: read.name,
          sortOrder: read.sortOrder,
          schedule: read.schedule,
          cardStyle: read.cardStyle,
          isActive: read.isActive,
          translations: read.translations,
        },
        {
          name: sent.name,
          sortOrder: sent.sortOrder ?? 0,
          schedule: sent.schedule ?? [],
          cardStyle: sent.cardStyle ?? null,
          isActive: sent.isActive ?? true,
          translations: sent.translations ?? {},
        },
        sent.externalId,
      );
    }

    const ingredients = new Map<string, any>(menu.body.ingredients.map((i: any) => [i.externalId, i]));
    for (const sent of body.ingredients ?? []) {
      const read = ingredients.get(sent.externalId);
      assert.deepEqual(
        { name: read.name, sortOrder: read.sortOrder, translations: read.translations, allergens: read.allergens },
        {
          name: sent.name,
          sortOrder: sent.sortOrder ?? 0,
          translations: sent.translations ?? {},
          allergens: inReferenceOrder(sent.allergens ?? [], ALLERGEN_CODES),
        },
        sent.externalId,
      );
    }
    // Option names are copied from the ingredient.
    const option = menu.body.products[0].modifierGroups[0].options[0];
    assert.equal(option.ingredientName, ingredients.get(option.ingredientExternalId).name);
  });
});
