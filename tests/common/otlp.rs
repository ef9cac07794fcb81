//! A real local OTLP/HTTP collector: it decodes each `POST /v1/traces`
//! with the `opentelemetry-proto` definitions and keeps the spans. It can
//! also stand for a collector that takes a connection and never answers.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::http::header::HeaderMap;
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
pub use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// A span as received, with its resource's `service.name`.
#[derive(Debug, Clone)]
pub struct Received {
    pub service: String,
    pub span: Span,
}

impl Received {
    pub fn name(&self) -> &str {
        &self.span.name
    }
    pub fn trace_id(&self) -> String {
        hex::encode(&self.span.trace_id)
    }
    pub fn span_id(&self) -> String {
        hex::encode(&self.span.span_id)
    }
    pub fn parent_id(&self) -> String {
        hex::encode(&self.span.parent_span_id)
    }
    /// An attribute's value as text (strings bare, numbers in decimal).
    pub fn attr(&self, key: &str) -> Option<String> {
        let kv = self.span.attributes.iter().find(|kv| kv.key == key)?;
        Some(match kv.value.as_ref()?.value.as_ref()? {
            Value::StringValue(s) => s.clone(),
            Value::IntValue(i) => i.to_string(),
            Value::BoolValue(b) => b.to_string(),
            Value::DoubleValue(d) => d.to_string(),
            other => format!("{other:?}"),
        })
    }
    /// Each of the span's events: its name and its text attributes.
    pub fn events(&self) -> Vec<String> {
        self.span
            .events
            .iter()
            .map(|e| {
                let texts = e.attributes.iter().filter_map(|kv| {
                    match kv.value.as_ref()?.value.as_ref()? {
                        Value::StringValue(s) => Some(format!("{}={s}", kv.key)),
                        _ => None,
                    }
                });
                std::iter::once(e.name.clone())
                    .chain(texts)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }
}

#[derive(Clone)]
pub struct Collector {
    /// The base URL, as `telemetry.otlp_endpoint` takes it.
    pub url: String,
    got: Got,
}

/// What the collector received: the spans, and each request's headers.
#[derive(Clone, Default)]
struct Got {
    spans: Arc<Mutex<Vec<Received>>>,
    headers: Arc<Mutex<Vec<HeaderMap>>>,
}

async fn traces(req: HttpRequest, body: web::Bytes, got: web::Data<Got>) -> HttpResponse {
    got.headers.lock().unwrap().push(req.headers().clone());
    let Ok(req) = ExportTraceServiceRequest::decode(body.as_ref()) else {
        return HttpResponse::BadRequest().finish();
    };
    let mut got = got.spans.lock().unwrap();
    for rs in req.resource_spans {
        let service = rs
            .resource
            .iter()
            .flat_map(|r| &r.attributes)
            .find(|kv| kv.key == "service.name")
            .and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
                Value::StringValue(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_default();
        for ss in rs.scope_spans {
            for span in ss.spans {
                got.push(Received {
                    service: service.clone(),
                    span,
                });
            }
        }
    }
    HttpResponse::Ok()
        .content_type("application/x-protobuf")
        .body(ExportTraceServiceResponse::default().encode_to_vec())
}

impl Collector {
    /// Start on a random port.
    pub fn start() -> Collector {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Got::default();
        let data = web::Data::new(got.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(web::PayloadConfig::new(64 << 20))
                .route("/v1/traces", web::post().to(traces))
        })
        .workers(1)
        .listen(listener)
        .unwrap();
        tokio::spawn(server.run());
        Collector {
            url: format!("http://127.0.0.1:{port}"),
            got,
        }
    }

    pub fn spans(&self) -> Vec<Received> {
        self.got.spans.lock().unwrap().clone()
    }

    /// The headers of every request received.
    pub fn headers(&self) -> Vec<HeaderMap> {
        self.got.headers.lock().unwrap().clone()
    }

    /// Wait until `done` holds for the spans received, or panic after
    /// `within` showing them.
    pub async fn wait_until(
        &self,
        within: Duration,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let spans = self.spans();
            if done(&spans) {
                return spans;
            }
            assert!(
                Instant::now() < deadline,
                "the spans never came; received: {:#?}",
                spans
                    .iter()
                    .map(|s| (
                        s.name().to_owned(),
                        s.trace_id(),
                        s.span_id(),
                        s.parent_id()
                    ))
                    .collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// A collector that accepts connections and never answers: the slowest
/// collector there is. Returns its base URL; it lives as long as the test's
/// runtime.
pub fn silent() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let listener = tokio::net::TcpListener::from_std(listener).unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((conn, _)) = listener.accept().await {
            held.push(conn);
        }
    });
    format!("http://127.0.0.1:{port}")
}
