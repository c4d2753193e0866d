import { Type, type Static } from 'typebox';

const WindowLimit = Type.Object({ limit: Type.Integer(), windowSec: Type.Integer() });
const CodeName = Type.Object({ code: Type.String(), name: Type.String({ description: 'English name' }) });
const TierLimits = Type.Object({ free: Type.Integer(), paid: Type.Integer() });

export const Reference = Type.Object({
  units: Type.Array(Type.String()),
  badgeColors: Type.Array(Type.String()),
  modifierTypes: Type.Object({
    accepted: Type.Array(Type.String()),
    canonical: Type.Array(Type.String()),
    deprecated: Type.Record(Type.String(), Type.String()),
  }),
  orderStatuses: Type.Array(Type.String()),
  orderStatusTransitions: Type.Record(Type.String(), Type.Array(Type.String())),
  cardStyles: Type.Array(Type.String()),
  currencies: Type.Array(Type.String()),
  languages: Type.Array(Type.String()),
  allergens: Type.Array(CodeName, { description: 'The 14 allergens of EU Regulation 1169/2011 Annex II, in its order' }),
  dietaryLabels: Type.Array(CodeName, { description: 'Dietary labels a product may carry' }),
  requestLimits: Type.Object({
    bodyLimitMb: Type.Integer(),
    mediaBodyLimitMb: Type.Integer(),
    rateLimits: Type.Object({ short: WindowLimit, medium: WindowLimit, long: WindowLimit }),
    planRateLimits: Type.Object({
      windowSec: Type.Integer(),
      keyedBy: Type.String(),
      tiers: Type.Object({ general: TierLimits, media: TierLimits, 'media-fast': TierLimits, heavy: TierLimits }),
    }),
    syncArrayCaps: Type.Object({ categories: Type.Integer(), ingredients: Type.Integer(), products: Type.Integer() }),
    syncNestedCaps: Type.Object({
      modifierGroupsPerProduct: Type.Integer(),
      optionsPerModifierGroup: Type.Integer(),
      ingredientRefsPerProduct: Type.Integer(),
    }),
    cleanupArrayCap: Type.Integer(),
  }),
  conventions: Type.Object({ money: Type.String(), timestamps: Type.String() }),
  planLimits: Type.Object({
    plan: Type.String(),
    rateLimitTier: Type.String(),
    limits: Type.Object({
      maxProducts: Type.Integer(),
      maxCategories: Type.Integer(),
      maxIngredients: Type.Integer(),
      maxBanners: Type.Integer(),
      maxQrTables: Type.Integer(),
    }),
    usage: Type.Object({
      products: Type.Integer(),
      categories: Type.Integer(),
      ingredients: Type.Integer(),
      banners: Type.Integer(),
      tables: Type.Integer(),
    }),
    features: Type.Object({ hasDelivery: Type.Boolean(), aiEnabled: Type.Boolean(), ordersApi: Type.Boolean() }),
  }),
  resources: Type.Array(Type.Object({ name: Type.String(), basePath: Type.String(), operations: Type.Array(Type.String()) })),
  openapi: Type.Object({ url: Type.String(), format: Type.String() }),
});
export type ReferenceView = Static<typeof Reference>;
