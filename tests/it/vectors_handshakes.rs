//! The known-answer harness's handshake cases (`vectors.rs` runs them): a
//! provider's verification request gets the answer its docs or SDK give,
//! status, content type, body, headers, problem code, and the URL fetched
//! before answering, if any.

use hookline::provider::Verdict;
use secrecy::SecretString;
use serde::Deserialize;

use crate::vectors_verify::{describe, settings, verify, Certs, Request};

#[derive(Deserialize)]
pub(crate) struct HandshakeCase {
    pub name: String,
    secrets: Vec<String>,
    verify_token: Option<String>,
    request: Request,
    now: i64,
    tolerance: Option<u64>,
    /// `status`; and, each checked only when present and not `null`:
    /// `content_type`, `body` (compared as JSON values when the answer is
    /// `application/json`), `headers` (each must be in the answer), `code`
    /// (the problem code of a rejection). `subscribe_url`, when present,
    /// is checked even when `null`: the URL fetched before answering, or
    /// `null` for none.
    expect: serde_json::Map<String, serde_json::Value>,
}

/// The answer a handshake case gets, comparable with its `expect`.
struct Answer {
    status: u16,
    content_type: Option<String>,
    /// `None` for a rejection, whose problem document is the HTTP layer's.
    body: Option<Vec<u8>>,
    headers: Vec<(String, String)>,
    code: Option<&'static str>,
    /// The URL the answer has fetched first (SNS's `SubscribeURL`).
    confirm: Option<String>,
}

/// One handshake case: status, and content type, body, headers and problem
/// code where the case gives them.
pub(crate) fn run_handshake(kind: &str, case: &HandshakeCase, certs: &Certs) -> Result<(), String> {
    let settings = settings(kind, &case.secrets, case.tolerance)?;
    let token = case.verify_token.clone().map(SecretString::from);
    let answer = match verify(&settings, &case.request, case.now, token.as_ref(), certs)? {
        Ok(Verdict::Handshake(a)) => Answer {
            status: a.status,
            content_type: a.content_type.map(str::to_owned),
            body: Some(a.body.to_vec()),
            headers: a.headers,
            code: None,
            confirm: a.confirm.map(|u| u.to_string()),
        },
        Err(r) => Answer {
            status: r.status(),
            content_type: Some("application/problem+json".into()),
            body: None,
            headers: Vec::new(),
            code: Some(r.code()),
            confirm: None,
        },
        Ok(v @ (Verdict::Event(_) | Verdict::Batch(_))) => {
            return Err(format!("{}, not a handshake", describe(&Ok(v))))
        }
    };
    let expect = &case.expect;
    let status = expect.get("status").and_then(|s| s.as_u64());
    if status != Some(u64::from(answer.status)) {
        return Err(format!("status {}, expected {status:?}", answer.status));
    }
    if let Some(ct) = expect.get("content_type").filter(|v| !v.is_null()) {
        if ct.as_str() != answer.content_type.as_deref() {
            return Err(format!(
                "content type {:?}, expected {ct}",
                answer.content_type
            ));
        }
    }
    if let Some(body) = expect.get("body").filter(|v| !v.is_null()) {
        let want = body.as_str().ok_or("expect.body must be a string")?;
        let json = answer.content_type.as_deref() == Some("application/json");
        let same = match (json, answer.body.as_deref()) {
            (true, Some(got)) => {
                serde_json::from_slice::<serde_json::Value>(got).ok()
                    == serde_json::from_str::<serde_json::Value>(want).ok()
            }
            (_, got) => got == Some(want.as_bytes()),
        };
        if !same {
            return Err(format!(
                "body {:?}, expected {want:?}",
                answer.body.as_deref().map(String::from_utf8_lossy)
            ));
        }
    }
    if let Some(headers) = expect.get("headers") {
        let want: Vec<(String, String)> =
            serde_json::from_value(headers.clone()).map_err(|e| format!("expect.headers: {e}"))?;
        for (name, value) in want {
            let found = answer
                .headers
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case(&name) && *v == value);
            if !found {
                return Err(format!("no header {name}: {value} in {:?}", answer.headers));
            }
        }
    }
    if let Some(code) = expect.get("code") {
        if code.as_str() != answer.code {
            return Err(format!("code {:?}, expected {code}", answer.code));
        }
    }
    if let Some(url) = expect.get("subscribe_url") {
        if url.as_str() != answer.confirm.as_deref() {
            return Err(format!(
                "fetches {:?} before answering, expected {url}",
                answer.confirm
            ));
        }
    }
    Ok(())
}
