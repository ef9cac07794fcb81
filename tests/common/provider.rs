//! A provider configured the way an operator would (a definition file in
//! `providers_dir`, tenants' `secrets` in the config), and requests through
//! the real verify function. Shared by the provider tests.

use bytes::Bytes;
use hookline::config::Settings;
use hookline::provider::{verify_request, Rejection, TenantState, UntrustedRequest, Verdict};

/// The route every helper configures.
pub const ROUTE: &str = "p";

/// A configuration whose provider `p` is of `kind`, tolerance 300 s, with
/// one tenant `t` holding `secrets`. `definition`, when given, is written
/// to a definitions directory first (so `kind` may be its kind).
pub fn configure(
    kind: &str,
    definition: Option<&str>,
    secrets: &[&str],
) -> Result<(Settings, tempfile::TempDir), String> {
    let dir = tempfile::tempdir().unwrap();
    if let Some(text) = definition {
        std::fs::write(dir.path().join("custom.toml"), text).unwrap();
    }
    let secrets: Vec<String> = secrets
        .iter()
        .map(|s| toml::Value::String((*s).to_owned()).to_string())
        .collect();
    let text = format!(
        "providers_dir = {dir:?}\n[store]\nkind = \"embedded\"\n[providers.{ROUTE}]\nkind = {kind:?}\ntolerance = \"300s\"\n[providers.{ROUTE}.tenants.t]\nsecrets = [{}]\n",
        secrets.join(", "),
        dir = dir.path().display().to_string(),
    );
    let settings =
        hookline::config::from_toml_str("test.toml", &text).map_err(|e| e.to_string())?;
    Ok((settings, dir))
}

/// A request, as the HTTP layer hands it over.
pub struct Req<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub now: i64,
}

impl<'a> Req<'a> {
    pub fn post(headers: Vec<(String, String)>, body: &[u8], now: i64) -> Self {
        Req {
            method: "POST",
            url: "https://hooks.example.com/webhooks/p/t",
            headers,
            body: body.to_vec(),
            now,
        }
    }
}

/// `req` through `verify_request` for tenant `t`.
pub fn verify(settings: &Settings, req: &Req<'_>) -> Result<Verdict, Rejection> {
    let provider = &settings.providers[ROUTE];
    let untrusted = UntrustedRequest {
        method: req.method,
        url: req.url,
        query: req.url.split_once('?').map_or("", |(_, q)| q),
        headers: &req.headers,
        body: Bytes::from(req.body.clone()),
        received_at: req.now,
    };
    verify_request(
        provider,
        &provider.tenants["t"],
        &untrusted,
        &TenantState::default(),
    )
}

/// The event ID of a request that must verify as an event.
pub fn event_id(settings: &Settings, req: &Req<'_>) -> String {
    match verify(settings, req) {
        Ok(Verdict::Event(ev)) => ev.event_id().to_string(),
        // A batch's first item (tests build batches of one).
        Ok(Verdict::Batch(events)) if !events.is_empty() => events[0].event_id().to_string(),
        other => panic!("expected an event, got {other:?}"),
    }
}

pub fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}
