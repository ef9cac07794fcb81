//! `kind = "braintree-challenge"`: when a webhook is created, Braintree
//! sends `GET <url>?bt_challenge=<hex>` and expects the body
//! `publicKey|hex HMAC-SHA1(SHA1(privateKey), challenge)`, as the official
//! SDK's `webhookNotification.verify` writes it (`braintree` 3.40.0), which
//! refuses a challenge that is not 20 to 32 lower-case hex characters
//! (<https://developer.paypal.com/braintree/docs/guides/webhooks/create>).
//!
//! The request proves nothing: anyone can ask for the MAC of a short hex
//! string. The `braintree` family refuses every payload of that shape, so
//! such an answer never signs a notification. With several key pairs
//! (rotation), the first configured answers.

use serde::Deserialize;

use super::{query_param, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};
use crate::provider::scheme::braintree::{is_challenge, KeyPair};
use crate::provider::scheme::VerifyError;

/// The query parameter of the challenge.
const PARAM: &str = "bt_challenge";

/// Braintree's challenge; it has no parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BraintreeChallenge {}

impl HandshakeKind for BraintreeChallenge {
    fn name(&self) -> &'static str {
        "braintree-challenge"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn methods(&self) -> &'static [&'static str] {
        &["GET"]
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(SampleRequest::bare("GET", &[(PARAM, challenge)]))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "GET" {
            return None;
        }
        let challenge = query_param(req.query, PARAM)?;
        if !is_challenge(&challenge) {
            return Some(Err(Rejection::MalformedPayload));
        }
        let Some(pair) = tenant.keys.iter().find_map(|k| KeyPair::of(k)) else {
            return Some(Err(VerifyError::InvalidSignature.into()));
        };
        let body = format!("{}|{}", pair.public, pair.hexdigest(challenge.as_bytes()));
        let mut answer = HandshakeAnswer::echo(&body);
        answer.content_type = Some("text/plain");
        Some(Ok(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::fetch_url::FetchHosts;
    use crate::provider::key::Key;
    use crate::provider::scheme::Family as _;

    fn get(query: &str) -> UntrustedRequest<'_> {
        static NO_HEADERS: Vec<(String, String)> = Vec::new();
        UntrustedRequest {
            method: "GET",
            url: "",
            query,
            headers: &NO_HEADERS,
            body: bytes::Bytes::new(),
            received_at: 0,
        }
    }

    fn answer(query: &str, keys: &[&Key]) -> Option<Result<HandshakeAnswer, Rejection>> {
        let hosts = FetchHosts::default();
        let creds = Credentials {
            keys,
            verify_token: None,
            fetch_hosts: &hosts,
        };
        BraintreeChallenge {}.answer(&get(query), &creds)
    }

    #[test]
    fn only_short_lower_hex_challenges_are_answered() {
        let params: crate::provider::scheme::braintree::BraintreeParams =
            toml::from_str("signature_field = \"s\"\npayload_field = \"p\"\n").unwrap();
        let key = params.decode_secret("pub1:priv1").unwrap();
        let ok = answer("bt_challenge=20f9f8ed05f77439fe955c977e4c8a53", &[&key])
            .unwrap()
            .unwrap();
        assert!(ok.body.starts_with(b"pub1|"));
        assert_eq!(ok.body.len(), "pub1|".len() + 40);
        for bad in [
            "bt_challenge=20F9F8ED05F77439FE955C977E4C8A53",
            "bt_challenge=abc",
            "bt_challenge=20f9f8ed05f77439fe955c977e4c8a53aaaaaaaa",
            "bt_challenge=%3Cnotification%3E0000000000000000",
        ] {
            assert!(
                matches!(answer(bad, &[&key]), Some(Err(Rejection::MalformedPayload))),
                "{bad}"
            );
        }
        assert!(answer("other=1", &[&key]).is_none());
        assert!(matches!(
            answer("bt_challenge=20f9f8ed05f77439fe955c977e4c8a53", &[]),
            Some(Err(_))
        ));
    }
}
