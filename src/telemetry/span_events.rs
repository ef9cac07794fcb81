//! Which log lines become span events.
//!
//! `tracing_opentelemetry` turns every log line written inside a span into
//! an event of that span: a copy of the line's fields, a clock read, and
//! bytes in every export. Every request writes its `answered` line inside
//! `webhook.receive`, and the log line itself already carries the span's
//! `trace_id` and `span_id`, so the copy tells a trace reader nothing the
//! logs do not. Warnings and errors still become span events (an error
//! also marks its span's status as an error): they are rare, and they are
//! what a trace is opened for.
//!
//! A filter of the tracing layer alone: it passes every span, and the log
//! writer still gets every line.

use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata};
use tracing_subscriber::layer::{Context, Filter};

/// Log lines at this level or more severe become span events.
const FROM: Level = Level::WARN;

/// Passes spans, and log lines at [`FROM`] or more severe.
///
/// The choice is made in `event_enabled`, which the stack asks only for a
/// line it then hands to every layer, never in `enabled`: that is also
/// asked by `tracing::enabled!` and `log::log_enabled!` checks that write
/// nothing, and a "no" given there would be left standing for the thread's
/// next span, which this layer would then miss.
pub struct SpanEvents;

fn wanted(meta: &Metadata<'_>) -> bool {
    // `Level` orders the more verbose as greater: WARN < INFO.
    meta.is_span() || *meta.level() <= FROM
}

impl<S> Filter<S> for SpanEvents {
    fn enabled(&self, _: &Metadata<'_>, _: &Context<'_, S>) -> bool {
        true
    }

    fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
        // A line this filter may refuse is asked about each time, so that
        // `enabled` opens the filtering pass `event_enabled` belongs to.
        if wanted(meta) {
            Interest::always()
        } else {
            Interest::sometimes()
        }
    }

    fn event_enabled(&self, event: &Event<'_>, _: &Context<'_, S>) -> bool {
        wanted(event.metadata())
    }
}
