//! Spans as OTLP/HTTP protobuf, and the POST that takes them to the
//! collector.
//!
//! Each span is converted (`opentelemetry-proto`'s own conversion) and
//! encoded on the thread that ends it, as one `spans` entry of a
//! `ScopeSpans` message; the export only frames the entries gathered.
//! `opentelemetry-otlp`'s exporter took the spans' data to the exporting
//! thread instead, cloned every span there to convert it, and freed both
//! copies on that thread: a dozen small blocks per span freed on another
//! thread than the one that made them, which glibc's allocator pays for
//! under its arena locks (`bench/FEATURES.md`, "Tracing a fifth time").
//! Here the spans' own blocks are freed where they were made, and one
//! buffer per span crosses threads.

use std::str::FromStr;
use std::time::Duration;

use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_sdk::trace::SpanData;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, key_len, WireType};
use prost::Message;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};

/// `ScopeSpans.spans` and `ResourceSpans.scope_spans`: field 2 of both.
const SPANS: u32 = 2;
/// `ExportTraceServiceRequest.resource_spans`.
const RESOURCE_SPANS: u32 = 1;

/// The instrumentation scope of hookline's spans (its tracer's name).
pub const SCOPE: &str = "hookline";

/// One finished span, encoded as an entry of `ScopeSpans.spans` (field
/// key, length, message): a request body is such entries put together.
pub fn encode(span: SpanData) -> Vec<u8> {
    let span = Span::from(span);
    let len = span.encoded_len();
    let mut entry = Vec::with_capacity(key_len(SPANS) + encoded_len_varint(len as u64) + len);
    prost::encoding::message::encode(SPANS, &span, &mut entry);
    entry
}

/// What every request carries before its spans: the resource (with
/// `service.name`) and the instrumentation scope, each encoded once.
#[derive(Debug, Clone)]
pub struct Head {
    /// A `ResourceSpans` without its `scope_spans`.
    resource: Vec<u8>,
    /// A `ScopeSpans` without its `spans`.
    scope: Vec<u8>,
}

impl Head {
    pub fn new(resource: &opentelemetry_sdk::Resource) -> Head {
        let attributes = ResourceAttributesWithSchema::from(resource);
        let resource = ResourceSpans {
            resource: Some(Resource {
                attributes: attributes.attributes.0,
                dropped_attributes_count: 0,
                entity_refs: Vec::new(),
            }),
            scope_spans: Vec::new(),
            schema_url: attributes.schema_url.unwrap_or_default(),
        };
        let scope = ScopeSpans {
            scope: Some(InstrumentationScope {
                name: SCOPE.to_owned(),
                ..Default::default()
            }),
            spans: Vec::new(),
            schema_url: String::new(),
        };
        Head {
            resource: resource.encode_to_vec(),
            scope: scope.encode_to_vec(),
        }
    }

    /// An `ExportTraceServiceRequest` of the encoded `spans`. Protobuf
    /// reads a message's fields in any order, so the spans' entries
    /// follow the fields already encoded.
    pub fn body(&self, spans: &[Vec<u8>]) -> Vec<u8> {
        let spans_len: usize = spans.iter().map(Vec::len).sum();
        let scope_len = self.scope.len() + spans_len;
        let resource_len =
            self.resource.len() + key_len(SPANS) + encoded_len_varint(scope_len as u64) + scope_len;
        let mut body = Vec::with_capacity(
            key_len(RESOURCE_SPANS) + encoded_len_varint(resource_len as u64) + resource_len,
        );
        encode_key(RESOURCE_SPANS, WireType::LengthDelimited, &mut body);
        encode_varint(resource_len as u64, &mut body);
        body.extend_from_slice(&self.resource);
        encode_key(SPANS, WireType::LengthDelimited, &mut body);
        encode_varint(scope_len as u64, &mut body);
        body.extend_from_slice(&self.scope);
        for span in spans {
            body.extend_from_slice(span);
        }
        body
    }
}

/// Where encoded spans go.
pub trait Collector: Send + Sync + 'static {
    /// POST one request body; `Err` says why it was not taken.
    fn post(&self, body: Vec<u8>) -> impl std::future::Future<Output = Result<(), String>> + Send;
}

/// An OTLP/HTTP collector: protobuf POSTed to its `/v1/traces`.
pub struct Http {
    client: reqwest::Client,
    url: String,
}

impl Http {
    /// The collector at `url`, with the headers of
    /// `OTEL_EXPORTER_OTLP_TRACES_HEADERS` (or `OTEL_EXPORTER_OTLP_HEADERS`),
    /// as OpenTelemetry's exporters read them: `key=value` pairs separated
    /// by commas, values percent-decoded.
    pub fn new(url: String, timeout: Duration) -> anyhow::Result<Http> {
        let headers = std::env::var("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
            .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_HEADERS"))
            .map(|v| headers(&v))
            .unwrap_or_else(|_| Ok(HeaderMap::new()))?;
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .default_headers(headers)
            .build()?;
        Ok(Http { client, url })
    }
}

impl Collector for Http {
    async fn post(&self, body: Vec<u8>) -> Result<(), String> {
        let res = self
            .client
            .post(&self.url)
            .header(CONTENT_TYPE, "application/x-protobuf")
            .body(body)
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        let status = res.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(format!("the collector answered {status}"))
        }
    }
}

/// The headers of an `OTEL_EXPORTER_OTLP_HEADERS` value. A pair that is
/// not a valid header is an error naming its key, never its value (it is
/// usually a credential).
fn headers(value: &str) -> anyhow::Result<HeaderMap> {
    let mut map = HeaderMap::new();
    for pair in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            anyhow::bail!("OTEL_EXPORTER_OTLP_HEADERS: an entry without '=' (key=value expected)");
        };
        let key = key.trim();
        let name = HeaderName::from_str(key).map_err(|_| {
            anyhow::anyhow!("OTEL_EXPORTER_OTLP_HEADERS: {key:?} is not a header name")
        })?;
        let decoded = percent_encoding::percent_decode_str(value.trim()).decode_utf8_lossy();
        let value = HeaderValue::from_str(&decoded).map_err(|_| {
            anyhow::anyhow!(
                "OTEL_EXPORTER_OTLP_HEADERS: the value of {key:?} is not a header value"
            )
        })?;
        map.insert(name, value);
    }
    Ok(map)
}

#[cfg(test)]
pub(super) mod tests {
    use opentelemetry::trace::{
        SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
    };
    use opentelemetry::{InstrumentationScope as Scope, KeyValue};
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::any_value::Value;
    use std::time::SystemTime;

    use super::*;

    pub fn span(name: &'static str, n: u8) -> SpanData {
        SpanData {
            span_context: SpanContext::new(
                TraceId::from_bytes([n; 16]),
                SpanId::from_bytes([n; 8]),
                TraceFlags::SAMPLED,
                false,
                TraceState::default(),
            ),
            parent_span_id: SpanId::from_bytes([9; 8]),
            parent_span_is_remote: false,
            span_kind: SpanKind::Internal,
            name: name.into(),
            start_time: SystemTime::UNIX_EPOCH + Duration::from_secs(1),
            end_time: SystemTime::UNIX_EPOCH + Duration::from_secs(2),
            attributes: vec![KeyValue::new("provider", "stripe")],
            dropped_attributes_count: 0,
            events: Default::default(),
            links: Default::default(),
            status: Status::Unset,
            instrumentation_scope: Scope::builder(SCOPE).build(),
        }
    }

    #[test]
    fn a_body_is_one_request_of_every_span_with_its_resource_and_scope() {
        let resource = opentelemetry_sdk::Resource::builder()
            .with_service_name("svc")
            .build();
        let head = Head::new(&resource);
        let spans = vec![encode(span("a", 1)), encode(span("b", 2))];
        let req = ExportTraceServiceRequest::decode(head.body(&spans).as_slice()).unwrap();
        assert_eq!(req.resource_spans.len(), 1);
        let rs = &req.resource_spans[0];
        let service = rs.resource.as_ref().unwrap().attributes.iter();
        let service: Vec<_> = service
            .filter(|kv| kv.key == "service.name")
            .map(|kv| kv.value.clone().and_then(|v| v.value))
            .collect();
        assert_eq!(service, [Some(Value::StringValue("svc".into()))]);
        assert_eq!(rs.scope_spans.len(), 1);
        let ss = &rs.scope_spans[0];
        assert_eq!(ss.scope.as_ref().unwrap().name, SCOPE);
        let names: Vec<_> = ss.spans.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let b = &ss.spans[1];
        assert_eq!(b.trace_id, vec![2; 16]);
        assert_eq!(b.parent_span_id, vec![9; 8]);
        assert_eq!(b.end_time_unix_nano, 2_000_000_000);
        assert_eq!(b.attributes[0].key, "provider");
    }

    #[test]
    fn an_empty_body_still_decodes() {
        let head = Head::new(&opentelemetry_sdk::Resource::builder().build());
        let req = ExportTraceServiceRequest::decode(head.body(&[]).as_slice()).unwrap();
        assert!(req.resource_spans[0].scope_spans[0].spans.is_empty());
    }

    #[test]
    fn headers_are_read_as_opentelemetry_reads_them_and_errors_hide_values() {
        let map = headers("api-key=s%3Dcret, x-team = blue ,").unwrap();
        assert_eq!(map["api-key"], "s=cret");
        assert_eq!(map["x-team"], "blue");
        let err = headers("bad key=topsecret").unwrap_err().to_string();
        assert!(err.contains("\"bad key\""), "{err}");
        let err = headers("k=top\nsecret").unwrap_err().to_string();
        assert!(!err.contains("secret"), "{err}");
        assert!(headers("novalue").is_err());
    }
}
