//! Event identity: where a definition finds the event ID and event type,
//! and how they are taken out of a verified request.

use serde::Deserialize;
use serde_json::value::RawValue;

mod pointer;

use pointer::scalar;
pub(crate) use pointer::{array_index, check_pointer, raw_pointer, unescape, Name};

use super::header::{HeaderLookup, HeaderNames};
use super::request::Rejection;
use super::{form, payload};
pub use crate::ids::MAX_EVENT_ID_LEN;
use crate::ids::{BodyDigest, EventId, EventType, IdError};

/// Where a value (event ID, event type) lives. In TOML, exactly one of
/// `header`, `json_pointer` (one pointer, or a list of which the first
/// present wins), `json_pointers` (with `join`), `form_field` or
/// `body_sha256 = true`.
///
/// In every pointer of `json_pointer`, `json_pointers` and
/// `jwt_payload_pointer`, a `~json` step reads the string reached so far
/// as a JSON document and goes on inside it: Wix's event ID is
/// `/data/~json/data/~json/id`, the claim `data` holding JSON text whose
/// own `data` holds JSON text again.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawFieldSource")]
pub enum FieldSource {
    /// A header (or the first present of several).
    Header(HeaderNames),
    /// An RFC 6901 JSON pointer into the body.
    JsonPointer(String),
    /// Several pointers, of which the first present (and not null) wins:
    /// Azure Event Grid's type is `/eventType` in its own schema and
    /// `/type` in CloudEvents.
    AnyJsonPointer(Vec<String>),
    /// Several JSON pointers whose values, all present, are joined with
    /// the separator: Adyen's `eventCode` + `pspReference`, since one
    /// `pspReference` is shared by a payment and its chargeback.
    JsonPointers(Vec<String>, String),
    /// A field of an `application/x-www-form-urlencoded` body.
    FormField(String),
    /// An RFC 6901 JSON pointer into the payload of a JWT: the body
    /// (Kinde), or the string at the second pointer of a JSON body
    /// (Apple's `/signedPayload`). Read once the signature is verified, so
    /// from signed data.
    JwtPayloadPointer(String, Option<String>),
    /// The text of an element (a path of names from the root) of the XML
    /// document a form field holds as base64: Braintree's
    /// `<notification><kind>` in `bt_payload`.
    FormBase64Xml(String, Vec<String>),
    /// The hex SHA-256 of the raw body, for providers that send no ID: an
    /// identical retry is then a duplicate. Event ID only.
    BodySha256,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFieldSource {
    /// Header name(s); the first present wins.
    #[serde(default)]
    header: Option<HeaderNames>,
    /// RFC 6901 JSON pointer into the body, or a list (first present).
    #[serde(default)]
    json_pointer: Option<OneOrMany>,
    /// Several pointers, joined with `join`.
    #[serde(default)]
    json_pointers: Option<Vec<String>>,
    /// The separator for `json_pointers`.
    #[serde(default)]
    join: Option<String>,
    /// Name of a form field.
    #[serde(default)]
    form_field: Option<String>,
    /// RFC 6901 JSON pointer into the payload of a JWT body.
    #[serde(default)]
    jwt_payload_pointer: Option<String>,
    /// With `jwt_payload_pointer`: the JSON pointer of the JWT in a JSON
    /// body; the whole body is the JWT without it.
    #[serde(default)]
    jwt_in: Option<String>,
    /// Name of a form field holding base64 XML, read at `xml_element`.
    #[serde(default)]
    form_base64_xml: Option<String>,
    /// With `form_base64_xml`: the element's path of names from the root,
    /// `/`-separated (`notification/kind`).
    #[serde(default)]
    xml_element: Option<String>,
    /// `true`: the hex SHA-256 of the body.
    #[serde(default)]
    body_sha256: bool,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl TryFrom<RawFieldSource> for FieldSource {
    type Error = String;

    fn try_from(raw: RawFieldSource) -> Result<Self, String> {
        let mut set = Vec::new();
        if let Some(h) = raw.header {
            set.push(FieldSource::Header(h));
        }
        match raw.json_pointer {
            Some(OneOrMany::One(p)) => {
                check_pointer(&p)?;
                set.push(FieldSource::JsonPointer(p));
            }
            Some(OneOrMany::Many(pointers)) => {
                if pointers.is_empty() {
                    return Err("json_pointer: a list needs at least one pointer".into());
                }
                pointers.iter().try_for_each(|p| check_pointer(p))?;
                set.push(FieldSource::AnyJsonPointer(pointers));
            }
            None => {}
        }
        match (raw.json_pointers, raw.join) {
            (Some(pointers), Some(join)) => {
                if pointers.len() < 2 || join.is_empty() {
                    return Err(
                        "json_pointers needs two pointers or more and a non-empty join".into(),
                    );
                }
                pointers.iter().try_for_each(|p| check_pointer(p))?;
                set.push(FieldSource::JsonPointers(pointers, join));
            }
            (None, None) => {}
            _ => return Err("json_pointers and join go together".into()),
        }
        if let Some(f) = raw.form_field {
            if f.is_empty() {
                return Err("form_field must not be empty".into());
            }
            set.push(FieldSource::FormField(f));
        }
        match (raw.form_base64_xml, raw.xml_element) {
            (Some(field), Some(path)) => {
                let path: Vec<String> = path.split('/').map(str::to_owned).collect();
                if field.is_empty() || path.iter().any(String::is_empty) {
                    return Err("form_base64_xml and xml_element need non-empty names".into());
                }
                set.push(FieldSource::FormBase64Xml(field, path));
            }
            (None, None) => {}
            _ => return Err("form_base64_xml and xml_element go together".into()),
        }
        if raw.body_sha256 {
            set.push(FieldSource::BodySha256);
        }
        match (raw.jwt_payload_pointer, raw.jwt_in) {
            (Some(p), jwt_in) => {
                check_pointer(&p)?;
                if let Some(at) = &jwt_in {
                    check_pointer(at)?;
                }
                set.push(FieldSource::JwtPayloadPointer(p, jwt_in));
            }
            (None, None) => {}
            (None, Some(_)) => return Err("jwt_in goes with jwt_payload_pointer".into()),
        }
        match set.len() {
            1 => Ok(set.remove(0)),
            _ => Err(
                "set exactly one of header, json_pointer, json_pointers, form_field, body_sha256 = true, \
                 jwt_payload_pointer, form_base64_xml"
                    .into(),
            ),
        }
    }
}

/// The event ID and event type of a verified request.
pub(crate) fn extract(
    event_id: &FieldSource,
    event_type: Option<&FieldSource>,
    headers: &dyn HeaderLookup,
    body: &[u8],
    digest: &BodyDigest,
) -> Result<(EventId, EventType), Rejection> {
    // Validate the body as JSON only if a pointer needs it, and only once.
    // It stays raw: extraction walks just the pointer's path, so a large
    // body is never built into a tree of allocated values.
    let needs_json = std::iter::once(event_id).chain(event_type).any(|s| {
        matches!(
            s,
            FieldSource::JsonPointer(_)
                | FieldSource::AnyJsonPointer(_)
                | FieldSource::JsonPointers(..)
        )
    });
    let json = if needs_json {
        Some(serde_json::from_slice::<&RawValue>(body).map_err(|_| Rejection::MalformedPayload)?)
    } else {
        None
    };
    // Control characters (NUL above all, which PostgreSQL text cannot
    // hold) and overlong values would make the request fail on every
    // retry: the newtypes refuse them now, as malformed.
    let id = match EventId::parse(value(event_id, headers, body, digest, json)?.unwrap_or_default())
    {
        Ok(id) => id,
        Err(IdError::Empty) => return Err(Rejection::MissingEventId),
        Err(_) => return Err(Rejection::MalformedPayload),
    };
    let kind = match event_type {
        Some(src) => value(src, headers, body, digest, json)?.unwrap_or_default(),
        None => String::new(),
    };
    let kind = EventType::parse(kind).map_err(|_| Rejection::MalformedPayload)?;
    Ok((id, kind))
}

/// The value at `src`: `Ok(None)` when absent; an object or array where a
/// scalar belongs is malformed.
fn value(
    src: &FieldSource,
    headers: &dyn HeaderLookup,
    body: &[u8],
    digest: &BodyDigest,
    json: Option<&RawValue>,
) -> Result<Option<String>, Rejection> {
    match src {
        FieldSource::Header(names) => Ok(headers.first_of(names).map(|v| v.trim().to_owned())),
        FieldSource::FormField(name) => Ok(form::field(body, name)),
        FieldSource::FormBase64Xml(field, path) => {
            payload::form_base64_xml(body, field, path).map_err(|()| Rejection::MalformedPayload)
        }
        // An empty body names no event: every one would share this ID, and
        // distinct events would be taken for duplicates of the first.
        FieldSource::BodySha256 if body.is_empty() => Ok(None),
        // The content digest the conflict check compares: the body's
        // SHA-256, or its fingerprint's, so a retry that rewrites only the
        // envelope keeps its ID (Pipedrive's `retry`); hashed once.
        FieldSource::BodySha256 => Ok(Some(digest.to_string())),
        FieldSource::JsonPointer(pointer) => scalar(json, pointer),
        FieldSource::JwtPayloadPointer(pointer, jwt_in) => {
            let payload = match jwt_in {
                None => payload::jwt_payload(body),
                Some(at) => payload::jwt_in_json(body, at),
            }
            .ok_or(Rejection::MalformedPayload)?;
            let json = serde_json::from_slice::<&RawValue>(&payload)
                .map_err(|_| Rejection::MalformedPayload)?;
            scalar(Some(json), pointer)
        }
        FieldSource::AnyJsonPointer(pointers) => {
            for pointer in pointers {
                if let Some(v) = scalar(json, pointer)? {
                    return Ok(Some(v));
                }
            }
            Ok(None)
        }
        FieldSource::JsonPointers(pointers, join) => {
            let mut parts = Vec::with_capacity(pointers.len());
            for pointer in pointers {
                match scalar(json, pointer)? {
                    Some(part) => parts.push(part),
                    // A composite ID missing a part would merge events.
                    None => return Ok(None),
                }
            }
            Ok(Some(parts.join(join)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{extract, FieldSource};
    use crate::provider::request::Rejection;

    #[test]
    fn an_empty_body_names_no_event_by_its_hash() {
        let headers: Vec<(String, String)> = Vec::new();
        let digest = |body: &[u8]| crate::provider::Fingerprint::default().digest(body);
        let got = extract(&FieldSource::BodySha256, None, &headers, b"", &digest(b""));
        assert_eq!(got.unwrap_err(), Rejection::MissingEventId);
        let (id, _) = extract(
            &FieldSource::BodySha256,
            None,
            &headers,
            b"x",
            &digest(b"x"),
        )
        .unwrap();
        assert_eq!(id.as_str(), digest(b"x").to_string());
    }

    #[test]
    fn exactly_one_source() {
        let parse = |s: &str| toml::from_str::<FieldSource>(s);
        assert_eq!(
            parse("form_field = \"MessageSid\"").unwrap(),
            FieldSource::FormField("MessageSid".into())
        );
        assert_eq!(
            parse("body_sha256 = true").unwrap(),
            FieldSource::BodySha256
        );
        assert_eq!(
            parse("json_pointer = [\"/eventType\", \"/type\"]").unwrap(),
            FieldSource::AnyJsonPointer(vec!["/eventType".into(), "/type".into()])
        );
        assert_eq!(
            parse("json_pointers = [\"/a\", \"/b\"]\njoin = \":\"").unwrap(),
            FieldSource::JsonPointers(vec!["/a".into(), "/b".into()], ":".into())
        );
        for bad in [
            "",
            "body_sha256 = false",
            "header = \"X-Id\"\njson_pointer = \"/id\"",
            "json_pointer = \"id\"",
            "json_pointer = []",
            "json_pointer = [\"/a\", \"b\"]",
            "jsonpointer = \"/id\"",
            "json_pointers = [\"/a\", \"/b\"]",
            "json_pointers = [\"/a\"]\njoin = \":\"",
            "json_pointers = [\"/a\", \"b\"]\njoin = \":\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
