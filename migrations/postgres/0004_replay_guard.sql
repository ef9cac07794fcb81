-- Issue 9 (gap 5). Mirrors migrations/sqlite/0004_*.sql.

-- On the redis store the body key of `replay_guard = "body"` providers lives
-- in Redis. If Redis loses it, the critical event's row is what still knows
-- the body was accepted: recording a critical event looks for a row with the
-- same body under another ID within the window, by this index.
CREATE INDEX processed_event_body ON processed_event (provider, tenant, body_sha256);
