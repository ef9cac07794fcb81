-- Issue 14: the verdict log and shared console sessions.

-- The verdict log: one row per verified request (accepted,
-- duplicate, conflict, replay), for the console's event list. Names, the
-- body's digest and size: never a body, and never a request that failed
-- verification. Written in batches off the request path; an operator aid,
-- not a record the receiver relies on (dedup keys and processed_event are
-- the truth). Pruned past the longest dedup window.
CREATE TABLE request_verdict (
    id          BIGSERIAL PRIMARY KEY,
    provider    TEXT   NOT NULL,
    tenant      TEXT   NOT NULL,
    event_id    TEXT   NOT NULL,
    event_type  TEXT   NOT NULL,
    verdict     TEXT   NOT NULL
        CHECK (verdict IN ('accepted', 'duplicate', 'conflict', 'replay')),
    body_sha256 BYTEA  NOT NULL,
    body_bytes  BIGINT NOT NULL,
    received_ms BIGINT NOT NULL
);

-- Pruning, and the list's time range.
CREATE INDEX request_verdict_received ON request_verdict (received_ms);
-- An event's own requests (its page), and find by ID.
CREATE INDEX request_verdict_event ON request_verdict (provider, tenant, event_id);

-- Console sessions, in the shared store so that every node behind a load
-- balancer knows them: the SHA-256 of the session ID (the cookie carries
-- the ID; a reader of this table cannot sign in with what it holds), the
-- session's CSRF token, and its expiry.
CREATE TABLE console_session (
    id_sha256  BYTEA PRIMARY KEY,
    csrf       TEXT   NOT NULL,
    expires_ms BIGINT NOT NULL
);
