import type { Queryable } from '../../db/port.js';
import type { WebhookEvent } from './webhooks.schemas.js';

/**
 * Writes an event and one delivery for each enabled endpoint of the venue subscribed to its type,
 * in the caller's transaction (the outbox: the event commits with the change, or neither does).
 * With `endpointId` (a ping), that endpoint alone gets it, whatever it subscribes to and whether
 * or not it is enabled. No endpoint, no row. Returns the ids of the deliveries queued.
 */
export async function recordEvent(
  db: Queryable,
  venueId: string,
  event: { id: string; type: string; payload: string },
  endpointId: string | null = null,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `with subscribed as (
       select id from webhook_endpoints
       where venue_id = $1 and (case when $5::uuid is null then enabled and $3 = any(events) else id = $5 end)
     ), event as (
       insert into webhook_events (venue_id, id, type, payload)
       select $1, $2, $3, $4 where exists (select 1 from subscribed)
       returning id
     )
     insert into webhook_deliveries (venue_id, id, endpoint_id, event_id)
     select $1, gen_random_uuid(), s.id, e.id from subscribed s cross join event e
     order by s.id
     returning id`,
    [venueId, event.id, event.type, event.payload, endpointId],
  );
  return rows.map((r) => r.id);
}

/** The event types some enabled endpoint of the venue takes (an order write skips the outbox without). */
export async function subscribedEvents(db: Queryable, venueId: string): Promise<WebhookEvent[]> {
  const { rows } = await db.query<{ type: WebhookEvent }>(
    'select distinct unnest(events) as type from webhook_endpoints where venue_id = $1 and enabled',
    [venueId],
  );
  return rows.map((r) => r.type);
}

/**
 * A delivery `d` (its endpoint `p` joined and enabled) that a claim takes now: due, not leased, and
 * at the head of its endpoint's queue (nothing pending ahead of it: one at a time, in order).
 */
const CLAIMABLE = `d.status = 'pending' and d.next_attempt_at <= now() and (d.leased_until is null or d.leased_until < now())
  and not exists (
    select 1 from webhook_deliveries e
    where e.venue_id = d.venue_id and e.endpoint_id = d.endpoint_id and e.status = 'pending' and e.seq < d.seq
  )`;

/**
 * Venues with a delivery due and not being sent. The one look-up across venues of the dispatcher
 * (like the media sweep's): each venue's deliveries are then claimed by a venue's own query.
 */
export async function venuesWithDueDeliveries(db: Queryable, limit: number): Promise<string[]> {
  // Only deliveries a claim would take: at the head of an enabled endpoint's queue. A venue whose
  // due deliveries wait behind another, or on a disabled endpoint, is not looked at again and again.
  const { rows } = await db.query<{ venue_id: string }>(
    `select d.venue_id from webhook_deliveries d
     join webhook_endpoints p on p.venue_id = d.venue_id and p.id = d.endpoint_id and p.enabled
     where ${CLAIMABLE}
     group by d.venue_id
     order by min(d.next_attempt_at)
     limit $1`,
    [limit],
  );
  return rows.map((r) => r.venue_id);
}

/** Whether any venue has an enabled endpoint (a starting dispatcher then polls: another instance's deliveries may wait). */
export async function anyEnabledEndpoint(db: Queryable): Promise<boolean> {
  const { rows } = await db.query('select 1 from webhook_endpoints where enabled limit 1');
  return rows.length > 0;
}

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  created_at: Date;
  url: string;
  secret: string;
  /** The replaced secret while its grace period lasts (as signingSecrets gives it), else null. */
  previous_secret: string | null;
  payload: string;
}

/**
 * Claims up to `limit` deliveries of one venue that are due: for each endpoint only its oldest
 * pending one (an endpoint's events go out in order, one at a time), skipping rows another
 * instance is claiming (FOR UPDATE SKIP LOCKED) and those leased to one. The claim leases them
 * for `leaseMs` and counts the attempt, in one statement: a crash mid-send leaves the lease to
 * expire and the delivery to be sent again (at least once), never twice at once.
 */
export async function claimDeliveries(db: Queryable, venueId: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>(
    `with heads as (
       select d.id from webhook_deliveries d
       join webhook_endpoints p on p.venue_id = d.venue_id and p.id = d.endpoint_id and p.enabled
       where d.venue_id = $1 and ${CLAIMABLE}
       order by d.seq
       limit $2
       for update of d skip locked
     )
     update webhook_deliveries d
     set leased_until = now() + $3 * interval '1 millisecond', attempts = d.attempts + 1, updated_at = now()
     from heads, webhook_endpoints p, webhook_events ev
     where d.venue_id = $1 and d.id = heads.id
       and p.venue_id = $1 and p.id = d.endpoint_id
       and ev.venue_id = $1 and ev.id = d.event_id
     returning d.id, d.endpoint_id, d.event_id, d.attempts, d.created_at, p.url, p.secret,
               case when p.previous_secret_expires_at > now() then p.previous_secret end as previous_secret, ev.payload`,
    [venueId, limit, leaseMs],
  );
  return rows;
}

export interface AttemptOutcome {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/**
 * What an attempt came to: the attempt row, and the delivery delivered, due again at
 * `retryAt`, or failed for good (`retryAt` null). The endpoint's failing_since follows; it is
 * returned (null after a delivery), for the dispatcher to disable an endpoint failing for a day.
 */
export async function recordAttempt(
  db: Queryable,
  venueId: string,
  delivery: { id: string; endpointId: string; attempt: number },
  outcome: AttemptOutcome,
  result: { delivered: true } | { delivered: false; retryAt: Date | null },
): Promise<{ failingSince: Date | null }> {
  const status = result.delivered ? 'delivered' : result.retryAt ? 'pending' : 'failed';
  const { rows } = await db.query<{ failing_since: Date | null }>(
    `with attempt as (
       insert into webhook_attempts (venue_id, delivery_id, attempt, started_at, duration_ms, status_code, error)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict do nothing
     ), endpoint as (
       update webhook_endpoints set failing_since = case when $8 = 'delivered' then null else coalesce(failing_since, now()) end
       -- A delivery to an endpoint that was not failing changes nothing: no row written on the hot path.
       where venue_id = $1 and id = $10 and ($8 <> 'delivered' or failing_since is not null)
       returning failing_since
     ), delivery as (
       update webhook_deliveries set status = $8, next_attempt_at = coalesce($9, next_attempt_at), leased_until = null,
         last_status_code = $6, last_error = $7, updated_at = now()
       -- The attempt number fences a late answer: once a lease ran out and another instance claimed the
       -- delivery again (attempts moved on), this one's outcome no longer decides its state.
       where venue_id = $1 and id = $2 and attempts = $3 and status = 'pending'
     )
     select failing_since from endpoint`,
    [venueId, delivery.id, delivery.attempt, outcome.startedAt, Math.round(outcome.durationMs), outcome.statusCode, outcome.error,
      status, result.delivered ? null : result.retryAt, delivery.endpointId],
  );
  return { failingSince: rows[0]?.failing_since ?? null };
}

/**
 * Turns an endpoint off and says why (it answered 410 Gone, or failed for a day). Its pending
 * deliveries wait; re-enabling it sends them on.
 */
export async function disableEndpoint(db: Queryable, venueId: string, endpointId: string, reason: string): Promise<void> {
  await db.query(
    'update webhook_endpoints set enabled = false, disabled_reason = $3, failing_since = null, updated_at = now() where venue_id = $1 and id = $2 and enabled',
    [venueId, endpointId, reason],
  );
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

const DELIVERY_COLUMNS = `d.id, d.event_id, ev.type as event_type, d.status, d.attempts, d.last_status_code, d.last_error,
  d.next_attempt_at, d.created_at, d.updated_at`;

/** One endpoint's deliveries, newest first, with the total; and every attempt of those on the page. */
export async function listDeliveries(
  db: Queryable,
  venueId: string,
  endpointId: string,
  limit: number,
  offset: number,
): Promise<{ rows: DeliveryRow[]; total: number; attempts: AttemptRow[] }> {
  const { rows } = await db.query<DeliveryRow & { total: number }>(
    `select ${DELIVERY_COLUMNS}, count(*) over ()::int as total
     from webhook_deliveries d join webhook_events ev on ev.venue_id = d.venue_id and ev.id = d.event_id
     where d.venue_id = $1 and d.endpoint_id = $2
     order by d.seq desc limit $3 offset $4`,
    [venueId, endpointId, limit, offset],
  );
  const total = rows[0]?.total ?? (offset === 0 ? 0 : await countDeliveries(db, venueId, endpointId));
  const attempts = rows.length === 0 ? [] : await attemptsOf(db, venueId, rows.map((r) => r.id));
  return { rows, total, attempts };
}

async function countDeliveries(db: Queryable, venueId: string, endpointId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from webhook_deliveries where venue_id = $1 and endpoint_id = $2', [venueId, endpointId]);
  return rows[0].n;
}

async function attemptsOf(db: Queryable, venueId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
  const { rows } = await db.query<AttemptRow>(
    `select delivery_id, attempt, started_at, duration_ms, status_code, error from webhook_attempts
     where venue_id = $1 and delivery_id = any($2::uuid[]) order by attempt desc`,
    [venueId, deliveryIds],
  );
  return rows;
}

/** One delivery of an endpoint, as the log shows it; null when the endpoint has none with that id. */
export async function findDelivery(db: Queryable, venueId: string, endpointId: string, deliveryId: string): Promise<{ row: DeliveryRow; attempts: AttemptRow[] } | null> {
  const { rows } = await db.query<DeliveryRow>(
    `select ${DELIVERY_COLUMNS}
     from webhook_deliveries d join webhook_events ev on ev.venue_id = d.venue_id and ev.id = d.event_id
     where d.venue_id = $1 and d.endpoint_id = $2 and d.id = $3`,
    [venueId, endpointId, deliveryId],
  );
  if (rows.length === 0) return null;
  return { row: rows[0], attempts: await attemptsOf(db, venueId, [deliveryId]) };
}

/**
 * Queues an event for one endpoint again (a manual retry), as a new delivery at the end of its
 * queue: the event keeps its id, so a receiver that had it already can tell. Returns the new id.
 */
export async function redeliver(db: Queryable, venueId: string, endpointId: string, deliveryId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `insert into webhook_deliveries (venue_id, id, endpoint_id, event_id)
     select venue_id, gen_random_uuid(), endpoint_id, event_id from webhook_deliveries
     where venue_id = $1 and endpoint_id = $2 and id = $3
     returning id`,
    [venueId, endpointId, deliveryId],
  );
  return rows[0]?.id ?? null;
}
