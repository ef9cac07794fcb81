//! RFC 6901 pointers into a raw JSON body, walked without building the
//! document, and the `~json` step that reads a string holding JSON (Wix
//! sends its event as JSON inside a string inside a JWT claim).

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::provider::request::Rejection;

/// A pointer step that reads the string reached so far as a JSON document
/// and goes on inside it: `/data/~json/id` is the `id` of the JSON text in
/// the string `data`. No RFC 6901 pointer has this step (`~` is followed
/// only by `0` or `1` there; a member named `~json` is written `~0json`).
pub(crate) const JSON_STEP: &str = "/~json";

pub(crate) fn check_pointer(p: &str) -> Result<(), String> {
    if p.is_empty() || p.starts_with('/') {
        Ok(())
    } else {
        Err(format!(
            "json_pointer {p:?} must be empty or start with '/'"
        ))
    }
}

/// The string or number at `pointer`: `Ok(None)` when absent or null.
pub(super) fn scalar(json: Option<&RawValue>, pointer: &str) -> Result<Option<String>, Rejection> {
    let Some(json) = json else {
        return Ok(None);
    };
    if let Some((to_string, inside)) = split_json_step(pointer) {
        let Some(raw) = raw_pointer(json, to_string) else {
            return Ok(None);
        };
        let text = match serde_json::from_str(raw.get()) {
            Ok(serde_json::Value::Null) => return Ok(None),
            Ok(serde_json::Value::String(s)) => s,
            _ => return Err(Rejection::MalformedPayload),
        };
        let inner = serde_json::from_str::<Box<RawValue>>(&text)
            .map_err(|_| Rejection::MalformedPayload)?;
        return scalar(Some(&inner), inside);
    }
    let Some(raw) = raw_pointer(json, pointer) else {
        return Ok(None);
    };
    match serde_json::from_str(raw.get()) {
        Ok(serde_json::Value::Null) => Ok(None),
        Ok(serde_json::Value::String(s)) => Ok(Some(s)),
        Ok(serde_json::Value::Number(n)) => Ok(Some(n.to_string())),
        _ => Err(Rejection::MalformedPayload),
    }
}

/// The raw value at an RFC 6901 pointer, or `None` if the path is absent.
/// Each step deserializes one level into borrowed raw members; values off
/// the path are skipped, not built.
pub(crate) fn raw_pointer<'a>(root: &'a RawValue, pointer: &str) -> Option<&'a RawValue> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut at = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token = unescape(token);
        at = match at.get().as_bytes().first()? {
            b'{' => member(at, &token)?,
            b'[' => {
                let items: Vec<&RawValue> = serde_json::from_str(at.get()).ok()?;
                items.get(array_index(&token)?).copied()?
            }
            _ => return None,
        };
    }
    Some(at)
}

/// The raw value of the member `name` of the object `obj`: the last, if
/// the name repeats (as a map built of it keeps). The other members are
/// skipped, their names compared where they lie in the body: a map of
/// them cost a `String` and a hash per member, per step.
fn member<'a>(obj: &'a RawValue, name: &str) -> Option<&'a RawValue> {
    struct Member<'n>(&'n str);

    impl<'de> Visitor<'de> for Member<'_> {
        type Value = Option<&'de RawValue>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(k) = map.next_key_seed(Name)? {
                if k == self.0 {
                    found = Some(map.next_value::<&RawValue>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }

    let mut de = serde_json::Deserializer::from_str(obj.get());
    de.deserialize_map(Member(name)).ok()?
}

/// A member name, borrowed from the body when it has no escapes.
pub(crate) struct Name;

impl<'de> DeserializeSeed<'de> for Name {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// A pointer step's `~1` and `~0` escapes, in RFC 6901's order.
pub(crate) fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~").into()
    } else {
        token.into()
    }
}

/// An array index as RFC 6901 writes it: `0`, or digits without a leading
/// zero (no sign). `01` or `+1` names no element, as in `Value::pointer`.
pub(crate) fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() > 1) {
        return None;
    }
    token.parse().ok()
}

/// `pointer` split at its first [`JSON_STEP`]: the pointer to the string
/// and the pointer inside its JSON; `None` without such a step.
fn split_json_step(pointer: &str) -> Option<(&str, &str)> {
    let mut from = 0;
    while let Some(i) = pointer[from..].find(JSON_STEP) {
        let start = from + i;
        let end = start + JSON_STEP.len();
        if end == pointer.len() || pointer.as_bytes()[end] == b'/' {
            return Some((&pointer[..start], &pointer[end..]));
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk agrees with serde_json's own `Value::pointer`.
    #[test]
    fn raw_pointer_matches_value_pointer() {
        let doc = r#"{"id":"evt_1","n":7,"event":{"type":"app_mention","a/b":1,"m~n":2},
                     "list":[{"x":true},"two"],"nil":null,"esc\u0041ped":"yes","dup":1,"dup":2}"#;
        let raw: &RawValue = serde_json::from_str(doc).unwrap();
        let value: serde_json::Value = serde_json::from_str(doc).unwrap();
        for p in [
            "",
            "/id",
            "/n",
            "/event/type",
            "/event/a~1b",
            "/event/m~0n",
            "/list/0/x",
            "/list/1",
            "/list/2",
            "/list/x",
            "/list/01",
            "/list/+1",
            "/list/-1",
            "/nil",
            "/escAped",
            "/dup",
            "/missing",
            "/id/deeper",
            "id",
        ] {
            let ours = raw_pointer(raw, p)
                .map(|r| serde_json::from_str::<serde_json::Value>(r.get()).unwrap());
            assert_eq!(ours.as_ref(), value.pointer(p), "{p:?}");
        }
    }

    #[test]
    fn json_steps_read_strings_holding_json() {
        let event = serde_json::json!({"id": "e1", "n": 7}).to_string();
        let envelope = serde_json::json!({"eventType": "t", "data": event}).to_string();
        let doc = serde_json::json!({
            "data": envelope, "nil": null, "num": 3, "bad": "{nope", "~json": "x"
        })
        .to_string();
        let raw: &RawValue = serde_json::from_str(&doc).unwrap();
        let at = |p: &str| scalar(Some(raw), p);
        assert_eq!(at("/data/~json/eventType"), Ok(Some("t".into())));
        assert_eq!(at("/data/~json/data/~json/id"), Ok(Some("e1".into())));
        assert_eq!(at("/data/~json/data/~json/n"), Ok(Some("7".into())));
        assert_eq!(at("/data/~json/data/~json/missing"), Ok(None));
        assert_eq!(at("/missing/~json/id"), Ok(None));
        assert_eq!(at("/nil/~json/id"), Ok(None));
        // A member really named `~json` is `~0json`, not the step.
        assert_eq!(at("/~0json"), Ok(Some("x".into())));
        assert_eq!(at("/~jsonx"), Ok(None));
        // Not a string, or a string that is not JSON: malformed.
        assert_eq!(at("/num/~json/id"), Err(Rejection::MalformedPayload));
        assert_eq!(at("/bad/~json/id"), Err(Rejection::MalformedPayload));
        // The document itself, parsed from the string: an object is no scalar.
        assert_eq!(at("/data/~json"), Err(Rejection::MalformedPayload));
        assert_eq!(split_json_step("/a/~json"), Some(("/a", "")));
        assert_eq!(
            split_json_step("/a/~jsonb/~json/c"),
            Some(("/a/~jsonb", "/c"))
        );
    }
}
