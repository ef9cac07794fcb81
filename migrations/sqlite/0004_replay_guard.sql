-- Issue 9 (gap 5). Mirrors migrations/postgres/0004_*.sql.

-- The second dedup key of providers that sign the body but not the header
-- carrying the event ID (`replay_guard = "body"`): a body accepted under one
-- ID, resent under a fresh one within the window, is a duplicate. Claimed,
-- completed and released with the event's own `dedup_key` row, in the same
-- transactions; `event_id` names the event that holds it.
CREATE TABLE replay_key (
    provider      TEXT    NOT NULL,
    tenant        TEXT    NOT NULL,
    body_sha256   BLOB    NOT NULL,
    event_id      TEXT    NOT NULL,
    state         TEXT    NOT NULL CHECK (state IN ('in_progress', 'completed')),
    owner         BLOB,
    expires_at_ms INTEGER NOT NULL,
    PRIMARY KEY (provider, tenant, body_sha256)
) WITHOUT ROWID;

CREATE INDEX replay_key_expiry ON replay_key (expires_at_ms);
