-- The guest page's look: { accentColor } as sent ('#rrggbb' or null); a missing row or
-- null column is Carta's own look.
alter table venue_settings add column theme jsonb;
