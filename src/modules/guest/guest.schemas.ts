import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { Availability, Ordering } from '../availability/index.js';
import { MediaImage } from '../media/index.js';
import { Nutrition, ScheduleEntry } from '../menu/index.js';
import { OrderConfig } from '../settings/index.js';
import { ORDER_STATUSES } from '../../shared/order-status.js';
import { ORDER_TYPES, PAYMENT_METHODS } from '../orders/index.js';

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80 }) });
export const GuestMenuQuery = Type.Object({ locale: Type.Optional(Type.String({ maxLength: 16 })) });

const GuestOption = Type.Object({
  id: Type.String(),
  name: Type.String(),
  action: Type.String(),
  priceAdjustment: Type.Integer(),
  isDefault: Type.Boolean({ description: 'Preselected when the dish is opened' }),
  allergens: Type.Array(Type.String(), { description: "Its ingredient's allergens (codes of GET /v1/reference)" }),
  availability: Availability,
});

const GuestGroup = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  isRequired: Type.Boolean(),
  minSelections: Type.Integer({ description: 'The fewest choices, counted as the sum of the chosen quantities' }),
  maxSelections: Nullable(Type.Integer({ description: 'The most choices (sum of quantities); null: no limit' })),
  maxQuantityPerOption: Nullable(Type.Integer({ description: 'How often one option may be taken; null: up to 99' })),
  options: Type.Array(GuestOption),
});

const GuestProduct = Type.Object({
  id: Type.String(),
  categoryId: Nullable(Type.String()),
  name: Type.String(),
  description: Nullable(Type.String()),
  priceMinor: Type.Integer(),
  salePriceMinor: Nullable(Type.Integer()),
  isSaleActive: Type.Boolean(),
  effectivePriceMinor: Type.Integer(),
  amount: Nullable(Type.Integer()),
  unit: Nullable(Type.String()),
  badgeLabel: Nullable(Type.String()),
  badgeColor: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  image: Nullable(MediaImage),
  promoPriceMinor: Nullable(
    Type.Integer({ description: 'The price while a live promotion holds the product (the lowest, when several do); null otherwise' }),
  ),
  promotionId: Nullable(Type.String()),
  sortOrder: Type.Integer(),
  ingredients: Type.Array(Type.Object({ name: Type.String() })),
  modifierGroups: Type.Array(GuestGroup),
  effectiveAllergens: Type.Array(Type.String(), { description: 'Declared allergens and those of the composition, in reference order' }),
  mayContain: Type.Array(Type.String()),
  dietaryLabels: Type.Array(Type.String()),
  spiceLevel: Nullable(Type.Integer()),
  calories: Nullable(Type.Integer({ description: 'kcal per portion' })),
  nutrition: Nullable(Nutrition),
  availability: Availability,
});

const GuestBanner = Type.Object({
  id: Type.String(),
  title: Type.String(),
  subtitle: Nullable(Type.String()),
  linkUrl: Nullable(Type.String()),
  productId: Nullable(Type.String({ description: 'A product of this menu the banner leads to' })),
  imageUrl: Nullable(Type.String()),
  image: Nullable(MediaImage),
});

const GuestPromotion = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  productIds: Type.Array(Type.String(), { description: 'Its products on this menu, in its order' }),
});

export const GuestMenu = Type.Object({
  venue: Type.Object({
    slug: Type.String(),
    name: Type.String(),
    currency: Type.String(),
    defaultLanguage: Type.String(),
    languages: Type.Array(Type.String()),
    cardStyle: Type.String(),
    timezone: Type.String({ description: "The venue's IANA time zone: its opening hours and the times of availability are the venue's" }),
    logoUrl: Nullable(Type.String()),
    logo: Nullable(MediaImage),
  }),
  locale: Type.String(),
  publicationId: Type.String(),
  publishedAt: Timestamp,
  generatedAt: Timestamp,
  orderConfig: OrderConfig,
  ordering: Ordering,
  banners: Type.Array(GuestBanner, { description: 'Live banners (active, within their schedule), in sortOrder' }),
  promotions: Type.Array(GuestPromotion, { description: 'Live promotions, in sortOrder' }),
  categories: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      sortOrder: Type.Integer(),
      schedule: Type.Array(ScheduleEntry),
      cardStyle: Nullable(Type.String()),
    }),
  ),
  products: Type.Array(GuestProduct),
});
export type GuestMenuView = Static<typeof GuestMenu>;

export const GuestOrderParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 80 }),
  token: Type.String({ minLength: 1, maxLength: 64, description: "The token of the order's creation response (its Location header)" }),
});

/**
 * What the guest who placed an order sees of it (docs/guest-page.md): its progress, items and
 * totals. No contact details: the token may travel in a shared link or a screenshot.
 */
export const GuestOrder = Type.Object({
  orderNumber: Type.String(),
  status: StringEnum(ORDER_STATUSES),
  type: StringEnum(ORDER_TYPES),
  paymentMethod: StringEnum(PAYMENT_METHODS),
  tableName: Nullable(Type.String()),
  currency: Type.String(),
  items: Type.Array(
    Type.Object({
      productName: Type.String(),
      quantity: Type.Integer(),
      unitPrice: Type.Integer(),
      totalPrice: Type.Integer(),
      modifiers: Type.Array(
        Type.Object({ groupName: Type.String(), ingredientName: Type.String(), priceAdjustment: Type.Integer(), quantity: Type.Integer() }),
      ),
    }),
  ),
  subtotalAmount: Type.Integer(),
  deliveryFee: Type.Integer(),
  discountAmount: Type.Integer(),
  totalAmount: Type.Integer(),
  scheduledFor: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type GuestOrderView = Static<typeof GuestOrder>;
