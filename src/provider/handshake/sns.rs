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

use std::borrow::Cow;

use bytes::Bytes;
use serde::Deserialize;

use super::{Credentials, HandshakeAnswer, HandshakeKind, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnsSubscription {}

/// The two members that matter; the others are skipped unread.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(rename = "Type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "SubscribeURL", borrow)]
    subscribe_url: Option<Cow<'a, str>>,
}

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
        let probe: Probe<'_> = serde_json::from_slice(&req.body).ok()?;
        let confirm = match probe.kind.as_deref()? {
            "SubscriptionConfirmation" => {
                let url = probe.subscribe_url.as_deref().unwrap_or_default();
                match tenant.fetch_hosts.allow(url) {
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
