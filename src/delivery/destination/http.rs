//! `kind = "http"`: the outgoing message POSTed to the handler's URL, the
//! original body and content type with Standard Webhooks headers and
//! hookline's own. One client per handler: timeouts, no redirects, capped
//! reads. A 2xx delivers; 408, 429, 5xx and no answer retry (honouring
//! `Retry-After`); any other status is final.

use std::time::Duration;

use futures::StreamExt;

use super::Sent;
use crate::config::{Handler, TlsSettings};
use crate::delivery::outgoing::Outgoing;
use crate::delivery::policy::{classify, parse_retry_after};
use crate::telemetry::TraceHeaders;

/// How much of a handler's response body is kept with an attempt.
pub const MAX_RESPONSE_BYTES: usize = 4 * 1024;

/// The headers of an HTTP delivery: Standard Webhooks' (`webhook-id`,
/// `webhook-timestamp`, `webhook-signature`), `Idempotency-Key` (the same
/// as `webhook-id`), `Content-Type`, hookline's own `X-Hookline-*`, W3C
/// `traceparent` and `tracestate` when the attempt is traced, then the
/// provider's forwarded ones.
pub fn headers(out: &Outgoing) -> Vec<(String, String)> {
    let mut headers = vec![
        ("webhook-id".to_owned(), out.webhook_id.clone()),
        ("webhook-timestamp".to_owned(), out.timestamp.to_string()),
    ];
    if let Some(signature) = &out.signature {
        headers.push(("webhook-signature".into(), signature.clone()));
    }
    headers.push(("Idempotency-Key".into(), out.webhook_id.clone()));
    headers.push(("Content-Type".into(), out.content_type.clone()));
    headers.push(("X-Hookline-Provider".into(), out.provider.clone()));
    headers.push(("X-Hookline-Tenant".into(), out.tenant.clone()));
    headers.push(("X-Hookline-Event-Id".into(), out.event_id.clone()));
    headers.push(("X-Hookline-Event-Type".into(), out.event_type.clone()));
    headers.push(("X-Hookline-Attempt".into(), out.attempt.to_string()));
    headers.extend(out.trace.iter().flat_map(TraceHeaders::pairs));
    // Names hookline sets itself are refused by check-config, so these
    // never override the ones above.
    headers.extend(out.forwarded.iter().cloned());
    headers
}

/// The client for one handler: [`client_builder`], presenting the
/// handler's client certificate when it has one. The material was checked
/// by `check-config`; a file that changed since is an error here, at
/// start-up.
pub fn client(handler: &Handler, tls: &TlsSettings) -> Result<reqwest::Client, String> {
    let mut builder = client_builder(tls)?;
    if let Some(files) = handler.client_tls() {
        // reqwest takes the chain and key as one PEM.
        let mut pem = std::fs::read(&files.cert_file)
            .map_err(|e| format!("{}: {e}", files.cert_file.display()))?;
        pem.push(b'\n');
        pem.extend(
            std::fs::read(&files.key_file)
                .map_err(|e| format!("{}: {e}", files.key_file.display()))?,
        );
        let identity = reqwest::Identity::from_pem(&pem)
            .map_err(|e| format!("{}: {e}", files.cert_file.display()))?;
        builder = builder.identity(identity);
    }
    builder.build().map_err(|e| e.to_string())
}

/// What every outbound client of hookline shares: TLS by rustls, trusting
/// the platform's roots plus `[tls] ca_file`; no redirects; a connect
/// timeout.
pub fn client_builder(tls: &TlsSettings) -> Result<reqwest::ClientBuilder, String> {
    let mut builder = reqwest::Client::builder()
        .use_rustls_tls()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(5))
        .pool_idle_timeout(Duration::from_secs(60))
        .user_agent(concat!("hookline/", env!("CARGO_PKG_VERSION")));
    for root in tls.extra_roots()? {
        let cert =
            reqwest::Certificate::from_der(&root).map_err(|e| format!("tls.ca_file: {e}"))?;
        builder = builder.add_root_certificate(cert);
    }
    Ok(builder)
}

/// An HTTP handler: its URL, timeout and client.
#[derive(Debug, Clone)]
pub struct Http {
    client: reqwest::Client,
    url: url::Url,
    timeout: Duration,
}

impl Http {
    pub fn new(handler: &Handler, tls: &TlsSettings) -> Result<Http, String> {
        Ok(Http {
            client: client(handler, tls)?,
            url: handler.url.clone(),
            timeout: handler.timeout,
        })
    }

    /// POST one attempt; the answer says how it went.
    pub async fn send(&self, out: &Outgoing) -> Sent {
        let mut req = self
            .client
            .post(self.url.clone())
            .timeout(self.timeout)
            .body(out.body.clone());
        for (k, v) in headers(out) {
            req = req.header(k, v);
        }
        let res = match req.send().await {
            Ok(res) => res,
            Err(e) => return Sent::retry(describe(&e)),
        };
        let status = res.status().as_u16();
        let retry_after = res
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
        // Read at most MAX_RESPONSE_BYTES, within what is left of the timeout.
        let mut body = Vec::new();
        let mut stream = res.bytes_stream();
        let mut error = None;
        while body.len() < MAX_RESPONSE_BYTES {
            match stream.next().await {
                Some(Ok(chunk)) => body
                    .extend_from_slice(&chunk[..chunk.len().min(MAX_RESPONSE_BYTES - body.len())]),
                Some(Err(e)) => {
                    error = Some(describe(&e));
                    break;
                }
                None => break,
            }
        }
        Sent {
            outcome: classify(Some(status), retry_after),
            status: Some(status),
            response: response_text(&body),
            error,
        }
    }
}

/// An error without the URL (which may carry credentials).
pub fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    let mut msg = kind.to_owned();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

/// A handler's answer (at most [`MAX_RESPONSE_BYTES`] read) as text of at
/// most that many bytes: invalid UTF-8 replaced by U+FFFD, which takes
/// three bytes for one, so the text is cut again at a character boundary;
/// and a character the cap cut in two is dropped, not replaced (the
/// handler sent it whole).
fn response_text(body: &[u8]) -> String {
    let capped = body.len() >= MAX_RESPONSE_BYTES;
    let mut text = String::with_capacity(body.len());
    let mut chunks = body.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        text.push_str(chunk.valid());
        let cut_by_the_cap = capped && chunks.peek().is_none();
        if !chunk.invalid().is_empty() && !cut_by_the_cap {
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    if text.len() > MAX_RESPONSE_BYTES {
        let mut end = MAX_RESPONSE_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_kept_as_text_within_its_cap() {
        let bad = response_text(&[0xFF; MAX_RESPONSE_BYTES]);
        assert!(bad.len() <= MAX_RESPONSE_BYTES, "{}", bad.len());
        assert!(bad.chars().all(|c| c == char::REPLACEMENT_CHARACTER));
        // A character the cap cut in two: dropped, not replaced.
        let mut cut = vec![b'a'; MAX_RESPONSE_BYTES - 1];
        cut.push("é".as_bytes()[0]);
        assert_eq!(response_text(&cut), "a".repeat(MAX_RESPONSE_BYTES - 1));
        // Below the cap, what is invalid is shown as such.
        assert_eq!(response_text(b"ok \xFF"), "ok \u{FFFD}");
        assert_eq!(response_text("déjà".as_bytes()), "déjà");
    }
}
