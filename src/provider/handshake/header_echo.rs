//! `kind = "header-echo"`: when a subscription is created, the provider
//! POSTs a request with no body and a challenge in a header, and creates
//! the subscription only if the answer is a 200 carrying the same header
//! with the same value. RingCentral's `Validation-Token`: "the URL must
//! return the Validation-Token response header using the value that was
//! sent in the Validation-Token request header"
//! (<https://ringcentral-faq.readthedocs.io/en/latest/webhooks/>,
//! <https://developers.ringcentral.com/guide/notifications/webhooks/creating-webhooks>).
//!
//! The request carries no proof of origin and the answer reveals only the
//! caller's own challenge (at most [`super::MAX_CHALLENGE_LEN`] bytes, no
//! control characters). Only a bodiless request is the handshake: an
//! event that happens to carry the header (RingCentral's guide shows one
//! on every notification) goes on to verification, so no event is ever
//! answered as a handshake and lost.

use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// The header the challenge arrives in and is echoed in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderEcho {
    /// RingCentral: `Validation-Token`.
    pub header: String,
}

impl HandshakeKind for HeaderEcho {
    fn name(&self) -> &'static str {
        "header-echo"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn check(&self) -> Result<(), String> {
        if self.header.is_empty() {
            return Err("header: must not be empty".into());
        }
        Ok(())
    }

    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(SampleRequest::bare("POST", &[]).with_header(&self.header, challenge))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "POST" || !req.body.is_empty() {
            return None;
        }
        let challenge = req.headers.header(&self.header)?;
        Some(echoable(challenge).map(|c| {
            let mut answer = HandshakeAnswer::empty();
            answer.headers = vec![(self.header.clone(), c.to_owned())];
            answer
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::fetch_url::FetchHosts;

    fn answer(body: &'static [u8], headers: &[(String, String)]) -> Option<u16> {
        let echo = HeaderEcho {
            header: "Validation-Token".into(),
        };
        let req = UntrustedRequest {
            method: "POST",
            url: "",
            query: "",
            headers: &headers,
            body: bytes::Bytes::from_static(body),
            received_at: 0,
        };
        let hosts = FetchHosts::default();
        let creds = Credentials {
            keys: &[],
            verify_token: None,
            fetch_hosts: &hosts,
        };
        echo.answer(&req, &creds)
            .map(|r| r.map_or(400, |a| a.status))
    }

    #[test]
    fn only_a_bodiless_post_with_the_header_is_the_handshake() {
        let token = vec![("Validation-Token".to_owned(), "3a1f-77".to_owned())];
        assert_eq!(answer(b"", &token), Some(200));
        assert_eq!(answer(br#"{"uuid":"1"}"#, &token), None, "an event");
        assert_eq!(answer(b"", &[]), None);
        let control = vec![("Validation-Token".to_owned(), "a\u{7}b".to_owned())];
        assert_eq!(answer(b"", &control), Some(400));
    }
}
