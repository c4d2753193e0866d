import { Type, type Static } from 'typebox';
import { IdParams, ListEnvelope, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { WEBHOOK_URL_MAX_LENGTH } from '../../limits.js';

/** The events an endpoint can subscribe to (docs/events.md), in the order they are stored and shown. */
export const WEBHOOK_EVENTS = ['order.created', 'order.updated', 'menu.published', 'menu.availability_changed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description:
    'An absolute https URL without credentials. A host that is a loopback, private, link-local or otherwise reserved address is refused; ' +
    'a name is accepted and its addresses are checked at each delivery. Stored (and shown) as the WHATWG URL parser writes it',
});
const events = Type.Array(StringEnum(WEBHOOK_EVENTS), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
  description: 'The events sent to this endpoint: at least one, each once',
});
const description = Nullable(Type.String({ maxLength: 500, description: 'Your note on what the endpoint is for' }));

export const WebhookCreateBody = Type.Object(
  { url, events, description: Type.Optional(description) },
  {
    additionalProperties: false,
    'x-examples': {
      orders: {
        summary: 'Order events to your server',
        value: {
          url: 'https://pos.example.com/carta/webhooks',
          events: ['order.created', 'order.updated'],
          description: 'Kitchen display',
        },
      },
    },
  },
);
export type WebhookCreateInput = Static<typeof WebhookCreateBody>;

export const WebhookPatchBody = Type.Object(
  {
    url: Type.Optional(url),
    events: Type.Optional(events),
    description: Type.Optional(description),
    enabled: Type.Optional(Type.Boolean({ description: 'true turns the endpoint back on and clears disabledReason' })),
  },
  { additionalProperties: false },
);
export type WebhookPatchInput = Static<typeof WebhookPatchBody>;

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(StringEnum(WEBHOOK_EVENTS)),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(
    Type.String({ description: 'Why delivery turned the endpoint off; null while enabled or when turned off through the API' }),
  ),
  mode: StringEnum(['live', 'test'] as const, {
    description: 'The mode of the key that created it: a test endpoint receives test-mode events only',
  }),
  secretHint: Type.String({ description: 'The last 4 characters of the current signing secret' }),
  previousSecretExpiresAt: Nullable(
    Type.String({
      format: 'date-time',
      description: 'After a rotation: until when deliveries are also signed with the replaced secret (24 hours later); null otherwise',
    }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const WebhookEndpoint = Type.Object(endpointFields);
export type WebhookEndpointView = Static<typeof WebhookEndpoint>;

/** The create and rotate responses: the only ones that show the signing secret. */
export const WebhookEndpointWithSecret = Type.Object({
  ...endpointFields,
  secret: Type.String({
    description: 'The signing secret (Standard Webhooks: `whsec_` and the base64 of 32 random bytes). Shown only here: store it now',
  }),
});
export type WebhookEndpointWithSecretView = Static<typeof WebhookEndpointWithSecret>;

export const WebhookList = ListEnvelope(WebhookEndpoint);
export type WebhookListView = Static<typeof WebhookList>;

/** One attempt to send a delivery, as the delivery log shows it. */
export const WebhookAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt' }),
  startedAt: Timestamp,
  durationMs: Type.Integer(),
  statusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came (refused, timed out, blocked)" })),
  error: Nullable(Type.String({ description: 'Why the attempt failed; null when it delivered' })),
});

/** One event sent to one endpoint, with every attempt. */
export const WebhookDelivery = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'The event id: the webhook-id header, the same on every attempt' }),
  eventType: Type.String({ description: '`order.created`, `order.updated`, `menu.published`, or `ping` (POST /v1/webhooks/:id/test)' }),
  status: StringEnum(['pending', 'delivered', 'failed'] as const, { description: 'failed: given up after a day of failed attempts' }),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Nullable(
    Type.String({ format: 'date-time', description: 'When it is tried next while pending; null once delivered or failed' }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  attemptLog: Type.Array(WebhookAttempt, { description: 'Every attempt, newest first' }),
});
export type WebhookDeliveryView = Static<typeof WebhookDelivery>;

export const WebhookDeliveryList = ListEnvelope(WebhookDelivery);
export type WebhookDeliveryListView = Static<typeof WebhookDeliveryList>;

export const WebhookDeliveryParams = Type.Object({ id: IdParams.properties.id, deliveryId: IdParams.properties.id });
