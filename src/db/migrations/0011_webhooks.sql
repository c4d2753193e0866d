-- Webhook endpoints (docs/events.md): where a venue's events are sent, which events, and
-- the secret each delivery is signed with (Standard Webhooks). This is what the management API
-- (/v1/webhooks) keeps; deliveries come with their own tables.

create table webhook_endpoints (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  -- Absolute https URL as the WHATWG parser writes it; its host is checked again at send time.
  url text not null,
  -- In the catalogue's order, each once (src/modules/webhooks/webhooks.schemas.ts).
  events text[] not null check (cardinality(events) > 0),
  description text,
  enabled boolean not null default true,
  -- Why delivery turned the endpoint off; null while enabled or when turned off through the API.
  disabled_reason text,
  -- The mode of the key that created it: a sandbox endpoint receives test-mode events only.
  mode text not null check (mode in ('live', 'test')),
  -- Kept as is, not hashed: every delivery is signed with it. Shown only on create and rotate.
  secret text not null,
  -- After a rotation the replaced secret still signs (and so verifies) until it expires (24 h).
  previous_secret text,
  previous_secret_expires_at timestamptz(3),
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  check ((previous_secret is null) = (previous_secret_expires_at is null))
);
create index webhook_endpoints_order_idx on webhook_endpoints (venue_id, created_at, id);
