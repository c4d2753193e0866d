import type { Queryable } from '../../db/port.js';
import { outboxCall, type OutboxEvent } from './outbox-sql.js';
import type { WebhookEvent } from './webhooks.schemas.js';

/**
 * Writes an event and its deliveries (outboxCall) on their own, in the caller's transaction, with
 * `endpointId` for one endpoint alone. Returns the ids of the deliveries queued.
 */
export async function recordEvent(db: Queryable, venueId: string, event: OutboxEvent, endpointId: string | null = null): Promise<string[]> {
  const params = [venueId, event.id, event.type, event.payload];
  const { rows } = await db.query<{ id: string }>(
    `select id from ${outboxCall({ venue: '$1::uuid', id: '$2::uuid', type: '$3::text', payload: '$4::text', endpoint: endpointId === null ? undefined : '$5::uuid' })} as id`,
    endpointId === null ? params : [...params, endpointId],
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

/** A delivery `d` waiting to be sent that may go now: due, and not leased to an instance sending it. */
const DUE = `d.status = 'pending' and d.next_attempt_at <= now() and (d.leased_until is null or d.leased_until < now())`;

/**
 * The delivery `<alias>` is its endpoint's first pending one (nothing pending ahead of it: one at a
 * time, in order). min() reads one entry of the pending queue's index, however long the queue.
 */
const firstPending = (alias: string) => `${alias}.seq = (
    select min(e.seq) from webhook_deliveries e
    where e.venue_id = ${alias}.venue_id and e.endpoint_id = ${alias}.endpoint_id and e.status = 'pending'
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
     where ${DUE} and ${firstPending('d')}
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
 * Claims due deliveries of one venue: for up to `endpoints` endpoints whose oldest pending
 * delivery is due and not leased, that one and up to `batch` - 1 pending behind it, which the
 * dispatcher sends one after the other (an endpoint's events go out in order), in queue order. Only queue heads
 * are locked with FOR UPDATE SKIP LOCKED: another instance claiming at the same time skips a
 * locked head, and with it that endpoint's whole queue, since nothing behind a pending head is
 * claimable. The claim leases the rows for `leaseMs` and counts the attempt, in one statement: a
 * crash mid-send leaves the lease to expire and the deliveries to be sent again (at least once),
 * never twice at once.
 */
export async function claimDeliveries(
  db: Queryable,
  venueId: string,
  limits: { endpoints: number; batch: number },
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>(
    `with heads as (
       -- For each enabled endpoint, its first delivery that is due, locked (one probe of the pending
       -- queue's index), if it is the endpoint's first pending one. A head another claim holds locked
       -- is skipped, and the one behind it found instead is then refused: never sent out of order.
       select h.venue_id, h.endpoint_id, h.seq from webhook_endpoints p
       cross join lateral (
         select d.venue_id, d.endpoint_id, d.seq from webhook_deliveries d
         where d.venue_id = p.venue_id and d.endpoint_id = p.id and ${DUE}
         order by d.seq
         limit 1
         for update of d skip locked
       ) h
       where p.venue_id = $1 and p.enabled and ${firstPending('h')}
       order by h.seq
       limit $2
     ), batch as materialized (
       select q.id from heads h cross join lateral (
         select e.id from webhook_deliveries e
         where e.venue_id = $1 and e.endpoint_id = h.endpoint_id and e.status = 'pending' and e.seq >= h.seq
         order by e.seq
         limit $4
       ) q
     ), leased as (
       -- Each row by its key (the batch is materialized first): the planner, short of statistics
       -- (PGlite is never analyzed), would otherwise walk the endpoint's whole history.
       update webhook_deliveries d
       set leased_until = now() + $3 * interval '1 millisecond', attempts = d.attempts + 1, updated_at = now()
       from batch
       where d.venue_id = $1 and d.id = batch.id
       returning d.id, d.endpoint_id, d.event_id, d.seq, d.attempts, d.created_at
     )
     select l.id, l.endpoint_id, l.event_id, l.attempts, l.created_at, p.url, p.secret,
            case when p.previous_secret_expires_at > now() then p.previous_secret end as previous_secret, ev.payload
     from leased l
     join webhook_endpoints p on p.venue_id = $1 and p.id = l.endpoint_id
     join webhook_events ev on ev.venue_id = $1 and ev.id = l.event_id
     order by l.seq`,
    [venueId, limits.endpoints, leaseMs, limits.batch],
  );
  return rows;
}

export interface AttemptOutcome {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** A claimed delivery as its batch left it: attempted, with what came of it, or not sent (`outcome` null). */
export interface BatchEntry {
  id: string;
  /** The attempt number the claim gave it (its fence). */
  attempt: number;
  outcome: AttemptOutcome | null;
  /** For an attempt: delivered, due again at `retryAt`, or failed for good (`retryAt` null). */
  result: { delivered: true } | { delivered: false; retryAt: Date | null } | null;
}

/**
 * What one endpoint's claimed batch came to, in one statement: an attempt row and the new state of
 * each delivery sent (delivered, due again after a backoff, or failed), and the lease handed back,
 * with its attempt uncounted, for those not sent (behind a failure, or with too little lease left).
 * The endpoint's failing_since follows the last attempt; it is returned (null after a delivery),
 * for the dispatcher to disable an endpoint failing for a day.
 */
export async function recordBatch(
  db: Queryable,
  venueId: string,
  endpointId: string,
  entries: BatchEntry[],
): Promise<{ failingSince: Date | null }> {
  const rows = entries.map((e) => ({
    id: e.id,
    attempt: e.attempt,
    status: e.result === null ? 'unsent' : e.result.delivered ? 'delivered' : e.result.retryAt ? 'pending' : 'failed',
    retry_at: e.result && !e.result.delivered ? e.result.retryAt : null,
    started_at: e.outcome?.startedAt ?? null,
    duration_ms: e.outcome ? Math.round(e.outcome.durationMs) : null,
    status_code: e.outcome?.statusCode ?? null,
    error: e.outcome?.error ?? null,
  }));
  const last = [...entries].reverse().find((e) => e.result !== null);
  const failing = last !== undefined && last.result !== null && !last.result.delivered;
  const { rows: result } = await db.query<{ failing_since: Date | null }>(
    `with outcome as (
       select * from jsonb_to_recordset($2::jsonb) as r(id uuid, attempt int, status text, retry_at timestamptz,
         started_at timestamptz, duration_ms int, status_code int, error text)
     ), attempt as (
       insert into webhook_attempts (venue_id, delivery_id, attempt, started_at, duration_ms, status_code, error)
       select $1, id, attempt, started_at, duration_ms, status_code, error from outcome where status <> 'unsent'
       on conflict do nothing
     ), endpoint as (
       update webhook_endpoints set failing_since = case when $4 then coalesce(failing_since, now()) else null end
       -- A delivery to an endpoint that was not failing changes nothing: no row written on the hot path.
       where venue_id = $1 and id = $3 and $5 and ($4 or failing_since is not null)
       returning failing_since
     ), delivery as (
       -- Each row by its key, its outcome looked up (the batch is at most 50): joined instead, the
       -- planner, short of statistics (PGlite is never analyzed), read the venue's whole delivery log.
       -- The attempt number is the fence: only the claim that counted it records it, so a late
       -- answer, once a lease ran out and another instance claimed the delivery again (attempts
       -- moved on), no longer decides its state.
       update webhook_deliveries d set
         (status, attempts, next_attempt_at, last_status_code, last_error) = (
           select case when o.status = 'unsent' then 'pending' else o.status end,
                  case when o.status = 'unsent' then d.attempts - 1 else d.attempts end,
                  coalesce(o.retry_at, d.next_attempt_at),
                  case when o.status = 'unsent' then d.last_status_code else o.status_code end,
                  case when o.status = 'unsent' then d.last_error else o.error end
           from outcome o where o.id = d.id
         ),
         leased_until = null, updated_at = now()
       where d.venue_id = $1 and d.id = any($6::uuid[]) and d.attempts = (select o.attempt from outcome o where o.id = d.id)
     )
     select failing_since from endpoint`,
    [venueId, JSON.stringify(rows), endpointId, failing, last !== undefined, rows.map((r) => r.id)],
  );
  return { failingSince: result[0]?.failing_since ?? null };
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

export interface AttemptRow {
  attempt: number;
  /** Milliseconds since the epoch: read as JSON with its delivery (attemptLogColumn). */
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
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
  /** Newest first. */
  attempt_log: AttemptRow[];
}

// A delivery and its attempts are read in one statement, so from one snapshot: read in two, a batch
// recorded between them showed an attempt in the log while the delivery still looked unsent.
const DELIVERY_COLUMNS = `d.id, d.event_id, ev.type as event_type, d.status, d.attempts, d.last_status_code, d.last_error,
  d.next_attempt_at, d.created_at, d.updated_at,
  (select coalesce(json_agg(json_build_object('attempt', a.attempt,
            'started_at', (extract(epoch from a.started_at) * 1000)::bigint, 'duration_ms', a.duration_ms,
            'status_code', a.status_code, 'error', a.error) order by a.attempt desc), '[]')
     from webhook_attempts a where a.venue_id = d.venue_id and a.delivery_id = d.id) as attempt_log`;

/** One endpoint's deliveries, newest first, each with its attempts, and the total. */
export async function listDeliveries(
  db: Queryable,
  venueId: string,
  endpointId: string,
  limit: number,
  offset: number,
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const { rows } = await db.query<DeliveryRow & { total: number }>(
    `select ${DELIVERY_COLUMNS}, count(*) over ()::int as total
     from webhook_deliveries d join webhook_events ev on ev.venue_id = d.venue_id and ev.id = d.event_id
     where d.venue_id = $1 and d.endpoint_id = $2
     order by d.seq desc limit $3 offset $4`,
    [venueId, endpointId, limit, offset],
  );
  const total = rows[0]?.total ?? (offset === 0 ? 0 : await countDeliveries(db, venueId, endpointId));
  return { rows, total };
}

async function countDeliveries(db: Queryable, venueId: string, endpointId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'select count(*)::int as n from webhook_deliveries where venue_id = $1 and endpoint_id = $2',
    [venueId, endpointId],
  );
  return rows[0].n;
}

/** One delivery of an endpoint, with its attempts, as the log shows it; null when the endpoint has none with that id. */
export async function findDelivery(db: Queryable, venueId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow | null> {
  const { rows } = await db.query<DeliveryRow>(
    `select ${DELIVERY_COLUMNS}
     from webhook_deliveries d join webhook_events ev on ev.venue_id = d.venue_id and ev.id = d.event_id
     where d.venue_id = $1 and d.endpoint_id = $2 and d.id = $3`,
    [venueId, endpointId, deliveryId],
  );
  return rows[0] ?? null;
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
