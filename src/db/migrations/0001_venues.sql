-- Venues are the tenant directory: a venue's id is the venue_id every other table carries.
-- A sandbox twin is a venue row of its own whose live_venue_id points at the live venue.
create table venues (
  id uuid primary key,
  live_venue_id uuid references venues (id) on delete cascade,
  slug text not null,
  name text not null,
  plan text not null default 'free' check (plan in ('free', 'standard', 'pro')),
  subscription_status text not null default 'active'
    check (subscription_status in ('active', 'trialing', 'past_due', 'suspended', 'canceled')),
  currency text not null,
  default_language text not null default 'en',
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now()
);
create unique index venues_slug_key on venues (slug);
create unique index venues_sandbox_key on venues (live_venue_id) where live_venue_id is not null;

-- Only a SHA-256 of each key is stored; authentication looks a key up by that hash.
-- venue_id is the live venue; a test-mode key acts on its sandbox twin.
create table api_keys (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid primary key,
  mode text not null check (mode in ('live', 'test')),
  read_only boolean not null default false,
  label text,
  key_hash text not null,
  hint text not null,
  created_at timestamptz(3) not null default now(),
  revoked_at timestamptz(3)
);
create unique index api_keys_hash_key on api_keys (key_hash);
create index api_keys_venue_idx on api_keys (venue_id, created_at);
