CREATE TABLE processed_event (
    id BIGSERIAL PRIMARY KEY, provider TEXT NOT NULL, tenant TEXT NOT NULL, event_id TEXT NOT NULL,
    event_type TEXT NOT NULL, body_sha256 BYTEA NOT NULL, body BYTEA NOT NULL, content_type TEXT,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(), forward_headers TEXT, trace_parent TEXT, query TEXT,
    UNIQUE (provider, tenant, event_id));
CREATE INDEX processed_event_body ON processed_event (provider, tenant, body_sha256);
CREATE TABLE delivery (
    event BIGINT NOT NULL, handler TEXT NOT NULL, state SMALLINT NOT NULL, attempts INT NOT NULL DEFAULT 0,
    next_attempt_ms BIGINT NOT NULL, lease_owner TEXT, lease_until_ms BIGINT, updated_ms BIGINT NOT NULL,
    last_status INT, last_error TEXT, PRIMARY KEY (event, handler));
CREATE INDEX delivery_due ON delivery (next_attempt_ms) WHERE state = 0;
CREATE INDEX delivery_due_by_handler ON delivery (handler, next_attempt_ms) WHERE state = 0;
CREATE INDEX delivery_dead ON delivery (handler) WHERE state = 2;
