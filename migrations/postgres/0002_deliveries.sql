-- One row per (event, handler): created in the same transaction that accepts
-- the event, leased by workers (FOR UPDATE SKIP LOCKED + lease column),
-- finished as delivered or dead. Times are milliseconds since the epoch from
-- the database clock, so workers on different hosts agree on leases.
CREATE TABLE delivery (
    id              BIGSERIAL PRIMARY KEY,
    provider        TEXT    NOT NULL,
    tenant          TEXT    NOT NULL,
    event_id        TEXT    NOT NULL,
    handler         TEXT    NOT NULL,
    event_type      TEXT    NOT NULL,
    content_type    TEXT,
    body            BYTEA   NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms BIGINT  NOT NULL,
    lease_owner     TEXT,
    lease_until_ms  BIGINT,
    created_ms      BIGINT  NOT NULL,
    updated_ms      BIGINT  NOT NULL,
    last_status     INTEGER,
    last_error      TEXT,
    UNIQUE (provider, tenant, event_id, handler)
);

-- Workers look for due pending rows; this index holds only those.
CREATE INDEX delivery_due ON delivery (next_attempt_ms) WHERE state = 'pending';
CREATE INDEX delivery_dead ON delivery (handler) WHERE state = 'dead';

CREATE TABLE delivery_attempt (
    id            BIGSERIAL PRIMARY KEY,
    delivery_id   BIGINT  NOT NULL REFERENCES delivery (id) ON DELETE CASCADE,
    attempt       INTEGER NOT NULL,
    started_ms    BIGINT  NOT NULL,
    status        INTEGER,
    latency_ms    BIGINT  NOT NULL,
    response_body TEXT,
    error         TEXT
);

CREATE INDEX delivery_attempt_delivery ON delivery_attempt (delivery_id);
