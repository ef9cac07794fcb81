//! The line `serve` logs once it listens: what runs, where, from which
//! file.

use crate::app::{Application, Role};
use crate::config::{Settings, StoreSettings};

/// What the start-up line says about a `serve` process, taken from its
/// settings before they move into the application.
pub(super) struct Started {
    config: String,
    store: &'static str,
    tls: &'static str,
    traces: bool,
    alerts: bool,
}

impl Started {
    pub(super) fn of(settings: &Settings) -> Started {
        Started {
            config: settings.source.clone(),
            store: match &settings.store {
                StoreSettings::Embedded(_) => "embedded",
                StoreSettings::Redis(r) if !r.redis_cluster.is_empty() => "redis-cluster+postgres",
                StoreSettings::Redis(_) => "redis+postgres",
            },
            tls: if settings.server.tls.is_some() {
                "https"
            } else {
                "http"
            },
            traces: settings.telemetry.otlp_endpoint.is_some(),
            alerts: settings.alerts.is_some(),
        }
    }

    /// One line saying what runs, where, from which file: the first thing
    /// an operator looks for in a log.
    pub(super) fn log(&self, app: &Application, role: Role) {
        tracing::info!(
            version = env!("CARGO_PKG_VERSION"),
            config = %self.config,
            store = self.store,
            ?role,
            port = app.port(),
            ops_port = app.ops_port(),
            tls = self.tls,
            traces = self.traces,
            alerts = self.alerts,
            "hookline is listening ({})",
            match (app.port(), app.ops_port()) {
                (Some(_), Some(_)) => "webhooks on port; /metrics, /admin and /console on ops_port",
                (Some(_), None) => "webhooks, /metrics, /admin and /console on port",
                (None, Some(_)) => "delivery workers; /metrics, /admin and /console on ops_port",
                (None, None) => "delivery workers; no listener",
            }
        );
    }
}
