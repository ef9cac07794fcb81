-- Issue 11. The same in both dialects.

-- Secrets a provider's handshake handed over (Asana's X-Hook-Secret), one per
-- provider and tenant: kept until an operator re-arms the tenant (`hookline
-- handshake reset`), so a second, unproven handshake cannot replace it.
-- They are signing keys, like the configured secrets: protect the database
-- as you protect the configuration.
CREATE TABLE handshake_secret (
    provider  TEXT   NOT NULL,
    tenant    TEXT   NOT NULL,
    secret    TEXT   NOT NULL,
    stored_ms BIGINT NOT NULL,
    PRIMARY KEY (provider, tenant)
);
