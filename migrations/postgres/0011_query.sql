-- Issue 27. The same in both dialects.

-- The query string of the request an event came in (without `?`, a
-- `query-token` scheme's token redacted): handlers' filters match it and
-- transformations see it as `request.query`. NULL when there was none,
-- and for rows recorded before this migration.
ALTER TABLE delivery ADD COLUMN query TEXT;
ALTER TABLE held_event ADD COLUMN query TEXT;
