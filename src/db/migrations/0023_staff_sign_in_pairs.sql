-- Console sign-in under attack (docs/security.md): failed sign-ins count, and lock, per member and
-- client address (an IPv4 address or an IPv6 /64), so failures from elsewhere never lock the
-- member out where they work; the addresses a member signed in from are remembered for a while,
-- so the per-email slow-down spares them. A lock on the whole member is no more.

alter table staff_members drop column locked_until;

delete from staff_sign_in_failures;
alter table staff_sign_in_failures add column address text not null;
drop index staff_sign_in_failures_idx;
create index staff_sign_in_failures_idx on staff_sign_in_failures (venue_id, staff_id, address, failed_at);

create table staff_sign_in_locks (
  venue_id uuid not null,
  staff_id uuid not null,
  address text not null,
  locked_until timestamptz(3) not null,
  primary key (venue_id, staff_id, address),
  foreign key (venue_id, staff_id) references staff_members (venue_id, id) on delete cascade
);
create index staff_sign_in_locks_time_idx on staff_sign_in_locks (locked_until);

create table staff_sign_in_addresses (
  venue_id uuid not null,
  staff_id uuid not null,
  address text not null,
  signed_in_at timestamptz(3) not null,
  primary key (venue_id, staff_id, address),
  foreign key (venue_id, staff_id) references staff_members (venue_id, id) on delete cascade
);
create index staff_sign_in_addresses_time_idx on staff_sign_in_addresses (signed_in_at);
