//! `scheme = "braintree"`: Braintree's form POST of `bt_signature` and
//! `bt_payload` (<https://developer.paypal.com/braintree/docs/guides/webhooks/parse/node>),
//! as the official SDK checks it (`braintree` 3.40.0,
//! `webhook_notification_gateway.js`, `digest.js`):
//!
//! - `bt_payload` is base64 of an XML notification (characters outside
//!   `[A-Za-z0-9+=/\n]` are refused, as the SDK refuses them);
//! - `bt_signature` is `&`-separated `publicKey|hexdigest` pairs; the pair
//!   whose public key is the tenant's (the first such) must carry
//!   `hex HMAC-SHA1(key = SHA1(privateKey) as 20 raw bytes, bt_payload)`,
//!   over the payload as sent or with a `\n` appended.
//!
//! The secret is the API key pair written `publicKey:privateKey`; several
//! (rotation) are each tried. The same key answers the `bt_challenge`
//! handshake (`handshake/braintree_challenge.rs`), whose answer is the same
//! HMAC over the challenge: so a payload that could be a challenge (20 to
//! 32 lower-case hex characters) is refused here, and the answer to a
//! challenge can never pass for a notification's signature.

use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha1::{Digest, Sha1};
use subtle::ConstantTimeEq;

use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::form;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// The parameters of `scheme = "braintree"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BraintreeParams {
    /// The form field of the signature pairs (`bt_signature`).
    pub signature_field: String,
    /// The form field of the signed payload (`bt_payload`).
    pub payload_field: String,
}

/// A tenant's key pair, from its secret `publicKey:privateKey`.
pub(crate) struct KeyPair<'k> {
    pub public: &'k str,
    private: &'k [u8],
}

impl<'k> KeyPair<'k> {
    /// The pair a key holds; `None` for a key of another family.
    pub(crate) fn of(key: &'k Key) -> Option<Self> {
        let bytes = key.shared_bytes()?;
        let at = bytes.iter().position(|&b| b == b':')?;
        let public = std::str::from_utf8(&bytes[..at]).ok()?;
        Some(KeyPair {
            public,
            private: &bytes[at + 1..],
        })
    }

    /// `hex HMAC-SHA1(SHA1(privateKey), data)`, as `Digest.Sha1hexdigest`.
    pub(crate) fn hexdigest(&self, data: &[u8]) -> String {
        let mut m =
            Hmac::<Sha1>::new_from_slice(&Sha1::digest(self.private)).expect("any key length");
        m.update(data);
        hex::encode(m.finalize().into_bytes())
    }
}

/// What a challenge is (the SDK's `/^[a-f0-9]{20,32}$/`).
pub(crate) fn is_challenge(text: &str) -> bool {
    (20..=32).contains(&text.len()) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Family for BraintreeParams {
    fn name(&self) -> &'static str {
        "braintree"
    }

    fn check(&self) -> Result<(), String> {
        if self.signature_field.is_empty() || self.payload_field.is_empty() {
            return Err("signature_field and payload_field must not be empty".into());
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        match secret.split_once(':') {
            Some((public, private)) if !public.is_empty() && !private.is_empty() => {
                Key::shared(secret.as_bytes().to_vec())
            }
            _ => Err(KeyError::new(
                "a Braintree secret is publicKey:privateKey (the API key pair)",
            )),
        }
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let signature = form::field(&req.body, &self.signature_field)
            .filter(|s| !s.is_empty())
            .ok_or(VerifyError::MissingSignature)?;
        let payload = form::field(&req.body, &self.payload_field)
            .filter(|p| !p.is_empty())
            .ok_or(VerifyError::InvalidSignature)?;
        if payload
            .bytes()
            .any(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'=' | b'/' | b'\n')))
            || is_challenge(payload.trim_end_matches('\n'))
        {
            return Err(VerifyError::InvalidSignature);
        }
        let pairs: Vec<(&str, &str)> = signature
            .split('&')
            .filter_map(|pair| pair.split_once('|'))
            .collect();
        let with_newline = format!("{payload}\n");
        let ok = keys.iter().filter_map(|k| KeyPair::of(k)).any(|pair| {
            let Some((_, offered)) = pairs.iter().find(|(public, _)| *public == pair.public) else {
                return false;
            };
            // Both forms are computed: no early exit on the first.
            let plain: bool = pair
                .hexdigest(payload.as_bytes())
                .as_bytes()
                .ct_eq(offered.as_bytes())
                .into();
            let newline: bool = pair
                .hexdigest(with_newline.as_bytes())
                .as_bytes()
                .ct_eq(offered.as_bytes())
                .into();
            plain | newline
        });
        if ok {
            Ok(None)
        } else {
            Err(VerifyError::InvalidSignature)
        }
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::SignedInBody)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> BraintreeParams {
        toml::from_str("signature_field = \"bt_signature\"\npayload_field = \"bt_payload\"\n")
            .unwrap()
    }

    fn request(body: String) -> UntrustedRequest<'static> {
        static NO_HEADERS: Vec<(String, String)> = Vec::new();
        UntrustedRequest {
            method: "POST",
            url: "",
            query: "",
            headers: &NO_HEADERS,
            body: bytes::Bytes::from(body),
            received_at: 0,
        }
    }

    fn form(signature: &str, payload: &str) -> String {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("bt_signature", signature)
            .append_pair("bt_payload", payload)
            .finish()
    }

    #[test]
    fn the_pair_of_the_tenant_s_public_key_verifies_with_or_without_newline() {
        let p = params();
        p.check().unwrap();
        let key = p.decode_secret("pub1:priv1").unwrap();
        let pair = KeyPair::of(&key).unwrap();
        let payload = "PG5vdGlmaWNhdGlvbj48L25vdGlmaWNhdGlvbj4=\n";
        let good = pair.hexdigest(payload.as_bytes());
        let sig = format!("other|{}&pub1|{good}", "0".repeat(40));
        assert_eq!(p.verify(&request(form(&sig, payload)), &[&key]), Ok(None));
        // Signed over the payload plus "\n": also accepted, as the SDK does.
        let trimmed = payload.trim_end();
        let sig2 = format!("pub1|{}", pair.hexdigest(payload.as_bytes()));
        assert_eq!(p.verify(&request(form(&sig2, trimmed)), &[&key]), Ok(None));
        // Rotation: another pair first.
        let old = p.decode_secret("pub0:priv0").unwrap();
        assert_eq!(
            p.verify(&request(form(&sig, payload)), &[&old, &key]),
            Ok(None)
        );
        // Wrong private key, tampered payload, pair for another public key.
        let wrong = p.decode_secret("pub1:other").unwrap();
        for (req, keys) in [
            (form(&sig, payload), vec![&wrong]),
            (
                form(&sig, "PG5vdGlmaWNhdGlvbj48L25vdGlmaWNhdGlvbj5=\n"),
                vec![&key],
            ),
            (form(&format!("pub2|{good}"), payload), vec![&key]),
            (form(&good, payload), vec![&key]),
            (form(&sig, "PG5v dGlm"), vec![&key]),
            (format!("bt_signature=pub1%7C{good}"), vec![&key]),
        ] {
            assert_eq!(
                p.verify(&request(req), &keys),
                Err(VerifyError::InvalidSignature)
            );
        }
        assert_eq!(
            p.verify(&request(format!("bt_payload={payload}")), &[&key]),
            Err(VerifyError::MissingSignature)
        );
    }

    #[test]
    fn a_challenge_answer_never_signs_a_payload() {
        let p = params();
        let key = p.decode_secret("pub1:priv1").unwrap();
        let pair = KeyPair::of(&key).unwrap();
        let challenge = "20f9f8ed05f77439fe955c977e4c8a53";
        let answer = format!("pub1|{}", pair.hexdigest(challenge.as_bytes()));
        assert_eq!(
            p.verify(&request(form(&answer, challenge)), &[&key]),
            Err(VerifyError::InvalidSignature)
        );
    }

    #[test]
    fn secrets_without_both_halves_are_refused_without_quoting_them() {
        for bad in ["justone", ":s3cr3tpart", "pubpart:", ""] {
            let err = params().decode_secret(bad).unwrap_err().to_string();
            assert!(bad.is_empty() || !err.contains(bad), "{err}");
        }
    }
}
