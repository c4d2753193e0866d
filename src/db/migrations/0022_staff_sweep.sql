-- The hourly sweep of ended console sessions and expired invite links (docs/console.md) finds
-- them by time across venues, a maintenance look-up like the media sweep's.
create index staff_sessions_seen_idx on staff_sessions (last_seen_at);
create index staff_sessions_created_idx on staff_sessions (created_at);
create index staff_invites_expiry_idx on staff_invites (expires_at);
create index staff_sign_in_failures_time_idx on staff_sign_in_failures (failed_at);
