//! The sender's side: every header a provider of some kind puts on a
//! request, for `hookline sign`, `replay --resign`, the tests and the
//! benchmark.

use super::definition::ProviderDef;
use super::identity::FieldSource;
use super::key::Key;
use super::scheme::{SignError, SignInput};

/// What a sender of this kind sends with `body`, as a `POST` to `url`:
/// content type, the event ID and type headers (where the definition reads
/// them from headers), and the scheme's signature headers.
pub fn sender_headers(
    def: &ProviderDef,
    key: &Key,
    body: &[u8],
    id: &str,
    event_type: Option<&str>,
    timestamp: i64,
    url: &str,
) -> Result<Vec<(String, String)>, SignError> {
    let mut headers = vec![("Content-Type".to_owned(), def.content_type.clone())];
    if let FieldSource::Header(names) = &def.event_id {
        // Standard Webhooks' id header is also the signed id: the scheme
        // adds it.
        if def.signed_id_header() != Some(names) {
            headers.push((names.primary().to_owned(), id.to_owned()));
        }
    }
    if let (Some(FieldSource::Header(names)), Some(t)) = (&def.event_type, event_type) {
        headers.push((names.primary().to_owned(), t.to_owned()));
    }
    let signed = def.sign(
        key,
        &SignInput {
            method: "POST",
            url,
            headers: &headers,
            body,
            id,
            timestamp,
        },
    )?;
    headers.extend(signed);
    Ok(headers)
}

/// The Standard Webhooks definition deliveries are signed with.
fn standard_webhooks() -> &'static ProviderDef {
    use std::sync::{Arc, OnceLock};
    static DEF: OnceLock<Arc<ProviderDef>> = OnceLock::new();
    DEF.get_or_init(|| {
        super::Definitions::load(None)
            .expect("built-in definitions parse")
            .get("standard-webhooks")
            .expect("standard-webhooks is built in")
            .clone()
    })
}

/// A handler's `signing_secret` (`whsec_` base64) as the key deliveries are
/// signed with.
pub fn decode_signing_secret(secret: &str) -> Result<Key, super::KeyError> {
    standard_webhooks().decode_secret(secret)
}

/// The `webhook-signature` value Standard Webhooks puts on a message with
/// this `id`, `timestamp` and `body`, signed with `key` (from
/// [`decode_signing_secret`]).
pub fn standard_webhooks_signature(key: &Key, id: &str, timestamp: i64, body: &[u8]) -> String {
    let headers = standard_webhooks()
        .sign(
            key,
            &SignInput {
                method: "POST",
                url: "",
                headers: &[],
                body,
                id,
                timestamp,
            },
        )
        // The key came from decode_signing_secret on this very definition,
        // whose template reads no header: signing cannot fail.
        .expect("a Standard Webhooks key signs");
    headers
        .into_iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("webhook-signature"))
        .map(|(_, value)| value)
        .expect("Standard Webhooks signs with webhook-signature")
}
