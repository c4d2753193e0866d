import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { AVAILABILITY_SECTION_MAX } from '../../limits.js';

export const AVAILABILITY_REASONS = ['sold_out', 'ingredient_sold_out', 'required_choice_unavailable', 'category_schedule'] as const;
export type AvailabilityReason = (typeof AVAILABILITY_REASONS)[number];

/** What a product, option or ingredient shows of live availability. */
export const Availability = Type.Object(
  {
    available: Type.Boolean(),
    until: Nullable(
      Type.String({ format: 'date-time', description: 'When it becomes available again; null while available, or when unknown' }),
    ),
    reason: Nullable(StringEnum(AVAILABILITY_REASONS, { description: 'Why it is unavailable: the first that applies, in this order' })),
  },
  { description: 'Live availability: sold-out marks and category schedules, read against the clock, without a publish' },
);
export type AvailabilityValue = Static<typeof Availability>;

const Mark = Type.Object(
  {
    ref: Type.String({ minLength: 1, maxLength: 255, description: 'An externalId, else an opaque id (as for /v1/products/:ref)' }),
    available: Type.Boolean({ description: 'false marks it sold out; true clears the mark (nothing to clear is a no-op)' }),
    until: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description:
            'With available false: when the mark ends (ISO 8601 with an offset, in the future, at most 30 days ahead); omitted or null: until marked available',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type MarkInput = Static<typeof Mark>;

export const AvailabilityPutBody = Type.Object(
  {
    products: Type.Optional(Type.Array(Mark, { maxItems: AVAILABILITY_SECTION_MAX })),
    ingredients: Type.Optional(Type.Array(Mark, { maxItems: AVAILABILITY_SECTION_MAX })),
  },
  {
    additionalProperties: false,
    'x-examples': {
      soldOut: {
        summary: 'The salmon ran out at 19:40: sold out for the rest of the evening, and a dish back on',
        value: {
          products: [{ ref: 'latte', available: true }],
          ingredients: [{ ref: 'salmon', available: false, until: '2026-11-27T23:00:00+01:00' }],
        },
      },
      indefinitely: { summary: 'Sold out until turned back on', value: { products: [{ ref: 'tiramisu', available: false }] } },
    },
  },
);
export type AvailabilityPutInput = Static<typeof AvailabilityPutBody>;

export const AvailabilityPutResult = Type.Object({
  products: Type.Object({ updated: Type.Integer({ description: 'Entries whose state changed' }) }),
  ingredients: Type.Object({ updated: Type.Integer() }),
});
export type AvailabilityPutResultValue = Static<typeof AvailabilityPutResult>;

const SoldOutItem = Type.Object({
  ref: Type.String({ description: 'The externalId, else the id' }),
  id: Type.String(),
  externalId: Nullable(Type.String()),
  name: Type.String(),
  until: Nullable(Timestamp),
  updatedAt: Timestamp,
});
export type SoldOutItemValue = Static<typeof SoldOutItem>;

export const AvailabilityList = Type.Object({
  products: Type.Array(SoldOutItem, { description: 'Products marked sold out now (expired marks are not listed), by name' }),
  ingredients: Type.Array(SoldOutItem),
});
export type AvailabilityListValue = Static<typeof AvailabilityList>;

export const ORDERING_REASONS = ['not_accepting', 'paused', 'closed'] as const;
export type OrderingReason = (typeof ORDERING_REASONS)[number];

export const Ordering = Type.Object(
  {
    open: Type.Boolean(),
    reason: Nullable(
      StringEnum(ORDERING_REASONS, { description: 'Why ordering is closed: the first that applies of not_accepting, paused, closed' }),
    ),
    opensAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'The next moment ordering opens; null while open, or when unknown or beyond 14 days',
      }),
    ),
    closesAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'The end of the current open window; null while closed, or when no closing is ahead within 14 days',
      }),
    ),
    prepTimeMinutes: Type.Integer(),
    scheduledOrders: Type.Object({ enabled: Type.Boolean(), maxDaysAhead: Type.Integer() }),
  },
  { description: 'Whether guests can order now' },
);
export type OrderingView = Static<typeof Ordering>;
