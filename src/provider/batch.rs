//! Batches: one signed request that carries several events.
//!
//! Azure Event Grid posts an array of events, LINE an object whose
//! `events` member is one, HubSpot and Okta likewise. Keyed by the first
//! item only, a batch whose first item was seen would hide the others, so a
//! definition that declares `batch = "/events"` (or `""` for a body that is
//! itself the array) makes each item its own event: its own ID, dedup key
//! and delivery. The items are slices of the signed body, byte for byte.
//! An object where the array belongs is a batch of one (CloudEvents'
//! single-event mode); an empty array is a batch of none (LINE's Verify
//! button), answered 200 with nothing recorded.

use bytes::Bytes;
use serde_json::value::RawValue;

use super::identity::raw_pointer;
use super::request::Rejection;

/// The items of the batch at `pointer` in `body`, each as the exact bytes
/// it has in the body.
pub(crate) fn items(body: &Bytes, pointer: &str) -> Result<Vec<Bytes>, Rejection> {
    let root: &RawValue = serde_json::from_slice(body).map_err(|_| Rejection::MalformedPayload)?;
    let Some(at) = raw_pointer(root, pointer) else {
        // A request with no batch at all carries no event.
        return Err(Rejection::MissingEventId);
    };
    let slice = |raw: &RawValue| body.slice_ref(raw.get().as_bytes());
    match at.get().as_bytes().first() {
        Some(b'[') => {
            let items: Vec<&RawValue> =
                serde_json::from_str(at.get()).map_err(|_| Rejection::MalformedPayload)?;
            Ok(items.into_iter().map(slice).collect())
        }
        Some(b'{') => Ok(vec![slice(at)]),
        _ => Err(Rejection::MalformedPayload),
    }
}

#[cfg(test)]
mod tests {
    use super::items;
    use crate::provider::Rejection;
    use bytes::Bytes;

    #[test]
    fn each_item_is_its_exact_bytes() {
        let body = Bytes::from_static(
            br#"{"destination":"U1","events":[ {"webhookEventId":"a", "n" : 1},{"webhookEventId":"b"} ]}"#,
        );
        let got = items(&body, "/events").unwrap();
        assert_eq!(
            got,
            vec![
                Bytes::from_static(br#"{"webhookEventId":"a", "n" : 1}"#),
                Bytes::from_static(br#"{"webhookEventId":"b"}"#)
            ]
        );
    }

    #[test]
    fn the_root_array_an_object_as_one_and_an_empty_batch() {
        let root = Bytes::from_static(br#"[{"id":"1"},{"id":"2"},{"id":"3"}]"#);
        assert_eq!(items(&root, "").unwrap().len(), 3);
        let single = Bytes::from_static(br#"{"specversion":"1.0","id":"1"}"#);
        assert_eq!(items(&single, "").unwrap(), vec![single.clone()]);
        let empty = Bytes::from_static(br#"{"destination":"U1","events":[]}"#);
        assert!(items(&empty, "/events").unwrap().is_empty());
    }

    #[test]
    fn what_is_not_a_batch() {
        let body = Bytes::from_static(br#"{"events":"x"}"#);
        assert_eq!(items(&body, "/events"), Err(Rejection::MalformedPayload));
        assert_eq!(items(&body, "/missing"), Err(Rejection::MissingEventId));
        assert_eq!(
            items(&Bytes::from_static(b"not json"), ""),
            Err(Rejection::MalformedPayload)
        );
    }
}
