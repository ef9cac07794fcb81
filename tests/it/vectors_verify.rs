//! How the known-answer harness (`vectors.rs`) puts a case through
//! hookline: the tenant configured as an operator would configure it, and
//! the request verified as the HTTP layer verifies it (a gzip body decoded,
//! a certificate served from the vector file's `certs`, never fetched).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use base64::Engine as _;
use bytes::Bytes;
use hookline::config::Settings;
use hookline::http::content_encoding;
use hookline::provider::{
    certificate_to_fetch, verify_request, verify_signature, Key, Rejection, TenantState,
    UntrustedRequest, Verdict,
};
use secrecy::SecretString;
use serde::Deserialize;

/// The cap on a decoded gzip body here: the default `server.max_body_bytes`.
const MAX_DECODED: usize = 1024 * 1024;

/// A case's request as its vector file spells it.
#[derive(Deserialize)]
pub(crate) struct Request {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    pub body_base64: Option<String>,
}

/// A configuration with one provider of `kind` and one tenant holding
/// `secrets`, read the way `hookline serve` reads its file; without a
/// `tolerance`, the definition's (or hookline's default) is in force. Each
/// distinct one is read once: reading a config loads every built-in
/// definition, and the cases of a kind share a few.
pub(crate) fn settings(
    kind: &str,
    secrets: &[String],
    tolerance: Option<u64>,
) -> Result<Rc<Settings>, String> {
    thread_local! {
        static READ: RefCell<HashMap<String, Rc<Settings>>> = RefCell::new(HashMap::new());
    }
    let secrets: Vec<String> = secrets
        .iter()
        .map(|s| toml::Value::String(s.clone()).to_string())
        .collect();
    let tolerance = tolerance.map_or(String::new(), |t| format!("tolerance = \"{t}s\"\n"));
    let text = format!(
        "[store]\nkind = \"embedded\"\n[providers.p]\nkind = {kind:?}\n{tolerance}[providers.p.tenants.t]\nsecrets = [{}]\n",
        secrets.join(", ")
    );
    if let Some(read) = READ.with(|r| r.borrow().get(&text).cloned()) {
        return Ok(read);
    }
    let read = Rc::new(
        hookline::config::from_toml_str("vectors.toml", &text)
            .map_err(|e| format!("config: {e}"))?,
    );
    READ.with(|r| r.borrow_mut().insert(text, read.clone()));
    Ok(read)
}

/// The case's request, received at `now`, as the HTTP layer verifies it:
/// `certificate_to_fetch` (whose refusal is the verdict), `verify_request`.
pub(crate) fn verify(
    settings: &Settings,
    req: &Request,
    now: i64,
    verify_token: Option<&SecretString>,
    certs: &Certs,
) -> Result<Result<Verdict, Rejection>, String> {
    verify_as(settings, req, now, verify_token, certs, false)
}

/// [`verify`], or with `signature_only` only the signature and its signed
/// time (`verify_signature`, for a method hookline takes no event from),
/// a pass then standing as an empty batch.
pub(crate) fn verify_as(
    settings: &Settings,
    req: &Request,
    now: i64,
    verify_token: Option<&SecretString>,
    certs: &Certs,
    signature_only: bool,
) -> Result<Result<Verdict, Rejection>, String> {
    let provider = &settings.providers["p"];
    let tenant = &provider.tenants["t"];
    let body = match (&req.body, &req.body_base64) {
        (Some(text), None) => text.clone().into_bytes(),
        (None, Some(b64)) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| format!("body_base64: {e}"))?,
        _ => return Err("give exactly one of body, body_base64".into()),
    };
    // As the HTTP edge does: a gzip body is verified decoded, under a cap.
    let encodings = (req.headers.iter())
        .filter(|(k, _)| k.eq_ignore_ascii_case("content-encoding"))
        .map(|(_, v)| v.as_str());
    let body = if content_encoding::is_gzip(encodings, &body) {
        content_encoding::gunzip(&body, MAX_DECODED, |_| true)
            .map_err(|e| format!("gzip body: {e}"))?
    } else {
        body
    };
    let query = req.url.split_once('?').map_or("", |(_, q)| q);
    let untrusted = UntrustedRequest {
        method: &req.method,
        url: &req.url,
        query,
        headers: &req.headers,
        body: Bytes::from(body),
        received_at: now,
    };
    if signature_only {
        let state = TenantState {
            verify_token,
            stored_key: None,
            certificates: &[],
        };
        return Ok(verify_signature(provider, tenant, &untrusted, &state)
            .map(|()| Verdict::Batch(Vec::new()))
            .map_err(Rejection::Verify));
    }
    let certificates = match certificate_to_fetch(provider, tenant, &untrusted) {
        Err(refused) => return Ok(Err(refused)),
        Ok(None) => Vec::new(),
        // Served as the provider's host would serve it; a URL the vectors'
        // certs do not carry fails the case, and is never fetched.
        Ok(Some(needed)) => needed
            .urls
            .into_iter()
            .map(|url| {
                let answer = (certs.get(url.as_str()))
                    .ok_or_else(|| format!("would fetch {url}, which certs does not carry"))?;
                Key::certificate(url, answer.as_bytes()).map_err(|e| format!("certs: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let certificates: Vec<&Key> = certificates.iter().collect();
    let state = TenantState {
        verify_token,
        stored_key: None,
        certificates: &certificates,
    };
    Ok(verify_request(provider, tenant, &untrusted, &state))
}

/// Certificates by URL, as a vector file carries them.
pub(crate) type Certs = BTreeMap<String, String>;

/// A verdict in a failure message.
pub(crate) fn describe(r: &Result<Verdict, Rejection>) -> String {
    match r {
        Ok(Verdict::Event(ev)) => format!("an event ({:?})", ev.event_id()),
        Ok(Verdict::Batch(events)) => format!("a batch of {} events", events.len()),
        Ok(Verdict::Handshake(a)) => format!("a handshake answer ({})", a.status),
        Err(e) => e.code().to_owned(),
    }
}
