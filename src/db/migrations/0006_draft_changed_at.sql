-- When the draft last changed: the draft menu document's generatedAt. Every instance then builds
-- the same bytes (and ETag) for one draft version, before and after a restart, so a client's
-- If-None-Match is honoured by whichever instance it reaches.
alter table menu_state add column draft_changed_at timestamptz(3) not null default now();
