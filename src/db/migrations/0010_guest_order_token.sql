-- The guest's handle on an order they placed (docs/guest-page.md): an unguessable token
-- given in the creation response's Location, which reads that order's public view and nothing
-- else. Looked up within the venue named by the URL, like every other query.
alter table orders add column guest_token text;

create unique index orders_guest_token_idx on orders (venue_id, guest_token) where guest_token is not null;
