-- Issue 23. Mirrors migrations/postgres/0009_*.sql: events held as
-- suspected replays until an operator releases them.
CREATE TABLE held_event (
    id            INTEGER PRIMARY KEY,
    provider      TEXT    NOT NULL,
    tenant        TEXT    NOT NULL,
    event_id      TEXT    NOT NULL,
    event_type    TEXT    NOT NULL,
    reason        TEXT    NOT NULL,
    body_sha256   BLOB    NOT NULL,
    body          BLOB    NOT NULL,
    content_type  TEXT,
    forwarded     TEXT,
    copies        INTEGER NOT NULL DEFAULT 1,
    first_seen_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_seen_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    released_at   TEXT,
    UNIQUE (provider, tenant, event_id)
);
