//! Targets for the parsers that take text on their own: signing templates,
//! the event-ID walker, capture files, provider definitions, the
//! configuration, the admin API's names, and what a key URL answers.

use std::path::{Component, Path};
use std::sync::OnceLock;

use bytes::Bytes;
use secrecy::SecretString;
use serde_json::value::RawValue;
use serde_json::Value;

use super::first_line;
use super::request::{keys_for, NOW};
use crate::capture::{file_name_part, Capture};
use crate::lookup::DeadLetterFilters;
use crate::provider::identity;
use crate::provider::template::{Template, Values};
use crate::provider::{
    definition, sender_headers, Definitions, FetchHosts, FetchUrl, FieldSource, HeaderNames, Key,
    UntrustedRequest,
};
use crate::replay::{self, ReplayOptions};
use crate::store::EventKey;

/// A signing template (the first line), filled with a request to the URL
/// on the second line whose body is the rest. Every header and pair the
/// template names is supplied, so filling it must succeed.
pub fn template(data: &[u8]) {
    let (text, rest) = first_line(data);
    let (url, body) = first_line(rest);
    let Ok(template) = Template::parse(&text) else {
        return;
    };
    let headers = given(template.header_names());
    let pairs = given(template.pair_names());
    let values = Values {
        id: "evt_1",
        timestamp: "1700000000",
        method: "POST",
        url: &url,
        headers: &headers,
        body,
        pairs: &pairs,
    };
    let mut content = Vec::new();
    let filled = template.feed(&values, &mut |part| content.extend_from_slice(part));
    assert!(
        filled.is_ok(),
        "every header and pair the template names was given"
    );
}

/// A value for each of `names`.
fn given<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    names
        .map(|name| (name.to_owned(), "value".to_owned()))
        .collect()
}

/// An RFC 6901 pointer (the first line) into a body (the rest), walked the
/// way the event ID is found; the walk must agree with `serde_json`'s own
/// `Value::pointer` on every valid JSON body. The first line is also taken
/// as a form field name and as the value of the event ID header.
pub fn event_id(data: &[u8]) {
    let (pointer, body) = first_line(data);
    if let (Ok(raw), Ok(value)) = (
        serde_json::from_slice::<&RawValue>(body),
        serde_json::from_slice::<Value>(body),
    ) {
        let walked = identity::raw_pointer(raw, &pointer).map(|r| {
            serde_json::from_str::<Value>(r.get()).expect("a member of valid JSON is valid JSON")
        });
        assert_eq!(walked.as_ref(), value.pointer(&pointer), "{pointer:?}");
    }
    let header = HeaderNames(vec!["X-Event-Id".to_owned()]);
    let headers = vec![("X-Event-Id".to_owned(), pointer.clone())];
    for source in [
        FieldSource::JsonPointer(pointer.clone()),
        FieldSource::FormField(pointer.clone()),
        FieldSource::Header(header),
        FieldSource::BodySha256,
    ] {
        let digest = crate::provider::Fingerprint::default().digest(body);
        if let Ok((id, kind)) = identity::extract(&source, Some(&source), &headers, body, &digest) {
            for text in [id.as_str(), kind.as_str()] {
                assert!(!text.chars().any(char::is_control), "{text:?}");
            }
        }
    }
}

/// A capture file, as `hookline replay` reads it: it must write back to
/// the same capture, the writer must make a plain file name of each of its
/// names, and replay must prepare its request (re-signed or not) or refuse
/// it.
pub fn capture(data: &[u8]) {
    let Ok(capture) = serde_json::from_slice::<Capture>(data) else {
        return;
    };
    let written = serde_json::to_vec_pretty(&capture).expect("a capture serializes");
    let read: Capture = serde_json::from_slice(&written).expect("a written capture reads back");
    assert_eq!(read, capture);
    for name in [&capture.provider, &capture.tenant, &capture.path] {
        let part = file_name_part(name, 80);
        let components: Vec<_> = Path::new(&part).components().collect();
        assert!(
            matches!(components[..], [Component::Normal(c)] if c == part.as_str() && !part.starts_with('.')),
            "{name:?} became {part:?}, not one plain file name"
        );
    }
    for opts in replay_options() {
        let _ = replay::prepare(&capture, opts);
    }
}

/// Replay options with and without re-signing and a tenant override.
fn replay_options() -> &'static [ReplayOptions] {
    static OPTIONS: OnceLock<Vec<ReplayOptions>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let definitions = Definitions::load(None).expect("the built-in definitions load");
        let target = url::Url::parse("http://127.0.0.1:8080").expect("a valid URL");
        [None, Some("00112233445566778899aabbccddeeff")]
            .into_iter()
            .map(|resign| ReplayOptions {
                target: target.clone(),
                resign: resign.map(SecretString::from),
                concurrency: 1,
                rate: None,
                definitions: definitions.clone(),
                tenant: resign.map(|_| "t".to_owned()),
            })
            .collect()
    })
}

/// A provider definition file. One that loads must sign a request with a
/// key its family accepts, and have that request verified (accepted or
/// not) without a panic.
pub fn definition(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(def) = definition::parse("fuzzing.toml", text) else {
        return;
    };
    let _ = (def.methods(), def.needs_url(), def.secret_headers());
    let Some(keys) = keys_for(&def) else {
        return;
    };
    let body = br#"{"id":"evt_1","type":"fuzz.event","created":1700000000}"#;
    let url = "https://hooks.example/webhooks/p/t?q=1";
    let Ok(headers) = sender_headers(&def, &keys.signing, body, "evt_1", Some("t"), NOW, url)
    else {
        return;
    };
    let req = UntrustedRequest {
        method: "POST",
        url,
        query: "q=1",
        headers: &headers,
        body: Bytes::from_static(body),
        received_at: NOW,
    };
    let _ = def.signature.family().verify(&req, &[&keys.verifying]);
}

/// A configuration file, validated as `hookline serve` and `check-config`
/// do; valid settings are also described as `check-config` prints them.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(settings) = crate::config::from_toml_str("fuzzing.toml", text) {
        let _ = settings.describe();
    }
}

/// Names an operator gives the admin API and the CLI, one per line:
/// provider, tenant, event ID, handler. Whatever is accepted must be fit
/// for a store, a URL and a file name: no control character, never `.` or
/// `..`, no separator.
pub fn operator_input(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let [provider, tenant, event_id, handler] = [(); 4].map(|()| lines.next());
    let plain = |name: &str| {
        assert!(
            !name.is_empty()
                && name.len() <= 64
                && !name.starts_with('.')
                && !name.contains(['/', '\\', '%'])
                && !name.chars().any(char::is_control),
            "{name:?} is not a plain name"
        );
    };
    if let Ok(r) = EventKey::parse(
        provider.unwrap_or_default(),
        tenant.unwrap_or_default(),
        event_id.unwrap_or_default(),
    ) {
        plain(r.provider.as_str());
        plain(r.tenant.as_str());
        assert!(!r.event_id.as_str().chars().any(char::is_control));
        let _ = r.deliveries(None);
    }
    if let Ok(f) = DeadLetterFilters::parse(provider, tenant, handler, event_id) {
        for name in [
            f.provider.as_ref().map(|n| n.as_str()),
            f.tenant.as_ref().map(|n| n.as_str()),
            f.handler.as_ref().map(|n| n.as_str()),
        ]
        .into_iter()
        .flatten()
        {
            plain(name);
        }
        let _ = f.to_filter(Some(10));
    }
}

/// What a key URL answers, as [`Key::fetched`] reads it: a JWK Set or a
/// certificate map (Google, Kinde, Fireblocks), Circle's or eBay's key
/// answer, or a PEM certificate (AWS SNS, PayPal). A key or an error,
/// whatever a host on the allow list serves.
pub fn fetched(data: &[u8]) {
    static URL: OnceLock<FetchUrl> = OnceLock::new();
    let url = URL.get_or_init(|| {
        let hosts: FetchHosts =
            serde_json::from_value(serde_json::json!(["keys.example.com"])).expect("a host");
        hosts
            .allow("https://keys.example.com/keys")
            .expect("an allowed URL")
    });
    let _ = Key::fetched(url.clone(), data, Some(std::time::Duration::from_secs(60)));
}
