//! A handler's transformation applied to one attempt's message, before it
//! is signed: the script sees the body, the content type and the
//! forwarded headers, and what it returns replaces them. The `webhook-id`
//! and hookline's own headers are not the script's to change.

use std::sync::Arc;

use bytes::Bytes;

use super::outgoing::Outgoing;
use crate::config::Handler;
use crate::filter;
use crate::transform::{Request, Transform};

/// Headers a script's answer cannot set: hookline sets them, or they
/// describe the connection rather than the message.
const NOT_THE_SCRIPTS: &[&str] = &[
    "content-length",
    "host",
    "connection",
    "transfer-encoding",
    "content-encoding",
    "idempotency-key",
];
const NOT_THE_SCRIPTS_PREFIXES: &[&str] = &["webhook-", "x-hookline-"];

/// `out` as `handler`'s transform returns it; unchanged without one. The
/// error is the script's message and line, or the limit it hit.
pub async fn apply(handler: &Handler, out: Outgoing) -> Result<Outgoing, String> {
    match handler.transform.clone() {
        None => Ok(out),
        // Boxed: every attempt's future would otherwise carry room for
        // the script's run (bench/NOTES.md, "Kept: futures that carry
        // only the common path").
        Some(transform) => Box::pin(run(handler, transform, out)).await,
    }
}

/// `out` as `transform` returns it.
async fn run(
    handler: &Handler,
    transform: Arc<Transform>,
    mut out: Outgoing,
) -> Result<Outgoing, String> {
    let mut headers = vec![("content-type".to_owned(), out.content_type.clone())];
    headers.extend(out.forwarded.iter().cloned());
    let request = Request {
        headers,
        body: out.body.to_vec(),
        query: out.query.clone(),
        path: filter::Request::path_of(&out.provider, &out.tenant),
    };
    let context = serde_json::json!({
        "handler": handler.name.as_str(),
        "provider": out.provider,
        "tenant": out.tenant,
        "event_id": out.event_id,
        "event_type": out.event_type,
        "webhook_id": out.webhook_id,
        "attempt": out.attempt,
    });
    let webhook_id = out.webhook_id.clone();
    // The script runs for up to its timeout: off the async workers.
    let result =
        tokio::task::spawn_blocking(move || transform.run(&request, &webhook_id, &context))
            .await
            .map_err(|e| format!("the transform could not run: {e}"))??;
    out.body = Bytes::from(result.body);
    out.forwarded.clear();
    for (name, value) in result.headers {
        let valid = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok()
            && reqwest::header::HeaderValue::from_str(&value).is_ok();
        if !valid {
            return Err(format!("the transform returned an invalid header {name:?}"));
        }
        if name == "content-type" {
            out.content_type = value;
        } else if !NOT_THE_SCRIPTS.contains(&name.as_str())
            && !NOT_THE_SCRIPTS_PREFIXES.iter().any(|p| name.starts_with(p))
        {
            out.forwarded.push((name, value));
        }
    }
    Ok(out)
}
