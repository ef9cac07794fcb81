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
