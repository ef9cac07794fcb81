//! The known-answer harness: every case of every
//! `tests/vectors/<kind>/vectors.json` (format: `tests/vectors/README.md`)
//! goes through the real verify function, `verify_request`, as a synthetic
//! untrusted request, with the tenant configured the way an operator would
//! (`secrets = [...]` in a config file).
//!
//! It fails for a built-in definition without vectors, for vectors whose
//! kind has no definition unless `tests/vectors/PENDING` lists it, and for a
//! PENDING line that no longer needs to be there. A case of a method other
//! than POST that hookline answers 405 (MessageBird signs GET, PUT, PATCH
//! and DELETE requests) is decided on its signature alone
//! (`verify_signature`), once `verify_request` has refused it 405. Directories holding only a
//! NOTES.md whose first line starts `status: excluded` are skipped.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use base64::Engine as _;
use bytes::Bytes;
use hookline::config::Settings;
use hookline::http::content_encoding;
use hookline::provider::{
    certificate_to_fetch, verify_request, verify_signature, Definitions, Key, Rejection,
    TenantState, UntrustedRequest, Verdict, VerifiedWebhook, VerifyError,
};
use secrecy::SecretString;
use serde::Deserialize;

/// How far a valid case is moved in time to learn whether its provider
/// checks a signed timestamp: ten years, past any tolerance.
const TEN_YEARS: i64 = 10 * 365 * 24 * 3600;

/// The cap on a decoded gzip body here: the default `server.max_body_bytes`.
const MAX_DECODED: usize = 1024 * 1024;

#[derive(Deserialize)]
struct VectorFile {
    kind: String,
    #[serde(default)]
    cases: Vec<Case>,
    #[serde(default)]
    handshakes: Option<Vec<HandshakeCase>>,
    /// Certificates by URL, for schemes that fetch one (see [`verify`]).
    #[serde(default)]
    certs: Certs,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    secrets: Vec<String>,
    #[serde(flatten)]
    request: Request,
    now: i64,
    tolerance: Option<u64>,
    expect: String,
    /// For a `valid` case, required: the event ID hookline must extract,
    /// or `null` for a request the provider signs but that is no event
    /// hookline can take (Slack's slash command, RFC 4231's text body),
    /// which must then be refused `missing_event_id` or
    /// `malformed_payload`.
    #[serde(default, deserialize_with = "present")]
    event_id: Option<Option<String>>,
    /// For a `valid` case with an event ID, required: the event type
    /// (`""` for a definition that reads none).
    event_type: Option<String>,
    /// For a `valid` case of a batched provider, required: every item's
    /// ID and type, in order (`[]` for an empty batch).
    items: Option<Vec<Item>>,
}

#[derive(Deserialize)]
struct Item {
    id: String,
    #[serde(rename = "type")]
    kind: String,
}

/// A field that may be `null`: `Some(None)` when it is, `None` when absent.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct Request {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
    body_base64: Option<String>,
}

#[derive(Deserialize)]
struct HandshakeCase {
    name: String,
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

#[test]
fn every_vector_through_the_verify_function() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let defs = Definitions::load(None).expect("built-in definitions load");
    let pending = read_pending(&root.join("PENDING"));
    let mut failures = Vec::new();
    let mut ran: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut skipped_pending, mut excluded) = (Vec::new(), Vec::new());
    for dir in subdirectories(&root) {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let vectors = dir.join("vectors.json");
        if !vectors.exists() {
            if is_excluded(&dir) {
                excluded.push(name);
            } else {
                failures.push(format!(
                    "{name}: neither vectors.json nor a NOTES.md starting `status: excluded`"
                ));
            }
            continue;
        }
        let file: VectorFile = match serde_json::from_slice(&std::fs::read(&vectors).unwrap()) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}/vectors.json: {e}"));
                continue;
            }
        };
        if file.kind != name {
            failures.push(format!("{name}/vectors.json: kind is {:?}", file.kind));
            continue;
        }
        if defs.get(&name).is_none() {
            if pending.contains(&name) {
                skipped_pending.push(name);
            } else {
                failures.push(format!(
                    "{name}: vectors but no definition (add providers/{name}.toml, or list it in tests/vectors/PENDING)"
                ));
            }
            continue;
        }
        for case in &file.cases {
            if let Err(e) = run_case(&name, case, &file.certs) {
                failures.push(format!("{name}: case {:?}: {e}", case.name));
            }
        }
        match checks_a_timestamp(&name, &file) {
            Ok(true)
                if !file
                    .cases
                    .iter()
                    .any(|c| c.expect == "timestamp_out_of_tolerance") =>
            {
                failures.push(format!(
                    "{name}: the provider signs a timestamp, but no case is outside the tolerance"
                ))
            }
            Ok(_) => {}
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        for case in file.handshakes.iter().flatten() {
            if let Err(e) = run_handshake(&name, case, &file.certs) {
                failures.push(format!("{name}: handshake {:?}: {e}", case.name));
            }
        }
        let handshakes = file.handshakes.as_ref().map_or(0, Vec::len);
        ran.insert(name, (file.cases.len(), handshakes));
    }
    for def in defs.definitions() {
        if !ran.contains_key(&def.kind) {
            failures.push(format!(
                "built-in {}: no tests/vectors/{}/vectors.json",
                def.kind, def.kind
            ));
        }
    }
    for kind in &pending {
        if defs.get(kind).is_some() {
            failures.push(format!(
                "PENDING lists {kind}, which has a definition now: remove the line"
            ));
        } else if !root.join(kind).join("vectors.json").exists() {
            failures.push(format!("PENDING lists {kind}, which has no vectors.json"));
        }
    }
    for (kind, (cases, handshakes)) in &ran {
        eprintln!("ran {kind}: {cases} cases, {handshakes} handshakes");
    }
    eprintln!(
        "pending (no definition yet): {}",
        skipped_pending.join(", ")
    );
    eprintln!("excluded: {}", excluded.join(", "));
    assert!(ran.len() >= 7, "the seven built-ins ran");
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// One signature case: the verdict, and for a valid one the event ID and
/// type it must yield.
fn run_case(kind: &str, case: &Case, certs: &Certs) -> Result<(), String> {
    let settings = settings(kind, &case.secrets, case.tolerance)?;
    let got = verify(&settings, &case.request, case.now, None, certs)?;
    if case.request.method != "POST" && matches!(got, Err(Rejection::MethodNotAllowed)) {
        return other_method(&settings, case, certs);
    }
    let wanted = match case.expect.as_str() {
        "valid" => None,
        "invalid_signature" => Some(VerifyError::InvalidSignature),
        "missing_signature" => Some(VerifyError::MissingSignature),
        "timestamp_out_of_tolerance" => Some(VerifyError::TimestampOutOfTolerance),
        other => return Err(format!("unknown expect {other:?}")),
    };
    if let Some(want) = wanted {
        return match &got {
            Err(Rejection::Verify(e)) if *e == want => Ok(()),
            _ => Err(format!("expected {}, got {}", case.expect, describe(&got))),
        };
    }
    let events: Vec<&VerifiedWebhook> = match &got {
        Ok(Verdict::Event(ev)) => vec![ev],
        Ok(Verdict::Batch(items)) => items.iter().collect(),
        // Signed, but no event: hookline must say so, not invent an ID.
        Err(Rejection::MissingEventId | Rejection::MalformedPayload)
            if case.event_id == Some(None) =>
        {
            return Ok(())
        }
        _ => return Err(format!("expected valid, got {}", describe(&got))),
    };
    let got_items: Vec<(&str, &str)> = events
        .iter()
        .map(|ev| (ev.event_id().as_str(), ev.event_type().as_str()))
        .collect();
    let batched = matches!(got, Ok(Verdict::Batch(_)));
    match (&case.items, &case.event_id, &case.event_type) {
        // A batch says every item, in order (none for an empty one).
        (Some(items), _, _) => {
            let want: Vec<(&str, &str)> = items
                .iter()
                .map(|i| (i.id.as_str(), i.kind.as_str()))
                .collect();
            if got_items != want {
                return Err(format!("items {got_items:?}, expected {want:?}"));
            }
        }
        (None, _, _) if batched => {
            return Err("a valid case of a batched provider must list its items".into())
        }
        (None, Some(Some(id)), Some(t)) => {
            if got_items != [(id.as_str(), t.as_str())] {
                return Err(format!(
                    "event {got_items:?}, expected {id:?} of type {t:?}"
                ));
            }
        }
        (None, Some(Some(_)), None) => {
            return Err("a valid case must say its event_type (\"\" for none)".into())
        }
        (None, Some(None), _) => {
            return Err(format!(
                "expected missing_event_id or malformed_payload, got {}",
                describe(&got)
            ))
        }
        (None, None, _) => {
            return Err(
                "a valid case must say its event_id (null: the request carries none)".into(),
            )
        }
    }
    Ok(())
}

/// A case of a method hookline answers 405 (MessageBird signs GET, PUT,
/// PATCH and DELETE requests as well): its verdict is the signature's
/// alone, and a valid one says no event (`event_id` absent or `null`).
fn other_method(settings: &Settings, case: &Case, certs: &Certs) -> Result<(), String> {
    if matches!(case.event_id, Some(Some(_))) || case.items.is_some() {
        return Err(format!(
            "hookline answers {} with 405: the case can name no event",
            case.request.method
        ));
    }
    let got = verify_as(settings, &case.request, case.now, None, certs, true)?;
    let ok = matches!(
        (case.expect.as_str(), &got),
        ("valid", Ok(_))
            | (
                "invalid_signature",
                Err(Rejection::Verify(VerifyError::InvalidSignature))
            )
            | (
                "missing_signature",
                Err(Rejection::Verify(VerifyError::MissingSignature))
            )
            | (
                "timestamp_out_of_tolerance",
                Err(Rejection::Verify(VerifyError::TimestampOutOfTolerance))
            )
    );
    if !ok {
        return Err(format!(
            "{} (signature only, hookline answers 405): expected {}, got {}",
            case.request.method,
            case.expect,
            describe(&got)
        ));
    }
    Ok(())
}

/// Whether the provider checks a signed timestamp: its first valid case,
/// verified ten years later, is refused as out of tolerance.
fn checks_a_timestamp(kind: &str, file: &VectorFile) -> Result<bool, String> {
    let Some(case) = file.cases.iter().find(|c| c.expect == "valid") else {
        return Err("no valid case".into());
    };
    let settings = settings(kind, &case.secrets, case.tolerance)?;
    let later = verify_as(
        &settings,
        &case.request,
        case.now + TEN_YEARS,
        None,
        &file.certs,
        case.request.method != "POST",
    )?;
    Ok(matches!(
        later,
        Err(Rejection::Verify(VerifyError::TimestampOutOfTolerance))
    ))
}

/// One handshake case: status, and content type, body, headers and problem
/// code where the case gives them.
fn run_handshake(kind: &str, case: &HandshakeCase, certs: &Certs) -> Result<(), String> {
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

/// A configuration with one provider of `kind` and one tenant holding
/// `secrets`, read the way `hookline serve` reads its file; without a
/// `tolerance`, the definition's (or hookline's default) is in force. Each
/// distinct one is read once: reading a config loads every built-in
/// definition, and the cases of a kind share a few.
fn settings(
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
fn verify(
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
fn verify_as(
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
type Certs = BTreeMap<String, String>;

fn describe(r: &Result<Verdict, Rejection>) -> String {
    match r {
        Ok(Verdict::Event(ev)) => format!("an event ({:?})", ev.event_id()),
        Ok(Verdict::Batch(events)) => format!("a batch of {} events", events.len()),
        Ok(Verdict::Handshake(a)) => format!("a handshake answer ({})", a.status),
        Err(e) => e.code().to_owned(),
    }
}

fn read_pending(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        // `kind: why it is pending`
        .map(|l| l.split(':').next().unwrap_or(l).trim().to_owned())
        .collect()
}

fn subdirectories(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("tests/vectors exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn is_excluded(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("NOTES.md"))
        .is_ok_and(|notes| notes.starts_with("status: excluded"))
}
