import { Type, type Static } from 'typebox';
import { ListEnvelope, Nullable, PageQuery, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { ORDER_STATUSES } from '../../shared/order-status.js';

export const ORDER_TYPES = ['delivery', 'pickup', 'dine_in'] as const;
export const PAYMENT_METHODS = ['cash', 'terminal', 'online'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const OrderModifier = Type.Object({
  groupName: Type.String(),
  ingredientExternalId: Nullable(Type.String()),
  ingredientName: Type.String(),
  priceAdjustment: Type.Integer(),
  quantity: Type.Integer(),
});

export const OrderItem = Type.Object({
  productExternalId: Nullable(Type.String()),
  productName: Type.String(),
  quantity: Type.Integer(),
  unitPrice: Type.Integer(),
  totalPrice: Type.Integer(),
  modifiers: Type.Array(OrderModifier),
});
export type OrderItemView = Static<typeof OrderItem>;

/** One order, plus allowedTransitions so clients never hard-code the state machine. */
export const Order = Type.Object({
  id: Type.String(),
  orderNumber: Type.String(),
  status: StringEnum(ORDER_STATUSES),
  allowedTransitions: Type.Array(StringEnum(ORDER_STATUSES)),
  type: StringEnum(ORDER_TYPES),
  customerName: Nullable(Type.String()),
  customerPhone: Nullable(Type.String()),
  customerEmail: Nullable(Type.String()),
  deliveryAddress: Nullable(Type.String()),
  deliveryNotes: Nullable(Type.String()),
  paymentMethod: StringEnum(PAYMENT_METHODS),
  comment: Nullable(Type.String()),
  changeFromAmount: Nullable(Type.Integer()),
  scheduledFor: Nullable(Timestamp),
  tableId: Nullable(Type.String()),
  tableName: Nullable(Type.String({ description: "The table's name when the order was placed" })),
  currency: Type.String(),
  subtotalAmount: Type.Integer(),
  deliveryFee: Type.Integer(),
  discountAmount: Type.Integer(),
  totalAmount: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  confirmedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  items: Type.Array(OrderItem),
});
export type OrderView = Static<typeof Order>;

export const OrderList = ListEnvelope(Order);
export type OrderListView = Static<typeof OrderList>;

// Timestamps are checked by the service so the message can name the parameter.
export const OrderListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.String({ description: 'Comma-separated statuses', maxLength: 200 })),
  type: Type.Optional(StringEnum(ORDER_TYPES)),
  createdFrom: Type.Optional(Type.String({ description: 'ISO 8601 with a timezone; inclusive' })),
  createdTo: Type.Optional(Type.String({ description: 'ISO 8601 with a timezone; inclusive' })),
  updatedSince: Type.Optional(Type.String({ description: 'ISO 8601 with a timezone; inclusive polling cursor' })),
  since: Type.Optional(Type.String({ description: 'Alias of updatedSince' })),
});
export type OrderListQueryValue = Static<typeof OrderListQuery>;

/** GET /v1/orders/stream: where a first connection starts (a reconnect sends Last-Event-ID instead). */
export const OrderStreamQuery = Type.Object({
  updatedSince: Type.Optional(
    Type.String({ description: 'ISO 8601 with a timezone; inclusive: the stream starts with the orders changed at or after it' }),
  ),
  since: Type.Optional(Type.String({ description: 'Alias of updatedSince' })),
});
export type OrderStreamQueryValue = Static<typeof OrderStreamQuery>;

export const OrderStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'The id of the last event received (EventSource sends it on reconnecting): the stream resumes right after it, before updatedSince',
    }),
  ),
});

export const OrderIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const OrderStatusBody = Type.Object(
  { status: StringEnum(ORDER_STATUSES) },
  {
    additionalProperties: false,
    'x-examples': {
      confirm: { summary: 'Accept a new order', value: { status: 'confirmed' } },
      cancel: { summary: 'Cancel an order that is not completed', value: { status: 'cancelled' } },
    },
  },
);
