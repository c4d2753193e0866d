import type { App } from '../../src/http/types.js';
import { call, createVenue, type VenueFixture } from './app.js';
import { expectStatus, ORDER_MENU, setUpOrderMenu, type MenuIds } from './orders.js';

/** ORDER_MENU with Spanish and Arabic names: what a guest switching language sees change. */
export const GUEST_PAGE_MENU = {
  ...ORDER_MENU,
  categories: ORDER_MENU.categories.map((c) =>
    c.externalId === 'mains' ? { ...c, translations: { es: { name: 'Principales' }, ar: { name: 'الأطباق الرئيسية' } } } : c,
  ),
  products: ORDER_MENU.products.map((p) =>
    p.externalId === 'burger'
      ? {
          ...p,
          description: 'Beef, lettuce and tomato',
          translations: { es: { name: 'Hamburguesa', description: 'Ternera, lechuga y tomate' }, ar: { name: 'برغر' } },
        }
      : p,
  ),
};

/** Food information on the ingredients. */
const INGREDIENT_ALLERGENS: Record<string, string[]> = {
  'bun-white': ['gluten'],
  'bun-brioche': ['gluten', 'eggs', 'milk'],
  cheese: ['milk'],
  pickles: ['mustard'],
};

/** Food information on the products: declared, traces, labels, spice, calories and nutrition. */
const PRODUCT_FOOD: Record<string, Record<string, unknown>> = {
  // Gluten declared, mustard from its pickles; sesame traces; spicy; every nutrient but fibre.
  burger: {
    allergens: ['gluten'],
    mayContain: ['sesame'],
    spiceLevel: 2,
    calories: 1250,
    nutrition: { fat: 32.5, saturatedFat: 12, carbohydrate: 48, sugars: 6.5, protein: 35, salt: 2.1 },
  },
  // Vegan and gluten-free, fried beside breaded things: gluten traces only.
  fries: { dietaryLabels: ['vegetarian', 'vegan', 'gluten_free'], mayContain: ['gluten'], spiceLevel: 0, calories: 380 },
  // Labelled vegan only (a vegan dish is vegetarian too); sulphites, alone in its category.
  soda: { dietaryLabels: ['vegan'], allergens: ['sulphites'] },
};

/** GUEST_PAGE_MENU with food information, and a vegetarian salad whose cheese brings milk. */
export const FOOD_MENU = {
  ...GUEST_PAGE_MENU,
  ingredients: GUEST_PAGE_MENU.ingredients.map((i) =>
    INGREDIENT_ALLERGENS[i.externalId] ? { ...i, allergens: INGREDIENT_ALLERGENS[i.externalId] } : i,
  ),
  products: [
    ...GUEST_PAGE_MENU.products.map((p) => ({ ...p, ...PRODUCT_FOOD[p.externalId] })),
    {
      externalId: 'salad',
      name: 'Salad',
      priceMinor: 800,
      categoryExternalId: 'mains',
      sortOrder: 4,
      ingredientExternalIds: ['cheese'],
      dietaryLabels: ['vegetarian'],
    },
  ],
};

export interface GuestPageFixture {
  v: VenueFixture;
  ids: MenuIds;
  table: { id: string; name: string; token: string; qrUrl: string };
}

/** A venue in English, Spanish and Arabic with ORDER_MENU published and a table "5". */
export async function setUpGuestPage(app: App, menu: unknown = GUEST_PAGE_MENU): Promise<GuestPageFixture> {
  const v = await createVenue(app);
  expectStatus(await call(app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'es', 'ar'] } }), 200);
  const ids = await setUpOrderMenu(app, v, { menu });
  const created = await call(app, 'POST', '/v1/tables', { key: v.key, body: { name: '5' } });
  expectStatus(created, 201);
  const qrUrl: string = created.body.qrUrl;
  return { v, ids, table: { id: created.body.id, name: '5', token: qrUrl.split('/t/')[1], qrUrl } };
}

/** Every day 12:00-22:00, in the venue's timezone. */
export const NOON_TO_TEN = {
  weekly: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => ({
    day,
    isOpen: true,
    openTime: '12:00',
    closeTime: '22:00',
  })),
  exceptions: [],
};

/** PATCH /v1/settings that must succeed (timezone, openingHours, orderConfig...). */
export async function patchSettings(app: App, v: VenueFixture, body: Record<string, unknown>): Promise<void> {
  expectStatus(await call(app, 'PATCH', '/v1/settings', { key: v.key, body }), 200);
}

/** PUT /v1/availability that must succeed: sold-out marks by externalId. */
export async function markAvailability(app: App, v: VenueFixture, body: { products?: unknown[]; ingredients?: unknown[] }): Promise<void> {
  expectStatus(await call(app, 'PUT', '/v1/availability', { key: v.key, body }), 200);
}
