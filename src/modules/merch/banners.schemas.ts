import { Type, type Static } from 'typebox';
import { ListEnvelope, Nullable, Timestamp } from '../../http/schemas/common.js';
import { MediaImage } from '../media/index.js';
import { BannerTranslations, TEXT_MAX } from '../menu/index.js';
import { MerchExternalId, MerchSortOrder, ScheduleTime } from './merch.schemas.js';

const bannerFields = {
  externalId: Type.Optional(Nullable(MerchExternalId)),
  title: Type.String({ minLength: 1, maxLength: TEXT_MAX.title }),
  subtitle: Type.Optional(Nullable(Type.String({ maxLength: TEXT_MAX.subtitle }))),
  linkUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048, description: 'An https URL' }))),
  productRef: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: "A product's externalId or id" }))),
  isActive: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(MerchSortOrder),
  startsAt: Type.Optional(ScheduleTime),
  endsAt: Type.Optional(ScheduleTime),
  translations: Type.Optional(BannerTranslations),
};

export const BannerCreateBody = Type.Object(bannerFields, { additionalProperties: false });
export type BannerCreateInput = Static<typeof BannerCreateBody>;

const { title, ...optionalBannerFields } = bannerFields;
export const BannerPatchBody = Type.Object({ title: Type.Optional(title), ...optionalBannerFields }, { additionalProperties: false });
export type BannerPatchInput = Static<typeof BannerPatchBody>;

export const Banner = Type.Object({
  id: Type.String(),
  externalId: Nullable(Type.String()),
  title: Type.String(),
  subtitle: Nullable(Type.String()),
  linkUrl: Nullable(Type.String()),
  productId: Nullable(Type.String()),
  productExternalId: Nullable(Type.String()),
  isActive: Type.Boolean(),
  sortOrder: Type.Integer(),
  startsAt: Nullable(Type.String()),
  endsAt: Nullable(Type.String()),
  translations: Type.Record(Type.String(), Type.Record(Type.String(), Type.String())),
  imageUrl: Nullable(Type.String()),
  image: Nullable(MediaImage),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type BannerView = Static<typeof Banner>;

export const BannerList = ListEnvelope(Banner);
