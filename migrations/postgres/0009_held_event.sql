-- Issue 23. Mirrors migrations/sqlite/0009_*.sql.

-- A suspected replay: a body its provider signed (but not the event ID),
-- already accepted under another ID within the replay window, came again
-- under a fresh ID (`replay_guard = "body"`). It may be a captured request
-- resent, or a real event whose body repeats one: it is held here, never
-- dropped, until an operator releases it to the handlers
-- (`hookline events release`, the console). Copies under the same ID are
-- counted on the one row.
CREATE TABLE held_event (
    id            BIGSERIAL   PRIMARY KEY,
    provider      TEXT        NOT NULL,
    tenant        TEXT        NOT NULL,
    event_id      TEXT        NOT NULL,
    event_type    TEXT        NOT NULL,
    reason        TEXT        NOT NULL,
    body_sha256   BYTEA       NOT NULL,
    body          BYTEA       NOT NULL,
    content_type  TEXT,
    forwarded     TEXT,
    copies        BIGINT      NOT NULL DEFAULT 1,
    first_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    released_at   TIMESTAMPTZ,
    UNIQUE (provider, tenant, event_id)
);
