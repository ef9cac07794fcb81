//! What `check-config` prints for valid settings: everything they set up,
//! and never a secret (secrets are counted or shown as `[redacted]`, URLs
//! lose their password).

use std::fmt::Write as _;
use std::time::Duration;

use secrecy::ExposeSecret;

use super::{Settings, StoreSettings};

fn d(d: Duration) -> String {
    crate::text::duration(d)
}

/// A URL with any password replaced, for printing.
fn redact_url(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("[redacted]"));
            }
            u.to_string()
        }
        Err(_) => "[unparseable, redacted]".into(),
    }
}

/// Where a broker handler publishes, as written.
fn destination(h: &super::Handler) -> String {
    use super::DestinationSettings as D;
    match h.destination.get() {
        Some(D::Http) | None => String::new(),
        Some(D::Nats { subject }) => format!(" subject {subject:?}"),
        Some(D::Rabbitmq {
            exchange,
            routing_key,
        }) => format!(" exchange {exchange:?} routing_key {routing_key:?}"),
        Some(D::RedisStream {
            stream,
            maxlen,
            dedup_window,
        }) => format!(
            " stream {stream:?}{} dedup_window {}",
            maxlen.map_or(String::new(), |m| format!(" maxlen ~{m}")),
            d(*dedup_window)
        ),
        Some(D::Mqtt { topic }) => format!(" topic {topic:?}"),
    }
}

fn list<T: ToString>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(T::to_string).collect();
    format!("[{}]", items.join(", "))
}

impl Settings {
    /// The `check-config` summary of these settings, secrets redacted.
    pub fn describe(&self) -> String {
        // Writing to a String cannot fail.
        let mut out = String::new();
        let _ = writeln!(out, "{}: ok", self.source);
        self.describe_server(&mut out);
        self.describe_store(&mut out);
        let _ = writeln!(
            out,
            "dedup: in_progress_ttl {}, window {}",
            d(self.dedup.in_progress_ttl),
            d(self.dedup.window)
        );
        self.describe_providers(&mut out);
        self.describe_handlers(&mut out);
        let dl = &self.delivery;
        let _ = writeln!(
            out,
            "delivery: concurrency {}, poll_interval {}, lease {}, backoff {}..{}",
            dl.concurrency,
            d(dl.poll_interval),
            d(dl.lease),
            d(dl.backoff_base),
            d(dl.backoff_max)
        );
        if let Some(c) = &self.capture {
            let _ = writeln!(out, "capture: {}", c.dir.display());
        }
        let admin = match self.admin.token {
            Some(_) => "enabled (token redacted)",
            None => "disabled",
        };
        let _ = writeln!(out, "admin: {admin}");
        if let Some(ca) = &self.tls.ca_file {
            let _ = writeln!(out, "tls: extra roots from {}", ca.display());
        }
        self.describe_observe(&mut out);
        out
    }

    /// `[telemetry]` and `[alerts]`: where traces and alerts go. The
    /// alerts URL is a secret (a Slack URL carries its token): only its
    /// host is printed.
    fn describe_observe(&self, out: &mut String) {
        let t = &self.telemetry;
        let inbound = if t.trust_inbound_trace {
            "trusted"
        } else {
            "ignored"
        };
        let traces = match &t.otlp_endpoint {
            Some(url) => format!(
                "traces to {} (OTLP/HTTP, service {:?}, sample_ratio {}, queue {})",
                redact_url(url.as_str()),
                t.service_name,
                t.sample_ratio,
                t.max_queued_spans
            ),
            None => "no trace export".to_owned(),
        };
        let logs = match t.log_format {
            super::LogFormat::Text => "text",
            super::LogFormat::Json => "json",
        };
        let _ = writeln!(
            out,
            "telemetry: {traces}, logs {logs}, inbound traceparent {inbound}"
        );
        let Some(a) = &self.alerts else {
            let _ = writeln!(out, "alerts: none");
            return;
        };
        let host = url::Url::parse(a.url.expose_secret())
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        let mut rules = Vec::new();
        if let Some(n) = a.dead_letters {
            rules.push(format!("dead_letters {n}"));
        }
        if let Some(o) = a.circuit_open {
            rules.push(format!("circuit_open {}", d(o)));
        }
        if let Some(b) = a.backlog_age {
            rules.push(format!("backlog_age {}", d(b)));
        }
        let _ = writeln!(
            out,
            "alerts: to {host} [path redacted], {}; at most one per rule and handler every {}, checked every {}",
            rules.join(", "),
            d(a.every),
            d(a.check_interval)
        );
    }

    fn describe_server(&self, out: &mut String) {
        let s = &self.server;
        let _ = writeln!(
            out,
            "server: listen {}, max_body_bytes {}, body_timeout {}, max_buffered_bytes {}",
            s.listen,
            s.max_body_bytes,
            d(s.body_timeout),
            s.max_buffered_bytes
        );
        let _ = writeln!(
            out,
            "  max_buffered_bytes_per_peer {}, max_connections {}, backlog {}",
            s.buffered_bytes_per_peer(),
            s.max_connections,
            s.backlog
        );
        match &s.ops_listen {
            Some(ops) => {
                let _ = writeln!(
                    out,
                    "  ops_listen {ops}: /metrics, /admin and /console there only"
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  no ops_listen: /metrics, /admin and /console on listen"
                );
            }
        }
        if let Some(url) = &s.public_url {
            let _ = writeln!(out, "  public_url {}", url.as_str());
        }
        if !s.trusted_proxies.is_empty() {
            let _ = writeln!(out, "  trusted_proxies {}", list(&s.trusted_proxies));
        }
        if let Some(tls) = &s.tls {
            let _ = writeln!(
                out,
                "  tls: cert {}, key {} [not shown]; max_tls_handshakes {}, tls_handshake_timeout {}",
                tls.cert_file.display(),
                tls.key_file.display(),
                s.max_tls_handshakes,
                d(s.tls_handshake_timeout)
            );
        }
    }

    fn describe_store(&self, out: &mut String) {
        match &self.store {
            StoreSettings::Embedded(s) => {
                let _ = writeln!(out, "store: embedded ({})", s.path.display());
            }
            StoreSettings::Redis(s) => {
                let redis = s
                    .redis_url
                    .iter()
                    .chain(&s.redis_cluster)
                    .map(|u| redact_url(u.expose_secret()))
                    .collect::<Vec<_>>()
                    .join(", ");
                let _ = writeln!(
                    out,
                    "store: redis ({redis}), key prefix {:?}, database {}, pool_size {}, write_concurrency {}, non-critical deliveries in {}",
                    s.key_prefix.as_str(),
                    redact_url(s.database_url.expose_secret()),
                    s.pool_size,
                    s.write_concurrency,
                    match s.non_critical_deliveries {
                        crate::config::DeliveryHome::Postgres => "PostgreSQL",
                        crate::config::DeliveryHome::Redis => "Redis",
                    }
                );
            }
        }
    }

    fn describe_providers(&self, out: &mut String) {
        let _ = writeln!(out, "providers:");
        for (name, p) in &self.providers {
            let rate = match p.rate() {
                Some(r) => format!(", rate_limit {} (burst {})", r.limit, r.burst),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {name} (kind {}, tolerance {}, window {}, ack {}, critical {:?}{rate})",
                p.def.kind,
                d(p.tolerance),
                d(p.window),
                p.ack.as_str(),
                p.critical
            );
            for (tname, t) in &p.tenants {
                let verify = match t.verify_token {
                    Some(_) => ", verify_token [redacted]",
                    None => "",
                };
                let _ = writeln!(
                    out,
                    "    tenant {tname}: {} [redacted]{verify}",
                    crate::text::plural(t.keys.len() as u64, "secret", "secrets")
                );
            }
        }
    }

    fn describe_handlers(&self, out: &mut String) {
        let _ = writeln!(out, "handlers:");
        if self.handlers.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        for (name, h) in &self.handlers {
            let _ = writeln!(
                out,
                "  {name} -> {} {}{} (events {:?}, tenants {:?}, timeout {}, max_attempts {}, concurrency {}, signing_secret {})",
                h.kind.as_str(),
                h.redacted_url(),
                destination(h),
                h.events,
                h.tenants,
                d(h.timeout),
                h.max_attempts,
                h.concurrency,
                if h.signing_key.is_some() { "[redacted]" } else { "(none)" },
            );
            if !h.forward_headers.is_empty() {
                let _ = writeln!(out, "    forward_headers {}", list(&h.forward_headers));
            }
            match (&h.filter_file, &h.filter_setting) {
                (Some(file), _) => {
                    let _ = writeln!(out, "    filter from {}", file.display());
                }
                // Not printed: a filter may compare a header with a token.
                (None, Some(_)) => {
                    let _ = writeln!(out, "    filter (inline)");
                }
                (None, None) => {}
            }
            if let Some(script) = &h.transform_file {
                let timeout = h
                    .transform_timeout
                    .unwrap_or(crate::transform::DEFAULT_TIMEOUT);
                let _ = writeln!(
                    out,
                    "    transform {} (timeout {})",
                    script.display(),
                    d(timeout)
                );
            }
            if let Some(tls) = h.client_tls() {
                let _ = writeln!(
                    out,
                    "    client certificate {}, key {} [not shown]",
                    tls.cert_file.display(),
                    tls.key_file.display()
                );
            }
        }
    }
}
