-- Dedup state: one row per (provider, tenant, event_id) while it matters.
-- IN_PROGRESS rows carry the owner token and expire after in_progress_ttl;
-- COMPLETED rows expire after the provider's window.
CREATE TABLE dedup_key (
    provider      TEXT    NOT NULL,
    tenant        TEXT    NOT NULL,
    event_id      TEXT    NOT NULL,
    state         TEXT    NOT NULL CHECK (state IN ('in_progress', 'completed')),
    owner         BLOB,
    body_sha256   BLOB    NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    PRIMARY KEY (provider, tenant, event_id)
) WITHOUT ROWID;

CREATE INDEX dedup_key_expiry ON dedup_key (expires_at_ms);

-- Critical events, forever unique per (provider, tenant, event_id).
CREATE TABLE processed_event (
    id           INTEGER PRIMARY KEY,
    provider     TEXT NOT NULL,
    tenant       TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    event_type   TEXT NOT NULL,
    body_sha256  BLOB NOT NULL,
    body         BLOB NOT NULL,
    content_type TEXT,
    received_at  TEXT NOT NULL,
    UNIQUE (provider, tenant, event_id)
);

-- Requests that reused an event ID with a different body: kept, never applied.
CREATE TABLE conflict_quarantine (
    id                   INTEGER PRIMARY KEY,
    provider             TEXT NOT NULL,
    tenant               TEXT NOT NULL,
    event_id             TEXT NOT NULL,
    event_type           TEXT NOT NULL,
    body_sha256          BLOB NOT NULL,
    body                 BLOB NOT NULL,
    content_type         TEXT,
    received_at          TEXT NOT NULL
);

CREATE INDEX conflict_quarantine_event ON conflict_quarantine (provider, tenant, event_id);
