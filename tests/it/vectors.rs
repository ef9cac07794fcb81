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

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use hookline::config::Settings;
use hookline::provider::{Definitions, Rejection, Verdict, VerifiedWebhook, VerifyError};
use serde::Deserialize;

use crate::vectors_handshakes::{run_handshake, HandshakeCase};
use crate::vectors_verify::{describe, settings, verify, verify_as, Certs, Request};

/// How far a valid case is moved in time to learn whether its provider
/// checks a signed timestamp: ten years, past any tolerance.
const TEN_YEARS: i64 = 10 * 365 * 24 * 3600;

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
