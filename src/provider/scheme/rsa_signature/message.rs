//! What an `rsa` signature covers: a template of the request, or (with
//! `[signature.form]`) the sorted parameters of a form body; and the
//! hashing and padding of the family (its keys: `scheme/rsa_key.rs`).

use std::collections::BTreeMap;

use rsa::Pkcs1v15Sign;
use serde::Deserialize;
use sha2::Digest;

use crate::provider::scheme::mac::Algorithm;

/// `[signature.form]`: the signature is a field of an
/// `application/x-www-form-urlencoded` body, over the other fields.
///
/// The signed message is every other parameter, sorted by name (byte
/// order), written `name=value` with the decoded value and joined by `&`:
/// Alipay's 签名机制 (<https://global.alipay.com/doc/app_cn/ds_mechanism>),
/// as `alipay-sdk` 4.14.0 `checkNotifySignV2` rebuilds it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormSignature {
    /// The form field carrying the signature (Alipay: `sign`).
    pub field: String,
    /// Other fields the signature leaves out (Alipay: `sign_type`).
    #[serde(default)]
    pub unsigned: Vec<String>,
}

/// Why a form body yields no message to verify.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum FormError {
    /// The signature field is absent (or empty).
    Missing,
    /// A name given twice: which value was signed is ambiguous, and a
    /// signer never sends one.
    Ambiguous,
}

impl FormSignature {
    pub(super) fn check(&self) -> Result<(), String> {
        if self.field.is_empty() || self.unsigned.iter().any(String::is_empty) {
            return Err("form.field and form.unsigned must not be empty names".into());
        }
        Ok(())
    }

    /// The signature text and the signed message of `body`.
    pub(super) fn split(&self, body: &[u8]) -> Result<(String, Vec<u8>), FormError> {
        let mut signature = None;
        let mut signed: BTreeMap<String, String> = BTreeMap::new();
        for (name, value) in form_urlencoded::parse(body) {
            if name == self.field {
                if signature.replace(value.into_owned()).is_some() {
                    return Err(FormError::Ambiguous);
                }
            } else if self.unsigned.iter().any(|u| *u == name) {
                continue;
            } else if name.is_empty() {
                // The SDK drops empty names (`.filter(val => val)`).
                continue;
            } else if signed
                .insert(name.into_owned(), value.into_owned())
                .is_some()
            {
                return Err(FormError::Ambiguous);
            }
        }
        let signature = signature
            .filter(|s| !s.trim().is_empty())
            .ok_or(FormError::Missing)?;
        let mut message = Vec::with_capacity(body.len());
        for (i, (name, value)) in signed.iter().enumerate() {
            if i > 0 {
                message.push(b'&');
            }
            message.extend_from_slice(name.as_bytes());
            message.push(b'=');
            message.extend_from_slice(value.as_bytes());
        }
        Ok((signature, message))
    }
}

pub(super) fn digest(algorithm: Algorithm, data: &[u8]) -> Vec<u8> {
    match algorithm {
        Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
        Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
        Algorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
    }
}

pub(super) fn padding(algorithm: Algorithm) -> Pkcs1v15Sign {
    match algorithm {
        Algorithm::Sha1 => Pkcs1v15Sign::new::<sha1::Sha1>(),
        Algorithm::Sha256 => Pkcs1v15Sign::new::<sha2::Sha256>(),
        Algorithm::Sha512 => Pkcs1v15Sign::new::<sha2::Sha512>(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alipay() -> FormSignature {
        FormSignature {
            field: "sign".into(),
            unsigned: vec!["sign_type".into()],
        }
    }

    #[test]
    fn the_message_is_the_other_fields_sorted_and_decoded() {
        let body = b"b=2+3&sign=c2ln&a=%E6%B5%8B&sign_type=RSA2&c=";
        let (sig, message) = alipay().split(body).unwrap();
        assert_eq!(sig, "c2ln");
        assert_eq!(message, "a=\u{6d4b}&b=2 3&c=".as_bytes());
    }

    #[test]
    fn a_missing_or_repeated_field_is_refused() {
        assert_eq!(alipay().split(b"a=1"), Err(FormError::Missing));
        assert_eq!(alipay().split(b"a=1&sign="), Err(FormError::Missing));
        assert_eq!(
            alipay().split(b"a=1&sign=x&sign=y"),
            Err(FormError::Ambiguous)
        );
        assert_eq!(alipay().split(b"a=1&a=2&sign=x"), Err(FormError::Ambiguous));
        // Hostile encodings decode lossily, never panic.
        assert!(alipay().split(b"a=%ZZ%&sign=%FF%FE").is_ok());
    }
}
