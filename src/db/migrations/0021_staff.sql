-- Staff and the venue console: the people of a venue, their one-use invite links,
-- their console sessions and the failed sign-ins that lock an email for a while. Tokens are kept
-- as sha256 hashes only; passwords as scrypt hashes. The look-ups by token hash and by email are
-- cross-venue by nature (they find the tenant), like an API key's by hash.

create table staff_members (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  -- Kept in lower case: an email is unique per venue whatever its case.
  email text not null,
  name text not null,
  role text not null check (role in ('owner', 'manager', 'staff')),
  disabled boolean not null default false,
  -- scrypt$N$r$p$salt$hash; null until the invite link sets it (status `invited`).
  password_hash text,
  -- Set when the fifth failed sign-in within 15 minutes lands; sign-in is refused until then.
  locked_until timestamptz(3),
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null,
  primary key (venue_id, id)
);
create unique index staff_members_email_idx on staff_members (venue_id, email);
-- Directory look-ups: the operator API names a member by id alone; sign-in by email alone.
create unique index staff_members_id_idx on staff_members (id);
create index staff_members_by_email_idx on staff_members (email);

create table staff_invites (
  venue_id uuid not null,
  id uuid not null,
  staff_id uuid not null,
  token_hash text not null,
  created_at timestamptz(3) not null,
  expires_at timestamptz(3) not null,
  primary key (venue_id, id),
  foreign key (venue_id, staff_id) references staff_members (venue_id, id) on delete cascade
);
create unique index staff_invites_token_idx on staff_invites (token_hash);
create index staff_invites_member_idx on staff_invites (venue_id, staff_id);

create table staff_sessions (
  venue_id uuid not null,
  id uuid not null,
  staff_id uuid not null,
  token_hash text not null,
  created_at timestamptz(3) not null,
  last_seen_at timestamptz(3) not null,
  primary key (venue_id, id),
  foreign key (venue_id, staff_id) references staff_members (venue_id, id) on delete cascade
);
create unique index staff_sessions_token_idx on staff_sessions (token_hash);
create index staff_sessions_member_idx on staff_sessions (venue_id, staff_id);

create table staff_sign_in_failures (
  venue_id uuid not null,
  staff_id uuid not null,
  failed_at timestamptz(3) not null,
  foreign key (venue_id, staff_id) references staff_members (venue_id, id) on delete cascade
);
create index staff_sign_in_failures_idx on staff_sign_in_failures (venue_id, staff_id, failed_at);
