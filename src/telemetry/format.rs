//! The two log formats, with every value [`super::bounded`]: the text
//! format's fields (`name=value`, the message first), and the JSON format's
//! event, whose strings serde_json already escapes and which are bounded
//! here, led by the trace and span IDs of the span it is written in.

use std::fmt;

use opentelemetry::trace::{SpanId, TraceId};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_opentelemetry::OtelData;
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use super::bounded::{bound_json_strings, write_debug, MAX_VALUE_BYTES};

/// The text format's fields, as tracing's default writes them (the
/// message bare, then `name=value` in `Debug` form), each value escaped
/// and bounded.
#[derive(Debug, Default, Clone, Copy)]
pub struct EscapedFields;

impl<'w> FormatFields<'w> for EscapedFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'w>, fields: R) -> fmt::Result {
        let mut visitor = Visitor {
            writer,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct Visitor<'w> {
    writer: Writer<'w>,
    first: bool,
    result: fmt::Result,
}

impl Visitor<'_> {
    fn field(&mut self, field: &Field, value: &dyn fmt::Debug) -> fmt::Result {
        let name = field.name();
        // A `log` record's metadata, which the line's prefix already shows.
        if name.starts_with("log.") {
            return Ok(());
        }
        if !std::mem::take(&mut self.first) {
            self.writer.write_char(' ')?;
        }
        if name != "message" {
            write!(self.writer, "{}=", name.trim_start_matches("r#"))?;
        }
        write_debug(&mut self.writer, value)
    }
}

impl Visit for Visitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        // The message bare, other strings quoted: as tracing's default.
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"));
        } else {
            self.record_debug(field, &value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.result.is_ok() {
            self.result = self.field(field, value);
        }
    }
}

/// The JSON format's event (`F`, tracing's own), with every string of it
/// bounded, and the `trace_id` and `span_id` of the span it was written
/// in, when that span is part of a trace.
pub struct BoundedJson<F>(pub F);

impl<S, N, F> FormatEvent<S, N> for BoundedJson<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut line = String::new();
        self.0.format_event(ctx, Writer::new(&mut line), event)?;
        let line = bound_json_strings(&line, MAX_VALUE_BYTES);
        match (trace_ids(ctx), line.strip_prefix('{')) {
            // Hex digits only: nothing to escape.
            (Some((trace_id, span_id)), Some(rest)) => write!(
                writer,
                "{{\"trace_id\":\"{trace_id}\",\"span_id\":\"{span_id}\",{rest}"
            ),
            _ => writer.write_str(&line),
        }
    }
}

/// The trace and span IDs of the span an event is written in.
fn trace_ids<S, N>(ctx: &FmtContext<'_, S, N>) -> Option<(TraceId, SpanId)>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    let span = ctx.parent_span()?;
    let extensions = span.extensions();
    let data = extensions.get::<OtelData>()?;
    let (trace_id, span_id) = (data.trace_id()?, data.span_id()?);
    (trace_id != TraceId::INVALID).then_some((trace_id, span_id))
}
