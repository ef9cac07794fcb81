//! Traces through the real binary, at a real OTLP/HTTP collector that
//! decodes what it gets with the `opentelemetry-proto` definitions: a
//! request's spans and their parents and attributes, the attempt's span in
//! the same trace (or linked to it), the `traceparent` the handler gets,
//! the JSON log lines carrying the IDs, an inbound `traceparent` used only
//! when trusted. A collector that fails or wants headers: `traces_collector.rs`.

use std::time::Duration;

use crate::common::otlp::{Collector, Received};
use crate::common::procs::{config, free_port, post, serve_with, wait_ready, KeysGuard, Proc};
use crate::common::sink::{Reply, Sink};
use crate::common::StoreGuard;
use crate::common::{Backend, Webhook};

pub(crate) const WITHIN: Duration = Duration::from_secs(20);

pub(crate) fn telemetry(endpoint: &str, more: &str) -> String {
    format!(
        "[telemetry]\notlp_endpoint = \"{endpoint}\"\nservice_name = \"hookline-under-test\"\n{more}\n"
    )
}

pub(crate) fn named<'a>(spans: &'a [Received], name: &str) -> Vec<&'a Received> {
    spans.iter().filter(|s| s.name() == name).collect()
}

/// A node exporting to a collector and logging JSON at `info`.
struct JsonLogged {
    collector: Collector,
    sink: Sink,
    dir: tempfile::TempDir,
    port: u16,
    _proc: Proc,
    _store: StoreGuard,
    _keys: KeysGuard,
}

impl JsonLogged {
    async fn start(backend: Backend) -> JsonLogged {
        let collector = Collector::start();
        let sink = Sink::start(Vec::new());
        let dir = tempfile::tempdir().unwrap();
        let extra = telemetry(&collector.url, "log_format = \"json\"");
        let (config, store, keys) = config(backend, dir.path(), &sink, &extra).await;
        let port = free_port();
        let proc = serve_with(&config, "all", port, &[("RUST_LOG", "info")]);
        wait_ready(port).await;
        JsonLogged {
            collector,
            sink,
            dir,
            port,
            _proc: proc,
            _store: store,
            _keys: keys,
        }
    }

    /// The log, and its JSON `answered` lines.
    fn answered(&self) -> (String, Vec<serde_json::Value>) {
        let log = std::fs::read_to_string(self.dir.path().join("all-0.log")).unwrap();
        let answered = log
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v.pointer("/fields/message").and_then(|m| m.as_str()) == Some("answered"))
            .collect();
        (log, answered)
    }
}

async fn a_request_and_its_delivery_are_one_trace_at_the_collector(backend: Backend) {
    let node = JsonLogged::start(backend).await;
    let (collector, sink, port) = (&node.collector, &node.sink, node.port);

    let w = Webhook::new("stripe", "acme", "evt_traced", "charge.succeeded", "t");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 200, "{body}");
    let got = sink.wait_for(1, WITHIN).await;
    // The embedded store claims and commits in one step, under
    // `dedup.claim`.
    let steps: &[&str] = match backend {
        Backend::Embedded => &["webhook.verify", "dedup.claim"],
        _ => &["webhook.verify", "dedup.claim", "store.commit"],
    };
    let spans = collector
        .wait_until(WITHIN, |s| {
            ["webhook.receive", "webhook.deliver"]
                .iter()
                .chain(steps)
                .all(|n| !named(s, n).is_empty())
        })
        .await;

    let receive = named(&spans, "webhook.receive")[0];
    assert_eq!(receive.service, "hookline-under-test");
    assert_eq!(
        receive.parent_id(),
        "",
        "the request's span is the trace's root"
    );
    for (key, value) in [
        ("provider", "stripe"),
        ("tenant", "acme"),
        ("event_id", "evt_traced"),
        ("event_type", "charge.succeeded"),
        ("outcome", "accepted"),
        ("status", "200"),
    ] {
        assert_eq!(receive.attr(key).as_deref(), Some(value), "{key}");
    }
    assert_eq!(receive.attr("body_bytes"), Some(w.body.len().to_string()));
    if backend == Backend::Embedded {
        assert!(named(&spans, "store.commit").is_empty(), "one step");
    }
    for &child in steps {
        let child = named(&spans, child)[0];
        assert_eq!(child.trace_id(), receive.trace_id(), "{}", child.name());
        assert_eq!(child.parent_id(), receive.span_id(), "{}", child.name());
    }

    let deliver = named(&spans, "webhook.deliver")[0];
    for (key, value) in [
        ("handler", "billing"),
        ("attempt", "1"),
        ("status", "200"),
        ("outcome", "delivered"),
        ("event_id", "evt_traced"),
    ] {
        assert_eq!(deliver.attr(key).as_deref(), Some(value), "{key}");
    }
    assert!(deliver.attr("latency_ms").is_some());
    // Handed off by the request: in its trace, under its span. Leased
    // instead: a trace of its own that links to the request's span.
    let joined =
        deliver.trace_id() == receive.trace_id() && deliver.parent_id() == receive.span_id();
    let linked = deliver.span.links.iter().any(|l| {
        hex::encode(&l.trace_id) == receive.trace_id()
            && hex::encode(&l.span_id) == receive.span_id()
    });
    assert!(
        joined || linked,
        "the attempt is neither in nor linked to the request's trace"
    );

    // The handler's trace continues the attempt's span.
    let traceparent = got[0].header("traceparent").expect("a traceparent");
    assert_eq!(
        traceparent,
        format!("00-{}-{}-01", deliver.trace_id(), deliver.span_id())
    );

    // The log line answering the request names its trace and span.
    let (log, lines) = node.answered();
    let answered = lines
        .first()
        .unwrap_or_else(|| panic!("no JSON 'answered' line:\n{log}"));
    assert_eq!(
        answered["trace_id"],
        receive.trace_id().as_str(),
        "{answered}"
    );
    assert_eq!(
        answered["span_id"],
        receive.span_id().as_str(),
        "{answered}"
    );
}

async fn a_retry_leased_later_links_to_the_request_that_recorded_it(backend: Backend) {
    // The first attempt is refused with a retry a second later: the second
    // attempt is leased from the store, where the request's trace context
    // was kept with the delivery.
    let collector = Collector::start();
    let sink = Sink::start(vec![Reply::RetryAfter(503, 1)]);
    let dir = tempfile::tempdir().unwrap();
    let extra = telemetry(&collector.url, "");
    let (config, _db, _keys) = config(backend, dir.path(), &sink, &extra).await;
    let port = free_port();
    let _proc = serve_with(&config, "all", port, &[]);
    wait_ready(port).await;

    let w = Webhook::new("stripe", "acme", "evt_retried", "charge.succeeded", "r");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 200, "{body}");
    let got = sink.wait_for(2, WITHIN).await;
    let spans = collector
        .wait_until(WITHIN, |s| named(s, "webhook.deliver").len() >= 2)
        .await;
    let receive = receive_span(&collector, "evt_retried").await;
    let retry = named(&spans, "webhook.deliver")
        .into_iter()
        .find(|s| s.attr("attempt").as_deref() == Some("2"))
        .expect("the second attempt's span");
    assert_eq!(retry.parent_id(), "", "a trace of its own");
    assert!(
        retry.span.links.iter().any(|l| {
            hex::encode(&l.trace_id) == receive.trace_id()
                && hex::encode(&l.span_id) == receive.span_id()
        }),
        "the retry links to the request's span: {:?}",
        retry.span.links
    );
    // The handler's second request continues the retry's own span.
    assert_eq!(
        got[1].header("traceparent"),
        Some(format!("00-{}-{}-01", retry.trace_id(), retry.span_id()).as_str())
    );
}

async fn every_broker_message_carries_its_attempts_traceparent(backend: Backend) {
    let name = crate::common::brokers::test_name();
    let objects = crate::brokers::objects(&name).await;
    let collector = Collector::start();
    let sink = Sink::start(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "{}\n{}",
        crate::brokers::broker_handlers(&name, ""),
        telemetry(&collector.url, "")
    );
    let (config, _db, _keys) = config(backend, dir.path(), &sink, &extra).await;
    let port = free_port();
    let _proc = serve_with(&config, "all", port, &[]);
    wait_ready(port).await;
    let w = Webhook::new("stripe", "acme", "evt_brokered", "charge.succeeded", "m");
    let (status, body) = post(port, &w).await;
    assert_eq!(status, 200, "{body}");

    let spans = collector
        .wait_until(WITHIN, |s| named(s, "webhook.deliver").len() >= 5)
        .await;
    let expected = |handler: &str| {
        let span = named(&spans, "webhook.deliver")
            .into_iter()
            .find(|s| s.attr("handler").as_deref() == Some(handler))
            .unwrap_or_else(|| panic!("no span for {handler}"));
        format!("00-{}-{}-01", span.trace_id(), span.span_id())
    };
    let nats = &objects.nats.wait_for(1, WITHIN).await[0];
    assert_eq!(
        crate::common::brokers::nats_header(nats, "traceparent"),
        Some(expected("to_nats").as_str())
    );
    let rabbit = objects.rabbit.wait_for(1, WITHIN).await;
    assert_eq!(
        rabbit[0].header("traceparent"),
        Some(expected("to_rabbitmq"))
    );
    let mqtt = objects.mqtt.wait_for(1, WITHIN).await;
    assert_eq!(
        mqtt[0].property("traceparent"),
        Some(expected("to_mqtt").as_str())
    );
    let entries = crate::common::brokers::stream_entries(&format!("{name}:stripe"));
    let field = entries[0]
        .1
        .iter()
        .find(|(k, _)| k == "traceparent")
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned());
    assert_eq!(field, Some(expected("to_redis")));
}

/// The receive span of the request whose event ID is `event_id`.
async fn receive_span(collector: &Collector, event_id: &str) -> Received {
    let spans = collector
        .wait_until(WITHIN, |s| {
            named(s, "webhook.receive")
                .iter()
                .any(|r| r.attr("event_id").as_deref() == Some(event_id))
        })
        .await;
    named(&spans, "webhook.receive")
        .into_iter()
        .find(|r| r.attr("event_id").as_deref() == Some(event_id))
        .cloned()
        .unwrap()
}

async fn a_span_keeps_its_warnings_not_every_log_line(backend: Backend) {
    // Every request logs `answered` inside its span; that line is in the
    // log with the span's IDs, and is not copied into the span. A warning
    // (an event ID reused with another body) is.
    let node = JsonLogged::start(backend).await;
    let (collector, port) = (&node.collector, node.port);

    let first = Webhook::new("stripe", "acme", "evt_reused", "charge.succeeded", "one");
    let (status, body) = post(port, &first).await;
    assert_eq!(status, 200, "{body}");
    let other = Webhook::new("stripe", "acme", "evt_reused", "charge.succeeded", "two");
    let (status, body) = post(port, &other).await;
    assert_eq!(status, 422, "{body}");

    let spans = collector
        .wait_until(WITHIN, |s| {
            named(s, "webhook.receive")
                .iter()
                .filter(|r| r.attr("event_id").as_deref() == Some("evt_reused"))
                .count()
                == 2
        })
        .await;
    let receives: Vec<_> = named(&spans, "webhook.receive")
        .into_iter()
        .filter(|r| r.attr("event_id").as_deref() == Some("evt_reused"))
        .collect();
    let by_status = |status: &str| {
        receives
            .iter()
            .find(|r| r.attr("status").as_deref() == Some(status))
            .unwrap_or_else(|| panic!("no receive span with status {status}"))
    };
    let accepted = by_status("200").events();
    assert!(
        accepted.is_empty(),
        "an info line became a span event: {accepted:?}"
    );
    let refused = by_status("422").events();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("quarantined"), "{refused:?}");

    // Both answers are still in the log, each with its span's IDs.
    let (log, answered) = node.answered();
    for status in ["200", "422"] {
        let span = by_status(status);
        assert!(
            answered
                .iter()
                .any(|v| v["trace_id"] == span.trace_id().as_str()
                    && v["span_id"] == span.span_id().as_str()),
            "no answered line for the {status} span:\n{log}"
        );
    }
}

async fn an_inbound_traceparent_is_the_parent_only_when_trusted(backend: Backend) {
    const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    const SPAN: &str = "00f067aa0ba902b7";
    let collector = Collector::start();
    let sink = Sink::start(Vec::new());
    let dir = tempfile::tempdir().unwrap();
    let extra = telemetry(&collector.url, "trust_inbound_trace = true");
    let (config, _db, _keys) = config(backend, dir.path(), &sink, &extra).await;
    let sent_with_trace = |event_id: &str| {
        let mut w = Webhook::new("stripe", "acme", event_id, "charge.succeeded", event_id);
        w.headers
            .push(("traceparent".into(), format!("00-{TRACE}-{SPAN}-01")));
        w
    };

    for (trusted, event_id) in [(true, "evt_trusted"), (false, "evt_untrusted")] {
        let port = free_port();
        let proc = serve_with(
            &config,
            "all",
            port,
            &[(
                "HOOKLINE__TELEMETRY__TRUST_INBOUND_TRACE",
                if trusted { "true" } else { "false" },
            )],
        );
        wait_ready(port).await;
        let (status, body) = post(port, &sent_with_trace(event_id)).await;
        assert_eq!(status, 200, "{body}");
        let receive = receive_span(&collector, event_id).await;
        if trusted {
            assert_eq!(receive.trace_id(), TRACE);
            assert_eq!(receive.parent_id(), SPAN);
        } else {
            assert_ne!(receive.trace_id(), TRACE);
            assert_eq!(receive.parent_id(), "");
        }
        drop(proc);
    }
}

backend_tests!(
    a_request_and_its_delivery_are_one_trace_at_the_collector,
    an_inbound_traceparent_is_the_parent_only_when_trusted,
    a_retry_leased_later_links_to_the_request_that_recorded_it,
    every_broker_message_carries_its_attempts_traceparent,
    a_span_keeps_its_warnings_not_every_log_line,
);
