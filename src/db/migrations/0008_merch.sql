-- Merchandising: banners, promotions with items, QR tables. They act live:
-- guests see them by their schedule, without a publish (docs/merchandising.md).
--
-- Schedules (starts_at, ends_at) are kept as sent, normalised: 'YYYY-MM-DDTHH:MM:SS' is a wall-clock
-- time in the venue's timezone setting, and a value with 'Z' is an instant (UTC, milliseconds).

create table banners (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  external_id text,
  title text not null,
  subtitle text,
  link_url text,
  product_id uuid,
  is_active boolean not null default true,
  sort_order integer not null default 0,
  starts_at text,
  ends_at text,
  translations jsonb not null default '{}',
  -- As products.image: { width, height, bytes, variants: [{ key, width, height, bytes }] }.
  image jsonb,
  revision integer not null default 1,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  unique (venue_id, external_id),
  -- A deleted product leaves the banner, unlinked.
  foreign key (venue_id, product_id) references products (venue_id, id) on delete set null (product_id)
);
create index banners_order_idx on banners (venue_id, sort_order, created_at, id);
create index banners_product_idx on banners (venue_id, product_id);

create table promotions (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  external_id text,
  name text not null,
  description text,
  is_active boolean not null default true,
  sort_order integer not null default 0,
  starts_at text,
  ends_at text,
  revision integer not null default 1,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  unique (venue_id, external_id)
);
create index promotions_order_idx on promotions (venue_id, sort_order, created_at, id);

create table promotion_items (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  promotion_id uuid not null,
  product_id uuid not null,
  promo_price_minor integer,
  sort_order integer not null default 0,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  -- A product is in a promotion once (409 DUPLICATE_PROMOTION_ITEM), decided by the database.
  constraint promotion_items_product_key unique (venue_id, promotion_id, product_id),
  foreign key (venue_id, promotion_id) references promotions (venue_id, id) on delete cascade,
  -- A deleted product drops out of every promotion.
  foreign key (venue_id, product_id) references products (venue_id, id) on delete cascade
);
create index promotion_items_product_idx on promotion_items (venue_id, product_id);

create table venue_tables (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  external_id text,
  name text not null,
  seats integer,
  zone text,
  is_active boolean not null default true,
  -- The unguessable part of the table's QR link (PUBLIC_BASE_URL/t/<token>).
  token text not null,
  revision integer not null default 1,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, id),
  unique (venue_id, external_id)
);
-- "Table 1" and "table 1" are one name (409 TABLE_NAME_ALREADY_EXISTS, decided by the database).
create unique index venue_tables_name_key on venue_tables (venue_id, lower(name));
create index venue_tables_order_idx on venue_tables (venue_id, lower(name), id);
-- The guest's look-up of a QR link: a directory look-up across venues, like a venue by slug.
create unique index venue_tables_token_key on venue_tables (token);

-- An order keeps its table's name as it was (like item names).
alter table orders add column table_name text;
