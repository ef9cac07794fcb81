-- Issue 28. The same in both dialects.

-- The W3C `traceparent` of the request that recorded the delivery (its
-- `webhook.receive` span): an attempt leased later, by any node, links its
-- own span to the request's trace. NULL when the request had none, and for
-- deliveries recorded before this migration.
ALTER TABLE delivery ADD COLUMN trace_parent TEXT;

-- The alert rules' state per rule and handler, shared by every node of one
-- store: a node sends an alert only when it is the one that turns `firing`
-- on (and not within `alerts.every` of the last), a resolve only when it
-- turns it off, so N nodes send one alert, not N.
CREATE TABLE alert_state (
    rule     TEXT    NOT NULL,
    handler  TEXT    NOT NULL,
    firing   INTEGER NOT NULL,
    sent_ms  BIGINT  NOT NULL,
    PRIMARY KEY (rule, handler)
);
