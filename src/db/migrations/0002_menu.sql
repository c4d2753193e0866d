-- The draft menu. Rows are matched by (venue_id, external_id); items created elsewhere (the
-- venue's management app) have a null external_id, which the unique index allows any number of.

create table categories (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  external_id text,
  name text not null,
  sort_order integer not null default 0,
  schedule jsonb not null default '[]',
  card_style text,
  is_active boolean not null default true,
  translations jsonb not null default '{}',
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  unique (venue_id, external_id)
);

create table ingredients (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  external_id text,
  name text not null,
  sort_order integer not null default 0,
  translations jsonb not null default '{}',
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  unique (venue_id, external_id)
);

-- Composition (ingredient_ids) and modifier groups live on the product row: a sync replaces
-- them wholesale, so one row per product keeps every write a single statement.
-- modifier_groups: [{ id, name, type, isRequired, sortOrder, translations,
--                     options: [{ id, ingredientId, action, priceAdjustment, sortOrder }] }]
create table products (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  external_id text,
  name text not null,
  description text,
  price_minor integer not null,
  sale_price_minor integer,
  is_sale_active boolean not null default false,
  amount integer,
  unit text,
  badge_label text,
  badge_color text,
  category_id uuid,
  ingredient_ids uuid[] not null default '{}',
  modifier_groups jsonb not null default '[]',
  sort_order integer not null default 0,
  menu_visible boolean not null default true,
  -- Set by cleanup (soft delete); a later sync of the externalId clears it.
  cleaned_up_at timestamptz(3),
  image_url text,
  translations jsonb not null default '{}',
  -- Bumped on every change through any path; the product ETag is derived from it.
  revision integer not null default 1,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  unique (venue_id, external_id),
  foreign key (venue_id, category_id) references categories (venue_id, id) on delete set null (category_id)
);
create index products_category_idx on products (venue_id, category_id);

-- Venue settings; one row per venue, created lazily with the defaults.
create table venue_settings (
  venue_id uuid primary key references venues (id) on delete cascade,
  enabled_languages text[] not null,
  card_style text not null default 'minimalism',
  timezone text not null default 'UTC',
  order_config jsonb not null default '{}',
  revision integer not null default 1,
  updated_at timestamptz(3) not null default now()
);

-- Every write to the draft menu bumps draft_version in the same transaction, so any instance can
-- tell with one indexed read whether its cached serialised menu is still current.
create table menu_state (
  venue_id uuid primary key references venues (id) on delete cascade,
  draft_version bigint not null default 0,
  latest_publication_id uuid
);

-- Immutable published snapshots: the document is the published read, frozen.
create table menu_publications (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  published_at timestamptz(3) not null default now(),
  -- json, not jsonb: the document is kept byte for byte as it was serialised at publish time.
  document json not null,
  counts jsonb not null,
  primary key (venue_id, id)
);
create index menu_publications_latest_idx on menu_publications (venue_id, published_at desc, id desc);

-- One entry per mutating /v1 call, written in the call's transaction.
create table audit_log (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  action text not null,
  entity_type text not null,
  entity_ref text,
  changes jsonb not null,
  request_id text not null,
  source text not null,
  created_at timestamptz(3) not null default now(),
  primary key (venue_id, id)
);
create index audit_log_recent_idx on audit_log (venue_id, created_at desc, id desc);
create index audit_log_action_idx on audit_log (venue_id, action, created_at desc, id desc);
