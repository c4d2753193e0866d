-- The outbox's write as a function (docs/events.md): the event, and one delivery for each
-- enabled endpoint of the venue subscribed to its type, or with p_endpoint (a ping) for that one
-- alone, whatever it subscribes to and whether or not it is enabled; no endpoint, no row. Returns
-- the deliveries' ids.
--
-- Why a function and not CTEs of the caller's statement: PostgreSQL plans a statement sent over
-- the wire each time (PGlite has no named prepared statements), and planning these three parts
-- cost more than running them, on every guest order of a venue with webhooks. PL/pgSQL keeps its
-- statements' plans for the session, so the order's statement only plans a function call.
create function webhook_outbox(p_venue uuid, p_event uuid, p_type text, p_payload text, p_endpoint uuid default null)
returns setof uuid
language plpgsql
as $$
begin
  return query
  with subscribed as (
    select e.id from webhook_endpoints e
    where e.venue_id = p_venue
      and case when p_endpoint is null then e.enabled and p_type = any(e.events) else e.id = p_endpoint end
  ), event as (
    insert into webhook_events (venue_id, id, type, payload)
    select p_venue, p_event, p_type, p_payload where exists (select 1 from subscribed)
    returning webhook_events.id
  )
  insert into webhook_deliveries (venue_id, id, endpoint_id, event_id)
  select p_venue, gen_random_uuid(), s.id, ev.id from subscribed s cross join event ev
  order by s.id
  returning webhook_deliveries.id;
end
$$;
