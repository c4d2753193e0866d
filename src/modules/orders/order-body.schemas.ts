// The body of a guest order (POST /guest/v1/venues/:slug/orders): what the placement (place-order.ts)
// checks, prices and writes. Its limits are the shared rules' (an option's and a line's quantity).
import { Type, type Static } from 'typebox';
import { StringEnum } from '../../http/schemas/common.js';
import { MAX_OPTION_QUANTITY } from '../../shared/modifier-rules.js';
import { MAX_LINE_QUANTITY } from '../../shared/pricing.js';
import { ORDER_TYPES, PAYMENT_METHODS } from './orders.schemas.js';

const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));

export const GuestOrderBody = Type.Object(
  {
    type: StringEnum(ORDER_TYPES),
    paymentMethod: StringEnum(PAYMENT_METHODS),
    items: Type.Array(
      Type.Object(
        {
          productId: Type.String({ minLength: 1, maxLength: 64 }),
          quantity: Type.Integer({ minimum: 1, maximum: MAX_LINE_QUANTITY }),
          modifiers: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  optionId: Type.String({ minLength: 1, maxLength: 64 }),
                  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_OPTION_QUANTITY })),
                },
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
  {
    additionalProperties: false,
    'x-examples': {
      pickup: {
        summary: 'Two lattes with oat milk to pick up at 18:00, paid in cash',
        description:
          'productId and optionId are the ids of the guest menu (GET /guest/v1/venues/{slug}/menu). scheduledFor needs scheduled orders enabled in the settings ' +
          'and a time within the opening hours, at least prepTimeMinutes and at most maxDaysAhead days ahead.',
        value: {
          type: 'pickup',
          paymentMethod: 'cash',
          items: [
            {
              productId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b',
              quantity: 2,
              modifiers: [{ optionId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a1c', quantity: 1 }],
            },
          ],
          customerName: 'Ana',
          customerPhone: '+34600123456',
          comment: 'No sugar, please',
          changeFromAmount: 20000,
          scheduledFor: '2027-03-14T18:00:00Z',
        },
      },
      delivery: {
        summary: 'A delivery paid by terminal on arrival',
        value: {
          type: 'delivery',
          paymentMethod: 'terminal',
          items: [{ productId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b', quantity: 1 }],
          customerName: 'Ana',
          customerPhone: '+34600123456',
          customerEmail: 'ana@example.com',
          deliveryAddress: 'Calle Mayor 1, 3B, Madrid',
          deliveryNotes: 'Ring twice',
        },
      },
      dineIn: {
        summary: 'An order from a table, as its QR code leads to',
        value: {
          type: 'dine_in',
          paymentMethod: 'online',
          items: [{ productId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a0b', quantity: 1 }],
          tableId: '0193a0b0-1c2d-7e3f-8a4b-5c6d7e8f9a2d',
        },
      },
    },
  },
);
export type GuestOrderInput = Static<typeof GuestOrderBody>;
