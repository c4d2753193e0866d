-- The hash of the sync item that last wrote each category and ingredient, as for products (0004):
-- an identical item is skipped without reading the full row. Any other writer clears it.
alter table categories add column sync_hash text;
alter table ingredients add column sync_hash text;
