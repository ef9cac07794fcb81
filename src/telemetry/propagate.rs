//! W3C Trace Context (`traceparent`, `tracestate`): read from a request
//! whose sender is trusted with it, written on each delivery attempt so a
//! handler's own trace continues hookline's, and kept with a handed-off
//! delivery so its attempt joins the request's trace.

use std::collections::HashMap;

use actix_web::http::header::HeaderMap;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::TraceContextExt;
use opentelemetry::Context;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// A span's trace context as the two W3C headers carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceHeaders {
    /// `00-TRACE_ID-SPAN_ID-FLAGS`.
    pub traceparent: String,
    /// The vendors' entries, when there are any.
    pub tracestate: Option<String>,
}

impl TraceHeaders {
    /// The headers of `span`, or `None` when it belongs to no trace (no
    /// tracer is installed, or the span is disabled).
    pub fn of(span: &tracing::Span) -> Option<TraceHeaders> {
        let cx = span.context();
        if !cx.span().span_context().is_valid() {
            return None;
        }
        let mut map = HashMap::new();
        TraceContextPropagator::new().inject_context(&cx, &mut map);
        Some(TraceHeaders {
            traceparent: map.remove("traceparent")?,
            tracestate: map.remove("tracestate").filter(|s| !s.is_empty()),
        })
    }

    /// The context these headers name, if `traceparent` is well formed.
    pub fn context(&self) -> Option<Context> {
        let mut map = HashMap::from([("traceparent".to_owned(), self.traceparent.clone())]);
        if let Some(state) = &self.tracestate {
            map.insert("tracestate".to_owned(), state.clone());
        }
        valid(TraceContextPropagator::new().extract(&map))
    }

    /// The headers as `(name, value)` pairs, `traceparent` first.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let mut pairs = vec![("traceparent".to_owned(), self.traceparent.clone())];
        if let Some(state) = &self.tracestate {
            pairs.push(("tracestate".to_owned(), state.clone()));
        }
        pairs
    }
}

/// Make `span` follow the request whose `traceparent` it was recorded
/// with: its child when `joined` (the attempt runs on the request's
/// hand-off), else a trace of its own with a link to the request's span.
pub fn follow(span: &tracing::Span, traceparent: Option<&str>, joined: bool) {
    let Some(request) = traceparent.and_then(|t| {
        TraceHeaders {
            traceparent: t.to_owned(),
            tracestate: None,
        }
        .context()
    }) else {
        return;
    };
    if joined {
        // Only fails once the span was entered, and it was not yet.
        let _ = span.set_parent(request);
    } else {
        span.add_link(request.span().span_context().clone());
    }
}

/// The trace context a request's own headers carry, if well formed.
pub fn inbound(headers: &HeaderMap) -> Option<Context> {
    valid(TraceContextPropagator::new().extract(&Headers(headers)))
}

fn valid(cx: Context) -> Option<Context> {
    cx.span().span_context().is_valid().then_some(cx)
}

struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_headers_name_a_context_and_others_none() {
        let good = TraceHeaders {
            traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
            tracestate: Some("congo=t61rcWkgMzE".into()),
        };
        let cx = good.context().expect("a context");
        let sc = cx.span().span_context().clone();
        assert_eq!(
            sc.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(sc.span_id().to_string(), "00f067aa0ba902b7");
        assert!(sc.is_sampled());
        for bad in [
            "",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "xx-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            let h = TraceHeaders {
                traceparent: bad.into(),
                tracestate: None,
            };
            assert!(h.context().is_none(), "{bad}");
        }
    }
}
