-- Issue 9 (defect 1) and issue 10. Mirrors migrations/sqlite/0003_*.sql.

-- Deliveries keep the digest of the body they carry. They outlive a
-- released claim (`ack = "handlers"`), so the digest is what tells a later
-- request with another body under the same event ID apart: a conflict, not
-- an acceptance. Rows from before this migration keep NULL and are compared
-- by body; backfilling them would rewrite the whole table.
ALTER TABLE delivery ADD COLUMN body_sha256 BYTEA;

-- Identical conflicting requests are counted on one row (unique on
-- provider, tenant, event ID and body digest), with the times the body was
-- first and last seen, instead of one row per retry.
ALTER TABLE conflict_quarantine RENAME COLUMN received_at TO first_seen_at;
ALTER TABLE conflict_quarantine
    ADD COLUMN copies       BIGINT      NOT NULL DEFAULT 1,
    ADD COLUMN last_seen_at TIMESTAMPTZ;

-- Fold the rows already there: the oldest of each body stays, counting the
-- others, which go.
UPDATE conflict_quarantine q
SET copies = g.copies, first_seen_at = g.first_seen, last_seen_at = g.last_seen
FROM (SELECT min(id) AS id, count(*) AS copies, min(first_seen_at) AS first_seen,
             max(first_seen_at) AS last_seen
      FROM conflict_quarantine
      GROUP BY provider, tenant, event_id, body_sha256) g
WHERE q.id = g.id;
DELETE FROM conflict_quarantine WHERE last_seen_at IS NULL;

ALTER TABLE conflict_quarantine
    ALTER COLUMN last_seen_at SET DEFAULT now(),
    ALTER COLUMN last_seen_at SET NOT NULL;

-- The arbiter of the upsert; its prefix serves lookups by event.
DROP INDEX conflict_quarantine_event;
CREATE UNIQUE INDEX conflict_quarantine_copy
    ON conflict_quarantine (provider, tenant, event_id, body_sha256);
