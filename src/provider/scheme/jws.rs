//! What the JWT families share: the token that is the whole body, its
//! payload read before any key is at hand, the validation that leaves only
//! the signature to `jsonwebtoken`, and the time a token's window vouches
//! for. Used by `jwt`, `jwks`, `jwt-public-key` and `x5c`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;

use super::VerifyError;

/// The compact JWT that is the whole body (trimmed): a body that is not
/// UTF-8 with three dot-separated parts carries no token.
pub(crate) fn body_token(body: &[u8]) -> Result<&str, VerifyError> {
    let body = std::str::from_utf8(body)
        .map_err(|_| VerifyError::MissingSignature)?
        .trim();
    if body.split('.').count() != 3 {
        return Err(VerifyError::MissingSignature);
    }
    Ok(body)
}

/// The payload of a compact token, not verified: for what must be checked
/// before a key is trusted or fetched (a signing time).
pub(crate) fn unverified_claims(token: &str) -> Option<Value> {
    serde_json::from_slice(&unverified_payload(token)?).ok()
}

/// The decoded payload of a compact token, not verified and not parsed.
pub(crate) fn unverified_payload(token: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(token.split('.').nth(1)?).ok()
}

/// A validation of `alg` that checks the signature only: times are checked
/// by the caller against the provider's tolerance, in both directions, and
/// the claims by each family.
pub(crate) fn signature_only(alg: Algorithm) -> Validation {
    let mut validation = Validation::new(alg);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    validation
}

/// The time a token vouches for, against `now`: `now` inside its `[from,
/// exp]` window (`from` its `nbf`, or with `iat_starts` its `iat` when it
/// has no `nbf`), else the nearest end, which the caller checks against
/// the tolerance; `None` when it has no times.
pub(crate) fn window_time(claims: &Value, now: i64, iat_starts: bool) -> Option<i64> {
    let at = |name: &str| claims.get(name).and_then(Value::as_i64);
    let from = at("nbf").or(if iat_starts { at("iat") } else { None });
    match (from, at("exp")) {
        (None, None) => None,
        (from, exp) => Some(
            now.max(from.unwrap_or(i64::MIN))
                .min(exp.unwrap_or(i64::MAX)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_bounds_the_time() {
        let c = serde_json::json!({"iat": 100, "exp": 200});
        assert_eq!(window_time(&c, 150, true), Some(150));
        assert_eq!(window_time(&c, 50, true), Some(100));
        assert_eq!(window_time(&c, 50, false), Some(50));
        assert_eq!(window_time(&c, 250, false), Some(200));
        assert_eq!(window_time(&serde_json::json!({}), 250, true), None);
        // Times that are not integers are no times.
        let text = serde_json::json!({"exp": "200"});
        assert_eq!(window_time(&text, 250, true), None);
    }

    #[test]
    fn a_body_token_has_three_parts() {
        assert_eq!(body_token(b" a.b.c\n"), Ok("a.b.c"));
        for bad in [&b""[..], b"a.b", b"a.b.c.d", b"\xff.b.c", b"{}"] {
            assert_eq!(body_token(bad), Err(VerifyError::MissingSignature));
        }
        assert_eq!(unverified_claims("a.!!.c"), None);
        assert_eq!(unverified_claims("a"), None);
    }
}
