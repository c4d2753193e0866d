// The board's API shapes (docs/console.md): one schema each, for validation, types and serialization.
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas/common.js';
import { ORDERING_REASONS } from '../availability/index.js';
import { Order } from '../orders/index.js';
import { STAFF_ROLES } from '../staff/index.js';

const DateTime = Type.String({ format: 'date-time' });

export const BoardOrdering = Type.Object({
  open: Type.Boolean(),
  reason: Nullable(StringEnum(ORDERING_REASONS)),
  opensAt: Nullable(DateTime),
  closesAt: Nullable(DateTime),
  pausedUntil: Nullable(DateTime),
  acceptingOrders: Type.Boolean(),
  prepTimeMinutes: Type.Integer(),
});
export type BoardOrderingView = Static<typeof BoardOrdering>;
export const BoardOrderingResult = Type.Object({ ordering: BoardOrdering });

export const Board = Type.Object({
  member: Type.Object({ id: Type.String(), name: Type.String(), role: StringEnum(STAFF_ROLES) }),
  venue: Type.Object({
    id: Type.String(),
    name: Type.String(),
    currency: Type.String(),
    timezone: Type.String(),
    prepTimeMinutes: Type.Integer(),
  }),
  cursor: Nullable(DateTime),
  orders: Type.Array(Order),
  ordering: BoardOrdering,
});
export type BoardView = Static<typeof Board>;

const ServiceItem = {
  id: Type.String(),
  ref: Type.String(),
  name: Type.String(),
  available: Type.Boolean(),
  until: Nullable(DateTime),
};
export const Service = Type.Object({
  ordering: BoardOrdering,
  products: Type.Array(Type.Object({ ...ServiceItem, categoryName: Nullable(Type.String()) })),
  ingredients: Type.Array(Type.Object(ServiceItem)),
});
export type ServiceView = Static<typeof Service>;

export const PauseBody = Type.Object(
  { minutes: Type.Union([Type.Literal(0), Type.Literal(15), Type.Literal(30), Type.Literal(60)], { description: '0 resumes ordering' }) },
  { additionalProperties: false },
);

export const OrderingPatchBody = Type.Object(
  { acceptingOrders: Type.Optional(Type.Boolean()), prepTimeMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 240 })) },
  { additionalProperties: false, minProperties: 1 },
);
export type OrderingPatchInput = Static<typeof OrderingPatchBody>;

export const BoardStreamQuery = Type.Object({ after: Type.Optional(Type.String({ maxLength: 40 })) }, { additionalProperties: false });
