-- Issue 9 (defect 1) and issue 10. Mirrors migrations/postgres/0003_*.sql.

-- Deliveries keep the digest of the body they carry. They outlive a
-- released claim (`ack = "handlers"`), so the digest is what tells a later
-- request with another body under the same event ID apart: a conflict, not
-- an acceptance. Rows from before this migration keep NULL and are compared
-- by body (SQLite has no SHA-256 to backfill them with).
ALTER TABLE delivery ADD COLUMN body_sha256 BLOB;

-- Identical conflicting requests are counted on one row (unique on
-- provider, tenant, event ID and body digest), with the times the body was
-- first and last seen, instead of one row per retry. SQLite cannot add a
-- constraint to a table: it is rebuilt, folding the rows already there.
CREATE TABLE conflict_quarantine_counted (
    id            INTEGER PRIMARY KEY,
    provider      TEXT    NOT NULL,
    tenant        TEXT    NOT NULL,
    event_id      TEXT    NOT NULL,
    event_type    TEXT    NOT NULL,
    body_sha256   BLOB    NOT NULL,
    body          BLOB    NOT NULL,
    content_type  TEXT,
    copies        INTEGER NOT NULL DEFAULT 1,
    first_seen_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_seen_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (provider, tenant, event_id, body_sha256)
);

-- Rows of one group share their body (same digest), so any row's body,
-- type and content type stand for the group.
INSERT INTO conflict_quarantine_counted
    (provider, tenant, event_id, event_type, body_sha256, body, content_type, copies,
     first_seen_at, last_seen_at)
SELECT provider, tenant, event_id, event_type, body_sha256, body, content_type, COUNT(*),
       MIN(received_at), MAX(received_at)
FROM conflict_quarantine
GROUP BY provider, tenant, event_id, body_sha256;

DROP TABLE conflict_quarantine;
ALTER TABLE conflict_quarantine_counted RENAME TO conflict_quarantine;
