-- Webhook delivery (docs/events.md): an outbox of events written in the transaction of the
-- change that causes them, one delivery per subscribed endpoint, and every attempt made.

create table webhook_events (
  venue_id uuid not null references venues (id) on delete cascade,
  -- uuid v7; also the webhook-id header, so a receiver deduplicates retries by it.
  id uuid not null,
  type text not null,
  -- The body as signed and sent, the same bytes on every attempt.
  payload text not null,
  created_at timestamptz(3) not null default now(),
  primary key (venue_id, id)
);

create table webhook_deliveries (
  venue_id uuid not null,
  id uuid not null,
  endpoint_id uuid not null,
  event_id uuid not null,
  -- Allocated in the event's transaction: an endpoint's deliveries go out in this order, one at a
  -- time. Order events are written under the venue's order lock, so for them it is commit order.
  seq bigint generated always as identity,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts int not null default 0,
  next_attempt_at timestamptz(3) not null default now(),
  -- While an instance is sending it, no other may (claimed with FOR UPDATE SKIP LOCKED, then leased).
  leased_until timestamptz(3),
  last_status_code int,
  last_error text,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  foreign key (venue_id, endpoint_id) references webhook_endpoints (venue_id, id) on delete cascade,
  foreign key (venue_id, event_id) references webhook_events (venue_id, id) on delete cascade
);
-- An endpoint's queue in order, and its list newest first.
create index webhook_deliveries_endpoint_idx on webhook_deliveries (venue_id, endpoint_id, seq);
-- The dispatcher's look-up of venues with work due (a maintenance look-up across venues, like the media sweep).
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at, venue_id) where status = 'pending';

create table webhook_attempts (
  venue_id uuid not null,
  delivery_id uuid not null,
  attempt int not null,
  started_at timestamptz(3) not null,
  duration_ms int not null,
  status_code int,
  error text,
  primary key (venue_id, delivery_id, attempt),
  foreign key (venue_id, delivery_id) references webhook_deliveries (venue_id, id) on delete cascade
);

-- An endpoint that keeps failing is disabled after a day: since when it has been failing.
alter table webhook_endpoints add column failing_since timestamptz(3);
