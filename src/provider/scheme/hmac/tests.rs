//! Unit tests of the `hmac` family's parameters.

use super::HmacParams;
use crate::provider::scheme::Family;

fn params(extra: &str) -> HmacParams {
    toml::from_str(&format!(
        "header = \"X-Sig\"\nprefix = \"sha256=\"\n{extra}"
    ))
    .unwrap()
}

#[test]
fn an_optional_prefix_is_stripped_when_present_and_not_required() {
    let p = params("prefix_optional = true");
    p.check().unwrap();
    assert_eq!(p.strip_prefix("sha256=ab12"), Some("ab12"));
    assert_eq!(p.strip_prefix("ab12"), Some("ab12"));
    let strict = params("");
    assert_eq!(strict.strip_prefix("sha256=ab12"), Some("ab12"));
    assert_eq!(strict.strip_prefix("ab12"), None);
    assert_eq!(strict.strip_prefix("sha"), None);
}

#[test]
fn an_optional_prefix_needs_a_prefix() {
    let p: HmacParams = toml::from_str("header = \"X-Sig\"\nprefix_optional = true").unwrap();
    assert!(p.check().unwrap_err().contains("prefix_optional"));
}
