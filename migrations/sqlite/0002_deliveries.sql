-- One row per (event, handler): created in the same transaction that accepts
-- the event, leased by workers, finished as delivered or dead.
CREATE TABLE delivery (
    id              INTEGER PRIMARY KEY,
    provider        TEXT    NOT NULL,
    tenant          TEXT    NOT NULL,
    event_id        TEXT    NOT NULL,
    handler         TEXT    NOT NULL,
    event_type      TEXT    NOT NULL,
    content_type    TEXT,
    body            BLOB    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    lease_owner     TEXT,
    lease_until_ms  INTEGER,
    created_ms      INTEGER NOT NULL,
    updated_ms      INTEGER NOT NULL,
    last_status     INTEGER,
    last_error      TEXT,
    UNIQUE (provider, tenant, event_id, handler)
);

-- Workers look for due, unleased pending rows.
CREATE INDEX delivery_due ON delivery (state, next_attempt_ms);

-- Every attempt, for operators.
CREATE TABLE delivery_attempt (
    id            INTEGER PRIMARY KEY,
    delivery_id   INTEGER NOT NULL REFERENCES delivery (id) ON DELETE CASCADE,
    attempt       INTEGER NOT NULL,
    started_ms    INTEGER NOT NULL,
    status        INTEGER,
    latency_ms    INTEGER NOT NULL,
    response_body TEXT,
    error         TEXT
);

CREATE INDEX delivery_attempt_delivery ON delivery_attempt (delivery_id);
