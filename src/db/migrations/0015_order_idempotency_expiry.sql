-- Guest orders' Idempotency-Keys are kept 24 hours: expired ones are deleted by venue and age.
create index order_idempotency_keys_expiry on order_idempotency_keys (venue_id, created_at);
