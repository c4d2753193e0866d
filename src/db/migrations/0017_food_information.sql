-- Food information: allergens on ingredients; declared allergens, traces, dietary
-- labels, spice level, calories and nutrition per portion on products. Code lists are kept in the
-- reference's order; nutrition as sent ({ fat, saturatedFat, ... } in grams), null when unset.

alter table ingredients add column allergens text[] not null default '{}';

alter table products
  add column allergens text[] not null default '{}',
  add column may_contain text[] not null default '{}',
  add column dietary_labels text[] not null default '{}',
  add column spice_level smallint,
  add column calories integer,
  add column nutrition jsonb;
