import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { MediaImage } from '../media/media.schemas.js';
import { CARD_STYLES, LANGUAGES } from '../reference/catalog.js';

const Money = Type.Integer({ minimum: 0, maximum: 100_000_000 });

export const OrderConfig = Type.Object({
  acceptingOrders: Type.Boolean(),
  deliveryEnabled: Type.Boolean(),
  pickupEnabled: Type.Boolean(),
  dineInEnabled: Type.Boolean(),
  deliveryFeeMinor: Money,
  freeDeliveryFromMinor: Nullable(Money),
  minOrderMinor: Money,
});
export type OrderConfigValue = Static<typeof OrderConfig>;

export const DEFAULT_ORDER_CONFIG: OrderConfigValue = Object.freeze({
  acceptingOrders: true,
  deliveryEnabled: false,
  pickupEnabled: true,
  dineInEnabled: true,
  deliveryFeeMinor: 0,
  freeDeliveryFromMinor: null,
  minOrderMinor: 0,
});

export const Settings = Type.Object({
  name: Type.String(),
  currency: Type.String(),
  defaultLanguage: Type.String(),
  enabledLanguages: Type.Array(Type.String()),
  cardStyle: Type.String(),
  timezone: Type.String(),
  orderConfig: OrderConfig,
  logoUrl: Nullable(Type.String({ description: 'Set with POST /v1/logo' })),
  logo: Nullable(MediaImage),
  updatedAt: Timestamp,
});
export type SettingsView = Static<typeof Settings>;
/** The settings every rule reads (languages, order config); the logo is added for the settings read. */
export type SettingsCore = Omit<SettingsView, 'logoUrl' | 'logo'>;

export const SettingsPatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    defaultLanguage: Type.Optional(StringEnum(LANGUAGES)),
    enabledLanguages: Type.Optional(Type.Array(StringEnum(LANGUAGES), { minItems: 1, maxItems: LANGUAGES.length, uniqueItems: true })),
    cardStyle: Type.Optional(StringEnum(CARD_STYLES)),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Kyiv' })),
    orderConfig: Type.Optional(Type.Partial(OrderConfig, { additionalProperties: false })),
  },
  {
    additionalProperties: false,
    'x-examples': {
      languages: { summary: 'Enable Spanish before syncing Spanish translations', value: { enabledLanguages: ['en', 'es'], timezone: 'Europe/Madrid' } },
      delivery: {
        summary: 'Turn delivery on (plans with delivery)',
        value: { orderConfig: { deliveryEnabled: true, deliveryFeeMinor: 2500, freeDeliveryFromMinor: 30000, minOrderMinor: 10000 } },
      },
    },
  },
);
export type SettingsPatchInput = Static<typeof SettingsPatchBody>;
