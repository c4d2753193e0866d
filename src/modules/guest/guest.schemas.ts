import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { MediaImage } from '../media/media.schemas.js';
import { ScheduleEntry } from '../menu/menu.schemas.js';
import { OrderConfig } from '../settings/settings.schemas.js';
import { ORDER_TYPES, PAYMENT_METHODS } from '../orders/orders.schemas.js';

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80 }) });
export const GuestMenuQuery = Type.Object({ locale: Type.Optional(Type.String({ maxLength: 16 })) });

const GuestOption = Type.Object({
  id: Type.String(),
  name: Type.String(),
  action: Type.String(),
  priceAdjustment: Type.Integer(),
});

const GuestGroup = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  isRequired: Type.Boolean(),
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
  promoPriceMinor: Nullable(Type.Integer({ description: 'The price while a live promotion holds the product (the lowest, when several do); null otherwise' })),
  promotionId: Nullable(Type.String()),
  sortOrder: Type.Integer(),
  ingredients: Type.Array(Type.Object({ name: Type.String() })),
  modifierGroups: Type.Array(GuestGroup),
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
    logoUrl: Nullable(Type.String()),
    logo: Nullable(MediaImage),
  }),
  locale: Type.String(),
  publicationId: Type.String(),
  publishedAt: Timestamp,
  generatedAt: Timestamp,
  orderConfig: OrderConfig,
  banners: Type.Array(GuestBanner, { description: 'Live banners (active, within their schedule), in sortOrder' }),
  promotions: Type.Array(GuestPromotion, { description: 'Live promotions, in sortOrder' }),
  categories: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), sortOrder: Type.Integer(), schedule: Type.Array(ScheduleEntry), cardStyle: Nullable(Type.String()) }),
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
          quantity: Type.Integer({ minimum: 1, maximum: 99 }),
          modifiers: Type.Optional(
            Type.Array(
              Type.Object(
                { optionId: Type.String({ minLength: 1, maxLength: 64 }), quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 99 })) },
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
  { additionalProperties: false },
);
export type GuestOrderInput = Static<typeof GuestOrderBody>;

