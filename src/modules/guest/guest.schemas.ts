import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { MAX_OPTION_QUANTITY } from '../../shared/modifier-rules.js';
import { MAX_LINE_QUANTITY } from '../../shared/pricing.js';
import { Availability, Ordering } from '../availability/availability.schemas.js';
import { MediaImage } from '../media/media.schemas.js';
import { Nutrition, ScheduleEntry } from '../menu/menu.schemas.js';
import { OrderConfig } from '../settings/settings.schemas.js';
import { ORDER_STATUSES } from '../../shared/order-status.js';
import { ORDER_TYPES, PAYMENT_METHODS } from '../orders/orders.schemas.js';

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
  minSelections: Type.Integer({ description: 'The fewest choices, counted as the sum of the chosen quantities (decisions 15)' }),
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

const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));

export const GuestOrderBody = Type.Object(
  {
    type: StringEnum(ORDER_TYPES),
    paymentMethod: StringEnum(PAYMENT_METHODS),
    items: Type.Array(
      Type.Object(
        {
          productId: Type.String({ minLength: 1, maxLength: 64 }),
          quantity: Type.Integer({ minimum: 1, maximum: MAX_LINE_QUANTITY }),
          modifiers: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  optionId: Type.String({ minLength: 1, maxLength: 64 }),
                  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_OPTION_QUANTITY })),
                },
                { additionalProperties: false },
              ),
              { maxItems: 100 },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    customerName: Text(200),
    customerPhone: Text(50),
    customerEmail: Type.Optional(Type.String({ maxLength: 254, format: 'email' })),
    deliveryAddress: Text(500),
    deliveryNotes: Text(500),
    comment: Text(1000),
    changeFromAmount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
    scheduledFor: Type.Optional(Type.String({ format: 'date-time' })),
    tableId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  {
    additionalProperties: false,
    'x-examples': {
      pickup: {
        summary: 'Two lattes with oat milk to pick up at 18:00, paid in cash',
        description:
          'productId and optionId are the ids of the guest menu (GET /guest/v1/venues/{slug}/menu). scheduledFor needs scheduled orders enabled in the settings ' +
          'and a time within the opening hours, at least prepTimeMinutes and at most maxDaysAhead days ahead.',
        value: {
          type: 'pickup',
          paymentMethod: 'cash',
          items: [
            {
              productId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b',
              quantity: 2,
              modifiers: [{ optionId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a1c', quantity: 1 }],
            },
          ],
          customerName: 'Ana',
          customerPhone: '+34600123456',
          comment: 'No sugar, please',
          changeFromAmount: 20000,
          scheduledFor: '2027-03-14T18:00:00Z',
        },
      },
      delivery: {
        summary: 'A delivery paid by terminal on arrival',
        value: {
          type: 'delivery',
          paymentMethod: 'terminal',
          items: [{ productId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b', quantity: 1 }],
          customerName: 'Ana',
          customerPhone: '+34600123456',
          customerEmail: 'ana@example.com',
          deliveryAddress: 'Calle Mayor 1, 3B, Madrid',
          deliveryNotes: 'Ring twice',
        },
      },
      dineIn: {
        summary: 'An order from a table, as its QR code leads to',
        value: {
          type: 'dine_in',
          paymentMethod: 'online',
          items: [{ productId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b', quantity: 1 }],
          tableId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a2d',
        },
      },
    },
  },
);
export type GuestOrderInput = Static<typeof GuestOrderBody>;

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
