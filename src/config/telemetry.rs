//! `[telemetry]`: traces exported over OTLP, and the log format.

use serde::Deserialize;

use super::issues::ConfigIssue;
use super::server::PublicUrl;

/// The largest queue of finished spans `max_queued_spans` may ask for.
const MAX_QUEUE: usize = 1_000_000;

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// `time LEVEL span{fields}: message fields`, for a person.
    #[default]
    Text,
    /// One JSON object per line, for a log collector.
    Json,
}

/// `[telemetry]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct TelemetrySettings {
    /// The OTLP/HTTP collector's base URL (`http://127.0.0.1:4318`); spans
    /// are POSTed as protobuf to its `/v1/traces`. An `http` or `https`
    /// URL without query or credentials. Default none: no span is
    /// exported (log lines still carry `trace_id` and `span_id`, and
    /// handlers still get a `traceparent`).
    pub otlp_endpoint: Option<PublicUrl>,
    /// `service.name` of every span. Default `hookline`.
    pub service_name: String,
    /// The share of traces recorded and exported, 0.0 to 1.0. A trace
    /// continued from a trusted inbound `traceparent` follows its sender's
    /// choice. Default 1.0.
    pub sample_ratio: f64,
    /// `text` or `json`. Default `text`; the environment variable
    /// `HOOKLINE_LOG_FORMAT` wins over it.
    pub log_format: LogFormat,
    /// Whether a request's own `traceparent` (and `tracestate`) becomes the
    /// parent of its `webhook.receive` span. Off by default: anyone can
    /// send one, and a sender could otherwise pick the trace its requests
    /// land in and its sampling.
    pub trust_inbound_trace: bool,
    /// Finished spans waiting for the exporter at most; one more is
    /// dropped and counted (`hookline_spans_dropped_total`), so a slow or
    /// dead collector costs memory up to this and no request. Default
    /// 8192.
    pub max_queued_spans: usize,
}

impl Default for TelemetrySettings {
    fn default() -> Self {
        TelemetrySettings {
            otlp_endpoint: None,
            service_name: "hookline".to_owned(),
            sample_ratio: 1.0,
            log_format: LogFormat::Text,
            trust_inbound_trace: false,
            max_queued_spans: 8192,
        }
    }
}

impl TelemetrySettings {
    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        if !(0.0..=1.0).contains(&self.sample_ratio) {
            issues.push(ConfigIssue::new(
                "telemetry.sample_ratio",
                "must be between 0.0 and 1.0",
            ));
        }
        if self.service_name.trim().is_empty() {
            issues.push(ConfigIssue::new(
                "telemetry.service_name",
                "must not be empty",
            ));
        }
        if !(1..=MAX_QUEUE).contains(&self.max_queued_spans) {
            issues.push(ConfigIssue::new(
                "telemetry.max_queued_spans",
                format!("must be between 1 and {MAX_QUEUE}"),
            ));
        }
        issues
    }

    /// Where spans are POSTed: the endpoint's `/v1/traces`, unless it
    /// names that path already.
    pub fn traces_url(&self) -> Option<String> {
        let url = self.otlp_endpoint.as_ref()?;
        let base = url.as_str().trim_end_matches('/');
        Some(if base.ends_with("/v1/traces") {
            base.to_owned()
        } else {
            format!("{base}/v1/traces")
        })
    }
}
