import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas/common.js';
import { CURRENCIES, LANGUAGES } from '../../shared/catalog.js';
import { PLANS, SUBSCRIPTION_STATUSES } from './plans.js';

/** An API key's mode: `carta_live_...` or `carta_test_...`. */
export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

const Slug = Type.String({ pattern: '^[a-z0-9-]{3,64}$', description: '[a-z0-9-]{3,64}, unique' });

export const VenueCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    currency: StringEnum(CURRENCIES),
    slug: Type.Optional(Slug),
    plan: Type.Optional(StringEnum(PLANS)),
    defaultLanguage: Type.Optional(StringEnum(LANGUAGES)),
    subscriptionStatus: Type.Optional(StringEnum(SUBSCRIPTION_STATUSES)),
  },
  { additionalProperties: false },
);
export type VenueCreateInput = Static<typeof VenueCreateBody>;

export const VenuePatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    plan: Type.Optional(StringEnum(PLANS)),
    subscriptionStatus: Type.Optional(StringEnum(SUBSCRIPTION_STATUSES)),
  },
  { additionalProperties: false },
);
export type VenuePatchInput = Static<typeof VenuePatchBody>;

export const Venue = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  plan: StringEnum(PLANS),
  currency: StringEnum(CURRENCIES),
  defaultLanguage: StringEnum(LANGUAGES),
  subscriptionStatus: StringEnum(SUBSCRIPTION_STATUSES),
  sandbox: Type.Object({ id: Type.String(), slug: Type.String() }),
  createdAt: Timestamp,
});
export type VenueView = Static<typeof Venue>;

export const VenueParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const ApiKeyCreateBody = Type.Object(
  {
    mode: StringEnum(KEY_MODES),
    readOnly: Type.Optional(Type.Boolean({ default: false })),
    label: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type ApiKeyCreateInput = Static<typeof ApiKeyCreateBody>;

export const ApiKeyCreated = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'Shown only in this response; only a hash is stored' }),
  mode: StringEnum(KEY_MODES),
  readOnly: Type.Boolean(),
  label: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
});
export type ApiKeyCreatedView = Static<typeof ApiKeyCreated>;

export const ApiKeySummary = Type.Object({
  id: Type.String(),
  mode: StringEnum(KEY_MODES),
  readOnly: Type.Boolean(),
  label: Type.Union([Type.String(), Type.Null()]),
  hint: Type.String({ description: 'The last 4 characters of the key' }),
  createdAt: Timestamp,
  revokedAt: Type.Union([Timestamp, Type.Null()]),
});
export type ApiKeySummaryView = Static<typeof ApiKeySummary>;

export const ApiKeyList = Type.Object({ items: Type.Array(ApiKeySummary) });

export const ApiKeyParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
