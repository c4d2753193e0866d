-- Orders placed by guests, read and moved along by integrations.

-- One row per venue: the order-number sequence and the last order timestamp. Every order write
-- takes this row's lock, so a venue's order writes are serialised and each gets an updated_at
-- strictly after the previous one: a poller using updatedSince never misses a change that
-- commits late (see src/modules/orders/orders.repository.ts).
create table order_clocks (
  venue_id uuid primary key references venues (id) on delete cascade,
  last_number integer not null default 0,
  last_ts timestamptz(3) not null
);

create table orders (
  venue_id uuid not null references venues (id) on delete cascade,
  id uuid not null,
  order_number text not null,
  status text not null check (status in ('new', 'confirmed', 'preparing', 'delivering', 'completed', 'cancelled')),
  type text not null check (type in ('delivery', 'pickup', 'dine_in')),
  customer_name text,
  customer_phone text,
  customer_email text,
  delivery_address text,
  delivery_notes text,
  payment_method text not null check (payment_method in ('cash', 'terminal', 'online')),
  comment text,
  change_from_amount integer,
  scheduled_for timestamptz(3),
  table_id text,
  currency text not null,
  subtotal_amount integer not null,
  delivery_fee integer not null,
  discount_amount integer not null,
  total_amount integer not null,
  publication_id uuid,
  created_at timestamptz(3) not null,
  updated_at timestamptz(3) not null,
  confirmed_at timestamptz(3),
  completed_at timestamptz(3),
  primary key (venue_id, id)
);
-- Polling (updatedSince, ascending) and listing (createdAt, descending), with and without a
-- status filter: every list shape is an index range scan.
create index orders_updated_idx on orders (venue_id, updated_at, id);
create index orders_created_idx on orders (venue_id, created_at desc, id desc);
create index orders_status_created_idx on orders (venue_id, status, created_at desc, id desc);
create index orders_status_updated_idx on orders (venue_id, status, updated_at, id);

create table order_items (
  venue_id uuid not null,
  order_id uuid not null,
  position integer not null,
  product_id uuid,
  product_external_id text,
  product_name text not null,
  quantity integer not null,
  unit_price integer not null,
  total_price integer not null,
  primary key (venue_id, order_id, position),
  foreign key (venue_id, order_id) references orders (venue_id, id) on delete cascade
);

create table order_item_modifiers (
  venue_id uuid not null,
  order_id uuid not null,
  item_position integer not null,
  position integer not null,
  group_name text not null,
  ingredient_external_id text,
  ingredient_name text not null,
  price_adjustment integer not null,
  quantity integer not null,
  primary key (venue_id, order_id, item_position, position),
  foreign key (venue_id, order_id) references orders (venue_id, id) on delete cascade
);

-- Idempotency-Key replays of guest orders (24 h).
create table order_idempotency_keys (
  venue_id uuid not null references venues (id) on delete cascade,
  key text not null,
  request_hash text not null,
  order_id uuid not null,
  created_at timestamptz(3) not null default now(),
  primary key (venue_id, key)
);
