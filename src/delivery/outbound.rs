//! The outbound request to a handler: the original body and content type,
//! Standard Webhooks headers signed with the handler's secret, and hookline's
//! own headers. One shared client: timeouts, no redirects, capped reads.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures::StreamExt;
use sha2::{Digest, Sha256};

use crate::config::{Handler, TlsSettings};
use crate::provider::{Definitions, Key, KeyError, ProviderDef, SignInput};

/// How much of a handler's response body is kept with an attempt.
pub const MAX_RESPONSE_BYTES: usize = 4 * 1024;

/// What is delivered.
#[derive(Debug, Clone)]
pub struct Outgoing<'a> {
    pub provider: &'a str,
    pub tenant: &'a str,
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub content_type: Option<&'a str>,
    pub body: &'a bytes::Bytes,
    /// 1-based attempt number.
    pub attempt: u32,
    /// The provider's headers kept with the delivery; the handler gets
    /// those its `forward_headers` names.
    pub forwarded: &'a [(String, String)],
}

/// The `webhook-id` of an event for a handler: the same on every attempt
/// and every re-delivery, so the handler can use it as its idempotency key.
pub fn webhook_id(provider: &str, tenant: &str, event_id: &str, handler: &str) -> String {
    let mut h = Sha256::new();
    for part in [provider, tenant, event_id, handler] {
        // Length-prefixed, so ("a:b","c") and ("a","b:c") differ.
        h.update((part.len() as u64).to_be_bytes());
        h.update(part.as_bytes());
    }
    format!("msg_{}", &hex::encode(h.finalize())[..32])
}

fn standard_webhooks() -> &'static ProviderDef {
    static DEF: OnceLock<Arc<ProviderDef>> = OnceLock::new();
    DEF.get_or_init(|| {
        Definitions::load(None)
            .expect("built-in definitions parse")
            .get("standard-webhooks")
            .expect("standard-webhooks is built in")
            .clone()
    })
}

/// A handler's `signing_secret` (`whsec_` base64) as the key deliveries are
/// signed with.
pub fn decode_signing_secret(secret: &str) -> Result<Key, KeyError> {
    standard_webhooks().decode_secret(secret)
}

/// Every header of a delivery attempt.
pub fn headers(handler: &Handler, out: &Outgoing<'_>, timestamp: i64) -> Vec<(String, String)> {
    let id = webhook_id(out.provider, out.tenant, out.event_id, &handler.name);
    let mut headers = standard_webhooks()
        .sign(
            &handler.signing_key,
            &SignInput {
                method: "POST",
                url: "",
                headers: &[],
                body: out.body,
                id: &id,
                timestamp,
            },
        )
        // The key came from decode_signing_secret on this very definition,
        // whose template reads no header: signing cannot fail.
        .expect("a Standard Webhooks key signs");
    headers.push(("Idempotency-Key".into(), id));
    headers.push((
        "Content-Type".into(),
        out.content_type
            .unwrap_or("application/octet-stream")
            .into(),
    ));
    headers.push(("X-Hookline-Provider".into(), out.provider.into()));
    headers.push(("X-Hookline-Tenant".into(), out.tenant.into()));
    headers.push(("X-Hookline-Event-Id".into(), out.event_id.into()));
    headers.push(("X-Hookline-Event-Type".into(), out.event_type.into()));
    headers.push(("X-Hookline-Attempt".into(), out.attempt.to_string()));
    // Names hookline sets itself are refused by check-config, so these
    // never override the ones above.
    headers.extend(
        out.forwarded
            .iter()
            .filter(|(name, _)| {
                handler
                    .forward_headers
                    .iter()
                    .any(|f| f.name().as_str().eq_ignore_ascii_case(name))
            })
            .cloned(),
    );
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

/// The result of one attempt.
#[derive(Debug, Clone)]
pub struct AttemptResult {
    pub status: Option<u16>,
    pub retry_after: Option<Duration>,
    pub latency: Duration,
    /// At most [`MAX_RESPONSE_BYTES`] of the response body.
    pub response_body: String,
    pub error: Option<String>,
}

/// POST one delivery attempt; never fails, the outcome is in the result.
pub async fn attempt(
    client: &reqwest::Client,
    handler: &Handler,
    out: &Outgoing<'_>,
) -> AttemptResult {
    let started = Instant::now();
    let now = chrono::Utc::now().timestamp();
    let mut req = client
        .post(handler.url.clone())
        .timeout(handler.timeout)
        .body(out.body.clone());
    for (k, v) in headers(handler, out, now) {
        req = req.header(k, v);
    }
    let res = match req.send().await {
        Ok(res) => res,
        Err(e) => {
            return AttemptResult {
                status: None,
                retry_after: None,
                latency: started.elapsed(),
                response_body: String::new(),
                error: Some(describe(&e)),
            }
        }
    };
    let status = res.status().as_u16();
    let retry_after = res
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| super::policy::parse_retry_after(v, std::time::SystemTime::now()));
    // Read at most MAX_RESPONSE_BYTES, within what is left of the timeout.
    let mut body = Vec::new();
    let mut stream = res.bytes_stream();
    let mut error = None;
    while body.len() < MAX_RESPONSE_BYTES {
        match stream.next().await {
            Some(Ok(chunk)) => {
                body.extend_from_slice(&chunk[..chunk.len().min(MAX_RESPONSE_BYTES - body.len())])
            }
            Some(Err(e)) => {
                error = Some(describe(&e));
                break;
            }
            None => break,
        }
    }
    AttemptResult {
        status: Some(status),
        retry_after,
        latency: started.elapsed(),
        response_body: String::from_utf8_lossy(&body).into_owned(),
        error,
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
