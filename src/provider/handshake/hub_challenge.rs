//! `kind = "hub-challenge"`: WebSub-style verification (Meta: Facebook,
//! Instagram, WhatsApp; Strava). A `GET
//! ?hub.mode=subscribe&hub.challenge=C&hub.verify_token=T` is answered with
//! `C` only when `T` is the tenant's `verify_token`, compared in constant
//! time; anything else is 403
//! (<https://developers.facebook.com/docs/graph-api/webhooks/getting-started#verification-requests>).

use secrecy::ExposeSecret;
use serde::Deserialize;
use subtle::ConstantTimeEq;

use super::{
    echoable, query_param, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage,
};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters: the proof is the tenant's `verify_token`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HubChallenge {}

impl HandshakeKind for HubChallenge {
    fn name(&self) -> &'static str {
        "hub-challenge"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn methods(&self) -> &'static [&'static str] {
        &["GET"]
    }

    fn sample(&self, challenge: &str, verify_token: Option<&str>) -> Option<SampleRequest> {
        Some(SampleRequest::bare(
            "GET",
            &[
                ("hub.mode", "subscribe"),
                ("hub.challenge", challenge),
                ("hub.verify_token", verify_token.unwrap_or_default()),
            ],
        ))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "GET" {
            return None;
        }
        let mode = query_param(req.query, "hub.mode");
        let challenge = query_param(req.query, "hub.challenge");
        let offered = query_param(req.query, "hub.verify_token");
        if mode.is_none() && challenge.is_none() && offered.is_none() {
            return None;
        }
        // Without a configured token nothing can be proven: refused, as a
        // wrong token is.
        let proven = match (tenant.verify_token, offered) {
            (Some(expected), Some(offered)) => bool::from(
                expected
                    .expose_secret()
                    .as_bytes()
                    .ct_eq(offered.as_bytes()),
            ),
            _ => false,
        };
        if mode.as_deref() != Some("subscribe") || !proven {
            return Some(Err(Rejection::HandshakeRefused));
        }
        Some(match challenge {
            Some(c) => echoable(&c).map(HandshakeAnswer::echo),
            None => Err(Rejection::MalformedPayload),
        })
    }
}
