-- Live availability: sold-out marks on draft products and ingredients, and the
-- venue's opening hours. Neither is menu content: a publish leaves them as they are, and a read
-- compares a mark's `until` with the clock (an expired mark is as good as none until a PUT
-- overwrites or removes it). A deleted product or ingredient takes its mark with it.

create table product_availability (
  venue_id uuid not null,
  product_id uuid not null,
  -- null: sold out until marked available again.
  until timestamptz(3),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, product_id),
  foreign key (venue_id, product_id) references products (venue_id, id) on delete cascade
);

create table ingredient_availability (
  venue_id uuid not null,
  ingredient_id uuid not null,
  until timestamptz(3),
  updated_at timestamptz(3) not null default now(),
  primary key (venue_id, ingredient_id),
  foreign key (venue_id, ingredient_id) references ingredients (venue_id, id) on delete cascade
);

-- { weekly: [{ day, isOpen, openTime?, closeTime? }], exceptions: [{ date, ... }] }; null: always open.
alter table venue_settings add column opening_hours jsonb;
