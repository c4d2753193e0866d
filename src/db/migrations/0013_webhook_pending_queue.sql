-- An endpoint's pending queue alone. Claims and the due look-up ask whether a delivery has a pending
-- one ahead of it on its endpoint; on webhook_deliveries_endpoint_idx that walks every delivery the
-- endpoint ever had before it (delivered ones included), so the cost grew with the log's history.
create index webhook_deliveries_pending_idx on webhook_deliveries (venue_id, endpoint_id, seq) where status = 'pending';
