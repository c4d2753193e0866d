// Guest menu JSON for the unit tests of the guest page's script: a product, a group and an option
// in the server's shape (GuestMenuView), every field set, the ones a test cares about given.
import type { OrderingInfo } from '../../src/modules/guest-page/shared/availability.js';
import { DEFAULT_ORDER_CONFIG } from '../../src/modules/settings/settings.schemas.js';
import type { GuestMenu, MenuGroup, MenuOption, MenuProduct } from '../../web/guest/menu-types.js';

const AVAILABLE = { available: true, until: null, reason: null } as const;

export function guestOption(fields: Partial<MenuOption> & { id: string }): MenuOption {
  return { name: fields.id, action: 'add', priceAdjustment: 0, isDefault: false, allergens: [], availability: AVAILABLE, ...fields };
}

/** A group; `options` may be given as ids. */
export function guestGroup(fields: Partial<Omit<MenuGroup, 'options'>> & { options?: (MenuOption | string)[] } = {}): MenuGroup {
  const { options = [], ...rest } = fields;
  return {
    id: 'g',
    name: 'Extras',
    type: 'add_ingredients',
    isRequired: false,
    minSelections: 0,
    maxSelections: null,
    maxQuantityPerOption: null,
    ...rest,
    options: options.map((o) => (typeof o === 'string' ? guestOption({ id: o }) : o)),
  };
}

export function guestProduct(fields: Partial<MenuProduct> & { id: string }): MenuProduct {
  return {
    categoryId: null,
    name: fields.id,
    description: null,
    priceMinor: fields.effectivePriceMinor ?? 1000,
    salePriceMinor: null,
    isSaleActive: false,
    effectivePriceMinor: 1000,
    amount: null,
    unit: null,
    badgeLabel: null,
    badgeColor: null,
    imageUrl: null,
    image: null,
    promoPriceMinor: null,
    promotionId: null,
    sortOrder: 1,
    ingredients: [],
    modifierGroups: [],
    effectiveAllergens: [],
    mayContain: [],
    dietaryLabels: [],
    spiceLevel: null,
    calories: null,
    nutrition: null,
    availability: AVAILABLE,
    ...fields,
  };
}

export const OPEN: OrderingInfo = {
  open: true,
  reason: null,
  opensAt: null,
  closesAt: null,
  prepTimeMinutes: 15,
  scheduledOrders: { enabled: false, maxDaysAhead: 0 },
};

export function guestMenu(products: MenuProduct[], ordering: OrderingInfo = OPEN): GuestMenu {
  return {
    venue: {
      slug: 'test',
      name: 'Test',
      currency: 'EUR',
      defaultLanguage: 'en',
      languages: ['en'],
      cardStyle: 'list',
      timezone: 'Europe/Madrid',
      logoUrl: null,
      logo: null,
    },
    locale: 'en',
    publicationId: 'pub',
    publishedAt: '2030-01-01T00:00:00.000Z',
    generatedAt: '2030-01-01T00:00:00.000Z',
    orderConfig: DEFAULT_ORDER_CONFIG,
    ordering,
    banners: [],
    promotions: [],
    categories: [],
    products,
  };
}
