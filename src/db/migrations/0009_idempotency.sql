-- Idempotency-Key on every /v1 write (docs/security.md): the first response to a key is kept for
-- 24 hours and replayed to a retry with the same request; status_code null = still running.
create table idempotency_keys (
  venue_id uuid not null references venues (id) on delete cascade,
  key text not null,
  request_hash text not null,
  created_at timestamptz(3) not null default now(),
  -- While running: when an instance that died holding the key stops blocking a retry.
  lease_until timestamptz(3),
  status_code integer,
  response_headers jsonb,
  response_body text,
  primary key (venue_id, key)
);

create index idempotency_keys_expiry on idempotency_keys (venue_id, created_at);
