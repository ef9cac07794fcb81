-- PostgreSQL holds the durable truth of the `redis` store; the dedup keys
-- themselves live in Redis. Mirrors migrations/sqlite/0001_init.sql.

-- Critical events, forever unique per (provider, tenant, event_id): the row
-- is written before the provider gets its 2xx, and answers for the event
-- when Redis has lost the key.
CREATE TABLE processed_event (
    id           BIGSERIAL   PRIMARY KEY,
    provider     TEXT        NOT NULL,
    tenant       TEXT        NOT NULL,
    event_id     TEXT        NOT NULL,
    event_type   TEXT        NOT NULL,
    body_sha256  BYTEA       NOT NULL,
    body         BYTEA       NOT NULL,
    content_type TEXT,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (provider, tenant, event_id)
);

-- Requests that reused an event ID with a different body: kept, never applied.
CREATE TABLE conflict_quarantine (
    id           BIGSERIAL   PRIMARY KEY,
    provider     TEXT        NOT NULL,
    tenant       TEXT        NOT NULL,
    event_id     TEXT        NOT NULL,
    event_type   TEXT        NOT NULL,
    body_sha256  BYTEA       NOT NULL,
    body         BYTEA       NOT NULL,
    content_type TEXT,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX conflict_quarantine_event ON conflict_quarantine (provider, tenant, event_id);
