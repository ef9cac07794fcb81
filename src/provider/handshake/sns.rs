//! `kind = "sns-subscription"`: subscribing an HTTP/S endpoint to an SNS
//! topic sends it a `SubscriptionConfirmation`, signed like every message,
//! whose `SubscribeURL` must be fetched to confirm
//! (<https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.prepare.html>).
//!
//! It is recognised only once the signature verified (and the topic is
//! one of the tenant's), so nobody else can make hookline fetch a URL; the
//! URL itself must be `https` on one of the provider's `fetch_hosts`, or
//! the handshake is refused. The HTTP layer fetches it before answering
//! ([`HandshakeAnswer::confirm`]). An `UnsubscribeConfirmation` is answered
//! 200 and fetches nothing. Neither is ever an event.
//!
//! The body is read by [`Members::parse`], the very reading the signature
//! was checked on: a message the signature check accepted is recognised
//! here by the same `Type`.

use bytes::Bytes;
use serde::Deserialize;

use super::{Credentials, HandshakeAnswer, HandshakeKind, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};
use crate::provider::scheme::rsa_cert_url::sns::Members;

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnsSubscription {}

impl HandshakeKind for SnsSubscription {
    fn name(&self) -> &'static str {
        "sns-subscription"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn fetches(&self) -> bool {
        true
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        let members = Members::parse(&req.body).ok()?;
        let confirm = match members.text("Type").ok()?? {
            "SubscriptionConfirmation" => {
                let url = members.text("SubscribeURL").ok().flatten();
                match url.and_then(|url| tenant.fetch_hosts.allow(url)) {
                    Some(url) => Some(url),
                    None => return Some(Err(Rejection::HandshakeRefused)),
                }
            }
            "UnsubscribeConfirmation" => None,
            _ => return None,
        };
        Some(Ok(HandshakeAnswer {
            status: 200,
            content_type: None,
            body: Bytes::new(),
            headers: Vec::new(),
            store_secret: None,
            confirm,
        }))
    }
}
