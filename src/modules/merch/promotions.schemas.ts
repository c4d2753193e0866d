import { Type, type Static } from 'typebox';
import { ListEnvelope, Nullable, Timestamp } from '../../http/schemas/common.js';
import { MerchExternalId, MerchSortOrder, ScheduleTime } from './merch.schemas.js';

const Money = Type.Integer({ minimum: 0, maximum: 100_000_000 });

const promotionFields = {
  externalId: Type.Optional(Nullable(MerchExternalId)),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  isActive: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(MerchSortOrder),
  startsAt: Type.Optional(ScheduleTime),
  endsAt: Type.Optional(ScheduleTime),
};

export const PromotionCreateBody = Type.Object(promotionFields, { additionalProperties: false });
export type PromotionCreateInput = Static<typeof PromotionCreateBody>;

const { name, ...optionalPromotionFields } = promotionFields;
export const PromotionPatchBody = Type.Object({ name: Type.Optional(name), ...optionalPromotionFields }, { additionalProperties: false });
export type PromotionPatchInput = Static<typeof PromotionPatchBody>;

export const PromotionItem = Type.Object({
  id: Type.String(),
  promotionId: Type.String(),
  productId: Type.String(),
  productExternalId: Nullable(Type.String()),
  productName: Type.String(),
  promoPriceMinor: Nullable(
    Type.Integer({ description: "The product's price while the promotion is live; null shows it in the promotion at its own price" }),
  ),
  sortOrder: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type PromotionItemView = Static<typeof PromotionItem>;

export const Promotion = Type.Object({
  id: Type.String(),
  externalId: Nullable(Type.String()),
  name: Type.String(),
  description: Nullable(Type.String()),
  isActive: Type.Boolean(),
  sortOrder: Type.Integer(),
  startsAt: Nullable(Type.String()),
  endsAt: Nullable(Type.String()),
  items: Type.Array(PromotionItem),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type PromotionView = Static<typeof Promotion>;

export const PromotionList = ListEnvelope(Promotion);
export const PromotionItemList = ListEnvelope(PromotionItem);

export const PromotionItemCreateBody = Type.Object(
  {
    productRef: Type.String({ minLength: 1, maxLength: 255, description: "The product's externalId or id" }),
    promoPriceMinor: Type.Optional(Nullable(Money)),
    sortOrder: Type.Optional(MerchSortOrder),
  },
  { additionalProperties: false },
);
export type PromotionItemCreateInput = Static<typeof PromotionItemCreateBody>;

export const PromotionItemPatchBody = Type.Object(
  { promoPriceMinor: Type.Optional(Nullable(Money)), sortOrder: Type.Optional(MerchSortOrder) },
  { additionalProperties: false },
);
export type PromotionItemPatchInput = Static<typeof PromotionItemPatchBody>;

export const ItemParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  itemId: Type.String({ minLength: 1, maxLength: 64 }),
});
