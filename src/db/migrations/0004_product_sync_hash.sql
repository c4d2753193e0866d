-- The hash of the sync item that last wrote each product (src/modules/menu/sync.planner.ts):
-- an identical item is skipped without reading the full row. Any other writer clears it.
alter table products add column sync_hash text;
