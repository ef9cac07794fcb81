//! OTLP's protobuf wire format for spans, written straight from the SDK's
//! span data (`opentelemetry/proto/trace/v1/trace.proto`, `common.proto`,
//! `resource.proto`).
//!
//! `opentelemetry-otlp` converts a batch by cloning every span on the
//! exporting thread, building `opentelemetry-proto`'s message structs (a
//! `String` or `Vec` per ID, name, key and value) and encoding those: at
//! tens of thousands of spans a second this was the largest part of what
//! tracing cost a node (`bench/NOTES.md`, "Spans written as protobuf where
//! they end"). Here a span is written once, into one buffer, by the thread
//! that ends it; a batch is those buffers behind a resource and scope
//! written once. The field numbers are the protocol's; the tests decode
//! the output with `opentelemetry-proto` and compare it with that crate's
//! own conversion.

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status};
use opentelemetry::{Array, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::trace::SpanData;
use opentelemetry_sdk::Resource;
use prost::encoding::{encode_key, encode_varint, encoded_len_varint, WireType};
use std::time::{SystemTime, UNIX_EPOCH};

/// `SpanFlags`: the context says whether its parent is remote, and this
/// bit says it is.
const HAS_IS_REMOTE: u32 = 0x100;
const IS_REMOTE: u32 = 0x200;

/// One span as an entry of `ScopeSpans.spans` (field 2): key, length and
/// the `Span` message, ready to be put beside others of its scope.
pub fn span(span: &SpanData) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + 48 * span.attributes.len());
    message(&mut out, 2, |out| {
        let cx = &span.span_context;
        bytes(out, 1, &cx.trace_id().to_bytes());
        bytes(out, 2, &cx.span_id().to_bytes());
        string(out, 3, &cx.trace_state().header());
        if span.parent_span_id != SpanId::INVALID {
            bytes(out, 4, &span.parent_span_id.to_bytes());
        }
        string(out, 5, &span.name);
        varint(out, 6, kind(&span.span_kind));
        fixed64(out, 7, nanos(span.start_time));
        fixed64(out, 8, nanos(span.end_time));
        attributes(out, 9, &span.attributes);
        varint(out, 10, u64::from(span.dropped_attributes_count));
        for event in span.events.iter() {
            message(out, 11, |out| {
                fixed64(out, 1, nanos(event.timestamp));
                string(out, 2, &event.name);
                attributes(out, 3, &event.attributes);
                varint(out, 4, u64::from(event.dropped_attributes_count));
            });
        }
        varint(out, 12, u64::from(span.events.dropped_count));
        for link in span.links.iter() {
            message(out, 13, |out| {
                let cx = &link.span_context;
                bytes(out, 1, &cx.trace_id().to_bytes());
                bytes(out, 2, &cx.span_id().to_bytes());
                string(out, 3, &cx.trace_state().header());
                attributes(out, 4, &link.attributes);
                varint(out, 5, u64::from(link.dropped_attributes_count));
                fixed32(out, 6, flags(cx, cx.is_remote()));
            });
        }
        varint(out, 14, u64::from(span.links.dropped_count));
        // Always present, as the SDK's conversion writes it.
        message(out, 15, |out| {
            let (code, text) = match &span.status {
                Status::Unset => (0, ""),
                Status::Ok => (1, ""),
                Status::Error { description } => (2, description.as_ref()),
            };
            string(out, 2, text);
            varint(out, 3, code);
        });
        fixed32(out, 16, flags(cx, span.parent_span_is_remote));
    });
    out
}

/// The `Resource` message's fields, for [`request`].
pub fn resource(resource: &Resource) -> Vec<u8> {
    let mut out = Vec::new();
    for (key, value) in resource.iter() {
        key_value(&mut out, 1, key.as_str(), value);
    }
    out
}

/// One export: `ExportTraceServiceRequest` with one `ResourceSpans` and a
/// `ScopeSpans` per scope, each with its spans as [`span`] wrote them.
pub fn request(
    resource: &[u8],
    schema_url: &str,
    scopes: &[(InstrumentationScope, Vec<u8>)],
) -> Vec<u8> {
    let size = resource.len() + scopes.iter().map(|(_, s)| s.len() + 64).sum::<usize>();
    let mut out = Vec::with_capacity(size + 32);
    message(&mut out, 1, |out| {
        message(out, 1, |out| out.extend_from_slice(resource));
        for (scope, spans) in scopes {
            message(out, 2, |out| {
                message(out, 1, |out| {
                    string(out, 1, scope.name());
                    string(out, 2, scope.version().unwrap_or_default());
                    attributes(out, 3, scope.attributes());
                });
                out.extend_from_slice(spans);
                string(out, 3, scope.schema_url().unwrap_or_default());
            });
        }
        string(out, 3, schema_url);
    });
    out
}

fn kind(kind: &SpanKind) -> u64 {
    match kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        SpanKind::Consumer => 5,
    }
}

fn flags(cx: &SpanContext, remote: bool) -> u32 {
    let remote = if remote { IS_REMOTE } else { 0 };
    u32::from(cx.trace_flags().to_u8()) | HAS_IS_REMOTE | remote
}

fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn attributes<'a>(out: &mut Vec<u8>, field: u32, kvs: impl IntoIterator<Item = &'a KeyValue>) {
    for kv in kvs {
        key_value(out, field, kv.key.as_str(), &kv.value);
    }
}

fn key_value(out: &mut Vec<u8>, field: u32, key: &str, value: &Value) {
    message(out, field, |out| {
        string(out, 1, key);
        message(out, 2, |out| any_value(out, value));
    });
}

/// The `AnyValue` message's one field. A value kind this version does not
/// know is written as an empty value rather than dropping the span.
fn any_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::String(s) => always_string(out, 1, s.as_str()),
        Value::Bool(b) => always_varint(out, 2, u64::from(*b)),
        Value::I64(i) => always_varint(out, 3, *i as u64),
        Value::F64(f) => always_double(out, 4, *f),
        Value::Array(array) => message(out, 5, |out| match array {
            Array::Bool(v) => v
                .iter()
                .for_each(|b| array_item(out, |o| always_varint(o, 2, u64::from(*b)))),
            Array::I64(v) => v
                .iter()
                .for_each(|i| array_item(out, |o| always_varint(o, 3, *i as u64))),
            Array::F64(v) => v
                .iter()
                .for_each(|f| array_item(out, |o| always_double(o, 4, *f))),
            Array::String(v) => v
                .iter()
                .for_each(|s| array_item(out, |o| always_string(o, 1, s.as_str()))),
            _ => {}
        }),
        _ => {}
    }
}

fn array_item(out: &mut Vec<u8>, value: impl FnOnce(&mut Vec<u8>)) {
    message(out, 1, value);
}

/// A length-delimited field written by `body`: its length goes in front
/// once it is known, moving the body by the length's few bytes.
fn message(out: &mut Vec<u8>, field: u32, body: impl FnOnce(&mut Vec<u8>)) {
    encode_key(field, WireType::LengthDelimited, out);
    let start = out.len();
    body(out);
    let len = (out.len() - start) as u64;
    let width = encoded_len_varint(len);
    let mut prefix = [0u8; 10];
    encode_varint(len, &mut &mut prefix[..]);
    let end = out.len();
    out.resize(end + width, 0);
    out.copy_within(start..end, start + width);
    out[start..start + width].copy_from_slice(&prefix[..width]);
}

// proto3 leaves a field at its default value out; a `oneof` member is
// written whatever its value (the `always_` writers).

fn string(out: &mut Vec<u8>, field: u32, s: &str) {
    if !s.is_empty() {
        always_string(out, field, s);
    }
}

fn always_string(out: &mut Vec<u8>, field: u32, s: &str) {
    bytes_always(out, field, s.as_bytes());
}

fn bytes(out: &mut Vec<u8>, field: u32, b: &[u8]) {
    if !b.is_empty() {
        bytes_always(out, field, b);
    }
}

fn bytes_always(out: &mut Vec<u8>, field: u32, b: &[u8]) {
    encode_key(field, WireType::LengthDelimited, out);
    encode_varint(b.len() as u64, out);
    out.extend_from_slice(b);
}

fn varint(out: &mut Vec<u8>, field: u32, v: u64) {
    if v != 0 {
        always_varint(out, field, v);
    }
}

fn always_varint(out: &mut Vec<u8>, field: u32, v: u64) {
    encode_key(field, WireType::Varint, out);
    encode_varint(v, out);
}

fn always_double(out: &mut Vec<u8>, field: u32, v: f64) {
    encode_key(field, WireType::SixtyFourBit, out);
    out.extend_from_slice(&v.to_le_bytes());
}

fn fixed64(out: &mut Vec<u8>, field: u32, v: u64) {
    if v != 0 {
        encode_key(field, WireType::SixtyFourBit, out);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn fixed32(out: &mut Vec<u8>, field: u32, v: u32) {
    if v != 0 {
        encode_key(field, WireType::ThirtyTwoBit, out);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
#[path = "otlp_tests.rs"]
mod tests;
