//! `application/x-www-form-urlencoded` bodies: a field's value (event
//! identity) and Twilio's canonical rendering of every parameter (the
//! `{form}` placeholder).

use std::collections::{BTreeMap, BTreeSet};

/// The first value of field `name`, decoded (`+` is a space, `%XX` a byte).
pub(crate) fn field(body: &[u8], name: &str) -> Option<String> {
    form_urlencoded::parse(body)
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Every parameter as `name` followed by `value`, names in order, and for a
/// name given several times each distinct value once, in order.
///
/// This is Twilio's rule, read in its SDK (`twilio` 9.13.0 on PyPI,
/// `twilio/request_validator.py`, `RequestValidator.compute_signature`):
/// `for name in sorted(set(params)): for value in sorted(set(values)): s +=
/// name + value`. Python orders strings by code point, which is the byte
/// order of their UTF-8 that `BTreeMap<String, _>` uses.
pub(crate) fn sorted_params(body: &[u8]) -> Vec<u8> {
    let mut params: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, value) in form_urlencoded::parse(body) {
        params
            .entry(name.into_owned())
            .or_default()
            .insert(value.into_owned());
    }
    let mut out = Vec::with_capacity(body.len());
    for (name, values) in &params {
        for value in values {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(value.as_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_names_are_deduplicated_and_sorted() {
        let body = b"b=2&a=y+z&b=1&a=x&b=2&c=%2B1";
        assert_eq!(sorted_params(body), b"axay zb1b2c+1".to_vec());
        assert_eq!(field(body, "a").as_deref(), Some("y z"));
        assert_eq!(field(body, "d"), None);
    }
}
