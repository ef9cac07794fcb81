//! The wire format against `opentelemetry-proto`: what [`super`] writes,
//! decoded with the protocol's generated messages, must equal what that
//! crate's own conversion (the one `opentelemetry-otlp` sends) makes of
//! the same spans.

use std::borrow::Cow;
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{
    Event, Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{Array, InstrumentationScope, KeyValue, StringValue, Value};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};
use opentelemetry_sdk::Resource;
use prost::Message as _;

use super::{request, resource, span};

fn context(trace: u8, span: u8, remote: bool, state: &str) -> SpanContext {
    SpanContext::new(
        TraceId::from_bytes([trace; 16]),
        SpanId::from_bytes([span; 8]),
        TraceFlags::SAMPLED,
        remote,
        state.parse::<TraceState>().unwrap(),
    )
}

fn at(ns: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_nanos(ns)
}

/// A span with every field set, every kind of value, an event and a link.
fn full() -> SpanData {
    let values = vec![
        KeyValue::new("provider", "stripe"),
        KeyValue::new("empty", ""),
        KeyValue::new("status", 200_i64),
        KeyValue::new("negative", -7_i64),
        KeyValue::new("zero", 0_i64),
        KeyValue::new("ratio", 0.25),
        KeyValue::new("yes", true),
        KeyValue::new("no", false),
        KeyValue::new(
            "owned",
            Value::String(StringValue::from("é ünïcode".to_owned())),
        ),
        KeyValue::new("bools", Value::Array(Array::Bool(vec![true, false]))),
        KeyValue::new("ints", Value::Array(Array::I64(vec![1, -2, 300]))),
        KeyValue::new("floats", Value::Array(Array::F64(vec![1.5, -0.0]))),
        KeyValue::new(
            "strings",
            Value::Array(Array::String(vec!["a".into(), "".into()])),
        ),
    ];
    let mut events = SpanEvents::default();
    events.events.push(Event::new(
        "a warning",
        at(1_700_000_000_000_000_500),
        vec![KeyValue::new("level", "WARN")],
        2,
    ));
    events.dropped_count = 3;
    let mut links = SpanLinks::default();
    links.links.push(Link::new(
        context(9, 8, true, "vendor=x"),
        vec![KeyValue::new("why", "recorded it")],
        1,
    ));
    links.dropped_count = 4;
    SpanData {
        span_context: context(1, 2, false, "a=1,b=2"),
        parent_span_id: SpanId::from_bytes([3; 8]),
        parent_span_is_remote: true,
        span_kind: SpanKind::Server,
        name: Cow::Borrowed("webhook.receive"),
        start_time: at(1_700_000_000_000_000_000),
        end_time: at(1_700_000_000_123_456_789),
        attributes: values,
        dropped_attributes_count: 5,
        events,
        links,
        status: Status::error("the store is unavailable"),
        instrumentation_scope: InstrumentationScope::builder("hookline").build(),
    }
}

/// A root span with nothing but its name and times.
fn bare(kind: SpanKind, status: Status) -> SpanData {
    SpanData {
        span_context: context(4, 5, false, ""),
        parent_span_id: SpanId::INVALID,
        parent_span_is_remote: false,
        span_kind: kind,
        name: Cow::Owned("dedup.claim".to_owned()),
        start_time: at(1),
        end_time: at(2),
        attributes: Vec::new(),
        dropped_attributes_count: 0,
        events: SpanEvents::default(),
        links: SpanLinks::default(),
        status,
        instrumentation_scope: InstrumentationScope::builder("hookline").build(),
    }
}

/// What `opentelemetry-proto` makes of `spans` under `resource`.
fn expected(spans: Vec<SpanData>, resource: &Resource) -> ExportTraceServiceRequest {
    let described: ResourceAttributesWithSchema = resource.into();
    ExportTraceServiceRequest {
        resource_spans: group_spans_by_resource_and_scope(spans, &described),
    }
}

fn written(spans: &[SpanData], described: &Resource) -> ExportTraceServiceRequest {
    let mut together = Vec::new();
    for s in spans {
        together.extend_from_slice(&span(s));
    }
    let scope = spans[0].instrumentation_scope.clone();
    let body = request(
        &resource(described),
        described.schema_url().unwrap_or_default(),
        &[(scope, together)],
    );
    ExportTraceServiceRequest::decode(&body[..]).expect("valid protobuf")
}

#[test]
fn spans_decode_as_the_sdks_own_conversion_makes_them() {
    let described = Resource::builder()
        .with_service_name("hookline")
        .with_attribute(KeyValue::new("deployment.environment", "test"))
        .build();
    let spans = vec![
        full(),
        bare(SpanKind::Internal, Status::Unset),
        bare(SpanKind::Client, Status::Ok),
        bare(SpanKind::Producer, Status::Unset),
        bare(SpanKind::Consumer, Status::Unset),
    ];
    assert_eq!(written(&spans, &described), expected(spans, &described),);
}

#[test]
fn a_scope_with_a_version_and_a_resource_with_a_schema_are_written() {
    let described = Resource::builder_empty()
        .with_schema_url(
            vec![KeyValue::new("k", "v")],
            "https://opentelemetry.io/schemas/1.2.0",
        )
        .build();
    let mut one = bare(SpanKind::Internal, Status::Unset);
    one.instrumentation_scope = InstrumentationScope::builder("lib")
        .with_version("1.0")
        .with_schema_url("https://example.test/schema")
        .with_attributes([KeyValue::new("scope.attr", 1_i64)])
        .build();
    assert_eq!(
        written(std::slice::from_ref(&one), &described),
        expected(vec![one], &described),
    );
}

#[test]
fn a_long_span_has_a_length_of_several_bytes() {
    // Past 127 bytes a message's length takes two varint bytes, past
    // 16,383 three: the body moves behind them intact.
    let mut long = bare(SpanKind::Internal, Status::Unset);
    long.attributes = (0..400)
        .map(|i| KeyValue::new(format!("key.{i}"), "x".repeat(50)))
        .collect();
    let described = Resource::builder_empty().build();
    assert_eq!(
        written(std::slice::from_ref(&long), &described),
        expected(vec![long], &described),
    );
}
