//! Identity values inside an encoded payload: the claims of a JWT body, and
//! an element of a base64 XML document in a form field (Braintree's
//! `bt_payload`). Read only once the signature verified.

use base64::Engine as _;

use super::form;
use super::identity::raw_pointer;

/// The largest XML document read for an identity value, decoded; the
/// body's own cap bounds it already, this bounds the tree.
const MAX_XML_NODES: u32 = 10_000;

/// The decoded payload of a body that is a compact JWT.
pub(super) fn jwt_payload(body: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(body).ok()?.trim();
    let payload = text.split('.').nth(1)?;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()
}

/// The decoded payload of the JWT that is the string at `at` in a JSON
/// body.
pub(super) fn jwt_in_json(body: &[u8], at: &str) -> Option<Vec<u8>> {
    let json = serde_json::from_slice::<&serde_json::value::RawValue>(body).ok()?;
    let token: String = serde_json::from_str(raw_pointer(json, at)?.get()).ok()?;
    jwt_payload(token.as_bytes())
}

/// The text of the element at `path` (element names from the root, e.g.
/// `["notification", "kind"]`: a direct child of the root, never an
/// element of that name deeper in the document) in the XML document that
/// form field `field` holds as base64 (line breaks allowed).
///
/// `Ok(None)` when the field or the element is absent or empty; `Err(())`
/// when the field is not base64 of a well-formed XML document (a DTD is
/// refused: no entity is ever expanded).
pub(super) fn form_base64_xml(
    body: &[u8],
    field: &str,
    path: &[String],
) -> Result<Option<String>, ()> {
    let Some(encoded) = form::field(body, field) else {
        return Ok(None);
    };
    let compact: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let xml = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|_| ())?;
    let xml = String::from_utf8(xml).map_err(|_| ())?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_XML_NODES,
    };
    let doc = roxmltree::Document::parse_with_options(&xml, options).map_err(|_| ())?;
    let Some((root, rest)) = path.split_first() else {
        return Ok(None);
    };
    let mut at = doc.root_element();
    if !at.has_tag_name(root.as_str()) {
        return Ok(None);
    }
    for name in rest {
        match at.children().find(|n| n.has_tag_name(name.as_str())) {
            Some(child) => at = child,
            None => return Ok(None),
        }
    }
    Ok(at
        .text()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(xml: &str) -> Vec<u8> {
        let b64 = base64::engine::general_purpose::STANDARD.encode(xml);
        let mut s = form_urlencoded::Serializer::new(String::new());
        s.append_pair("bt_signature", "p|x")
            .append_pair("bt_payload", &format!("{b64}\n"));
        s.finish().into_bytes()
    }

    fn kind(body: &[u8]) -> Result<Option<String>, ()> {
        form_base64_xml(body, "bt_payload", &["notification".into(), "kind".into()])
    }

    #[test]
    fn the_kind_is_the_root_child_not_a_nested_one() {
        let xml = "<notification><subject><dispute><kind>chargeback</kind></dispute></subject>\
                   <kind>dispute_opened</kind></notification>";
        assert_eq!(kind(&body(xml)), Ok(Some("dispute_opened".into())));
        let nested_only = "<notification><subject><kind>chargeback</kind></subject></notification>";
        assert_eq!(kind(&body(nested_only)), Ok(None));
        assert_eq!(kind(&body("<other><kind>x</kind></other>")), Ok(None));
        assert_eq!(kind(b"bt_signature=p%7Cx"), Ok(None));
    }

    #[test]
    fn hostile_payloads_are_malformed_not_expanded() {
        let dtd =
            "<!DOCTYPE n [<!ENTITY a \"aaaa\">]><notification><kind>&a;</kind></notification>";
        assert_eq!(kind(&body(dtd)), Err(()));
        assert_eq!(kind(&body("<notification><kind>")), Err(()));
        assert_eq!(kind(b"bt_payload=%%%not-base64"), Err(()));
        let not_utf8 = base64::engine::general_purpose::STANDARD.encode([0xff, 0xfe]);
        assert_eq!(kind(format!("bt_payload={not_utf8}").as_bytes()), Err(()));
    }
}
