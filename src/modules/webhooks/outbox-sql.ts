// The webhook outbox as SQL that other statements embed: a write that makes an event (a guest
// order, a status change, a publish) writes the event in its own statement or transaction, so the
// event commits with the change or not at all. The webhooks module owns these tables; other
// modules use these fragments, never its repository.

/** A new event's id (the webhook-id), type and time: what its body says besides the venue and `data`. */
export interface EventHead {
  id: string;
  type: string;
  timestamp: string;
}

/** An event as written: its id (the webhook-id), type and payload (the body as signed and sent). */
export interface OutboxEvent {
  id: string;
  type: string;
  payload: string;
}

/**
 * The outbox's write as an SQL expression of the statement that makes the change, so the event
 * commits with it or not at all: a call of webhook_outbox (migration 0014, whose plans PostgreSQL
 * keeps for the session), which writes the event and one delivery for each enabled endpoint of the
 * venue subscribed to its type, or with `endpoint` (a ping) for that one alone, and gives the
 * deliveries' ids, a row each (no endpoint, no row). Each argument is an SQL expression: a
 * parameter, or a value the statement computes.
 */
export const outboxCall = (sql: { venue: string; id: string; type: string; payload: string; endpoint?: string }) =>
  `webhook_outbox(${sql.venue}, ${sql.id}, ${sql.type}, ${sql.payload}${sql.endpoint === undefined ? '' : `, ${sql.endpoint}`})`;

/**
 * An event's body as an SQL expression, for a statement that builds `data` from the rows it
 * writes: `{ id, type, timestamp, venueId, data }` in that order, as WebhookEvents.draft writes it
 * (json_build_object keeps the order it is given; jsonb would sort the keys).
 */
export const payloadSql = (sql: { venue: string; id: string; type: string; timestamp: string; data: string }) =>
  `json_build_object('id', ${sql.id}, 'type', ${sql.type}, 'timestamp', ${sql.timestamp}, 'venueId', ${sql.venue}, 'data', ${sql.data})::text`;
