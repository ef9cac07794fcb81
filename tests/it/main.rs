//! The black-box suite, one test binary: each module is one area of
//! hookline tested through its public surface (the binary, HTTP, the
//! library API) against real stores. `crash_matrix` stays a binary of its
//! own because it needs the `failpoints` feature.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod ack_conflict;
mod ack_dead;
mod answers;
mod api;
mod apple_app_store;
mod attempt_order;
mod body_flood;
mod broker_config;
mod broker_crash;
mod broker_faults;
mod broker_restart;
mod broker_tls;
mod brokers;
mod capture;
mod cert_fetches;
mod cert_url;
mod check_config;
mod cli;
mod console;
mod console_browser;
mod console_csrf;
mod console_filters;
mod console_hostile;
mod console_sessions;
mod corpus;
mod crash;
mod dedup;
mod definitions;
mod delivery;
mod deploy;
mod docker_files;
mod embedded_lane;
mod event_report;
mod external_url;
mod faults;
mod fidelity;
mod forward_headers;
mod fuzz_smoke;
mod graph_secret;
mod gzip_bodies;
mod handshake_kinds;
mod handshake_print;
mod handshakes;
mod held;
mod hmac;
mod hostile_config;
mod ingest;
mod isolation;
mod log_output;
mod migrations;
mod oncall_metrics;
mod operator_cli;
mod operator_input;
mod ops_listener;
mod providers_doc;
mod public_keys;
mod published_keys;
mod published_secrets;
mod rate_limits;
mod redis_store;
mod replay_guard;
mod schemes;
mod shutdown;
mod slow_bodies;
mod sns_hosts;
mod sns_members;
mod store_contract;
mod store_tls;
mod stored_handshake;
mod tls;
mod tls_flood;
mod tls_reload;
mod vectors;
mod verdict_log;
