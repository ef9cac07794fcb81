//! `kind = "ebay-challenge"`: eBay validates a Marketplace Account Deletion
//! (Notification API) endpoint with `GET <endpoint>?challenge_code=C` and
//! expects `{"challengeResponse": hex SHA-256(C + verificationToken +
//! endpoint)}` (<https://developer.ebay.com/marketplace-account-deletion>;
//! the official SDK's `validateEndpoint`, `event-notification-nodejs-sdk`
//! 1.0.3, hashes the three in that order).
//!
//! The verification token is the tenant's `verify_token` (what was typed
//! into eBay's developer portal, 32 to 80 characters); the endpoint is the
//! URL eBay called without its query: the external URL
//! (`server.public_url` + the path, see `http::external_url`), which must
//! be the URL given to eBay. Without a `verify_token` the challenge is
//! refused (403), since the answer would prove nothing. The request itself
//! proves nothing either: anyone can ask; the answer reveals only a hash
//! that includes the secret token.

use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest as _, Sha256};

use super::{query_param, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// The query parameter of the challenge.
const PARAM: &str = "challenge_code";
/// The longest challenge code answered (eBay's are UUIDs).
const MAX_CODE: usize = 128;

/// eBay's endpoint challenge; it has no parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EbayChallenge {}

/// hex SHA-256(code + token + endpoint), as the SDK writes it.
fn challenge_response(code: &str, token: &str, endpoint: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(code.as_bytes());
    hash.update(token.as_bytes());
    hash.update(endpoint.as_bytes());
    hex::encode(hash.finalize())
}

impl HandshakeKind for EbayChallenge {
    fn name(&self) -> &'static str {
        "ebay-challenge"
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
        let code = query_param(req.query, PARAM)?;
        let Some(token) = tenant.verify_token else {
            return Some(Err(Rejection::HandshakeRefused));
        };
        if code.is_empty() || code.len() > MAX_CODE || code.chars().any(char::is_control) {
            return Some(Err(Rejection::MalformedPayload));
        }
        let endpoint = req.url.split_once('?').map_or(req.url, |(e, _)| e);
        if endpoint.is_empty() {
            return Some(Err(Rejection::HandshakeRefused));
        }
        let response = challenge_response(&code, token.expose_secret(), endpoint);
        Some(Ok(HandshakeAnswer::json(
            &json!({ "challengeResponse": response }),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::fetch_url::FetchHosts;
    use secrecy::SecretString;

    fn get<'a>(url: &'a str, query: &'a str) -> UntrustedRequest<'a> {
        static NO_HEADERS: Vec<(String, String)> = Vec::new();
        UntrustedRequest {
            method: "GET",
            url,
            query,
            headers: &NO_HEADERS,
            body: bytes::Bytes::new(),
            received_at: 0,
        }
    }

    #[test]
    fn the_sdks_own_test_answer() {
        // event-notification-nodejs-sdk test/test.js: "should return the
        // correct challenge response", recomputed with node:crypto.
        let token = "71745723-d031-455c-bfa5-f90d11b4f20a";
        let got = challenge_response(
            "71745723-d031-455c-bfa5-f90d11b4f20a",
            token,
            "http://www.testendpoint.com/webhook",
        );
        let mut want = Sha256::new();
        want.update(format!("{token}{token}http://www.testendpoint.com/webhook"));
        assert_eq!(got, hex::encode(want.finalize()));
    }

    #[test]
    fn answered_only_with_a_verify_token_over_the_url_without_its_query() {
        let hosts = FetchHosts::default();
        let token = SecretString::from("t".repeat(40));
        let url = "https://hooks.example.com/webhooks/ebay?challenge_code=abc";
        let creds = |verify_token| Credentials {
            keys: &[],
            verify_token,
            fetch_hosts: &hosts,
        };
        let answer = EbayChallenge {}
            .answer(&get(url, "challenge_code=abc"), &creds(Some(&token)))
            .unwrap()
            .unwrap();
        let want = challenge_response(
            "abc",
            &"t".repeat(40),
            "https://hooks.example.com/webhooks/ebay",
        );
        let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(body, json!({ "challengeResponse": want }));
        assert_eq!(answer.content_type, Some("application/json"));
        let refused = EbayChallenge {}.answer(&get(url, "challenge_code=abc"), &creds(None));
        assert!(matches!(refused, Some(Err(Rejection::HandshakeRefused))));
        let empty = EbayChallenge {}.answer(&get(url, "challenge_code="), &creds(Some(&token)));
        assert!(matches!(empty, Some(Err(Rejection::MalformedPayload))));
        assert!(EbayChallenge {}
            .answer(&get(url, "other=1"), &creds(Some(&token)))
            .is_none());
    }
}
