import { Type, type Static } from 'typebox';
import { HhMm, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { MediaImage } from '../media/index.js';
import { DAYS } from '../../shared/schedule.js';
import { CARD_STYLES, LANGUAGES } from '../../shared/catalog.js';

const Money = Type.Integer({ minimum: 0, maximum: 100_000_000 });

const scheduledOrdersFields = {
  enabled: Type.Boolean({ description: 'Guests may order for a later time (scheduledFor), also while ordering is closed now' }),
  maxDaysAhead: Type.Integer({ minimum: 1, maximum: 14, description: 'How many days ahead a scheduledFor may lie' }),
};

const orderConfigFields = {
  acceptingOrders: Type.Boolean(),
  deliveryEnabled: Type.Boolean(),
  pickupEnabled: Type.Boolean(),
  dineInEnabled: Type.Boolean(),
  deliveryFeeMinor: Money,
  freeDeliveryFromMinor: Nullable(Money),
  minOrderMinor: Money,
  pausedUntil: Nullable(
    Type.String({
      format: 'date-time',
      description: 'Ordering paused until then ("we are swamped"): at most 24 h ahead; null: not paused',
    }),
  ),
  prepTimeMinutes: Type.Integer({
    minimum: 1,
    maximum: 240,
    description: 'How long an order takes: a scheduledFor must be at least this far ahead',
  }),
  scheduledOrders: Type.Object(scheduledOrdersFields),
};

export const OrderConfig = Type.Object(orderConfigFields);
export type OrderConfigValue = Static<typeof OrderConfig>;

/** The fields every plan may set; the others need a plan with delivery. */
export const ORDER_CONFIG_ANY_PLAN = ['pausedUntil', 'prepTimeMinutes', 'scheduledOrders'] as const;

export const DEFAULT_ORDER_CONFIG: OrderConfigValue = Object.freeze({
  acceptingOrders: true,
  deliveryEnabled: false,
  pickupEnabled: true,
  dineInEnabled: true,
  deliveryFeeMinor: 0,
  freeDeliveryFromMinor: null,
  minOrderMinor: 0,
  pausedUntil: null,
  prepTimeMinutes: 15,
  scheduledOrders: Object.freeze({ enabled: false, maxDaysAhead: 2 }),
});

const { scheduledOrders: _scheduled, ...plainOrderConfigFields } = orderConfigFields;
const OrderConfigPatch = Type.Partial(
  Type.Object({
    ...plainOrderConfigFields,
    scheduledOrders: Type.Partial(Type.Object(scheduledOrdersFields), { additionalProperties: false }),
  }),
  { additionalProperties: false },
);

const HoursFields = {
  isOpen: Type.Boolean(),
  openTime: Type.Optional(HhMm),
  closeTime: Type.Optional(HhMm),
};
const WeeklyEntry = Type.Object({ day: StringEnum(DAYS), ...HoursFields }, { additionalProperties: false });
const DatedEntry = Type.Object(
  { date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD, in the venue timezone' }), ...HoursFields },
  { additionalProperties: false },
);

export const OpeningHours = Type.Object(
  {
    weekly: Type.Array(WeeklyEntry, { maxItems: 21, description: 'Up to 3 shifts a day; a day not listed is closed' }),
    exceptions: Type.Array(DatedEntry, {
      maxItems: 100,
      description: 'Dated hours that replace the weekly ones of their date (isOpen false: closed all day)',
    }),
  },
  {
    description:
      "When guests may order, in the venue's timezone. closeTime before openTime runs past midnight (and belongs to the day it starts on); " +
      'openTime equal to closeTime is 24 hours. null: always open.',
  },
);
export type OpeningHoursValue = Static<typeof OpeningHours>;
const OpeningHoursPatch = Type.Object(
  { weekly: Type.Optional(OpeningHours.properties.weekly), exceptions: Type.Optional(OpeningHours.properties.exceptions) },
  { additionalProperties: false },
);

const AccentColor = Nullable(Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }), {
  description: "#rrggbb with a contrast of at least 4.5:1 against white (WCAG AA), read in lower case; null: Carta's own",
});
export const Theme = Type.Object({ accentColor: AccentColor }, { description: "The guest page's look" });
export type ThemeValue = Static<typeof Theme>;
const ThemePatch = Type.Object({ accentColor: Type.Optional(AccentColor) }, { additionalProperties: false });

export const Settings = Type.Object({
  name: Type.String(),
  currency: Type.String(),
  defaultLanguage: Type.String(),
  enabledLanguages: Type.Array(Type.String()),
  cardStyle: Type.String(),
  timezone: Type.String(),
  orderConfig: OrderConfig,
  openingHours: Nullable(OpeningHours),
  theme: Theme,
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
    orderConfig: Type.Optional(OrderConfigPatch),
    openingHours: Type.Optional(Nullable(OpeningHoursPatch)),
    theme: Type.Optional(ThemePatch),
  },
  {
    additionalProperties: false,
    'x-examples': {
      languages: {
        summary: 'Enable Spanish before syncing Spanish translations',
        value: { enabledLanguages: ['en', 'es'], timezone: 'Europe/Madrid' },
      },
      delivery: {
        summary: 'Turn delivery on (plans with delivery)',
        value: { orderConfig: { deliveryEnabled: true, deliveryFeeMinor: 2500, freeDeliveryFromMinor: 30000, minOrderMinor: 10000 } },
      },
      hours: {
        summary: 'Open 12:00-15:00 and 18:00-23:00 on weekdays, till 01:00 on Friday, closed on Christmas Day, scheduled orders on',
        value: {
          openingHours: {
            weekly: [
              ...['monday', 'tuesday', 'wednesday', 'thursday'].flatMap((day) => [
                { day, isOpen: true, openTime: '12:00', closeTime: '15:00' },
                { day, isOpen: true, openTime: '18:00', closeTime: '23:00' },
              ]),
              { day: 'friday', isOpen: true, openTime: '12:00', closeTime: '15:00' },
              { day: 'friday', isOpen: true, openTime: '18:00', closeTime: '01:00' },
            ],
            exceptions: [{ date: '2026-12-25', isOpen: false }],
          },
          orderConfig: { prepTimeMinutes: 20, scheduledOrders: { enabled: true, maxDaysAhead: 3 } },
        },
      },
      pause: { summary: 'Swamped: pause ordering for 30 minutes', value: { orderConfig: { pausedUntil: '2026-11-27T19:30:00Z' } } },
    },
  },
);
export type SettingsPatchInput = Static<typeof SettingsPatchBody>;
