//! A handshake that hands over the signing secret (Asana): a `POST` with
//! the secret in a header (`X-Hook-Secret`) and no signature, answered with
//! the same header once the secret is stored durably for the provider and
//! tenant; later events are verified against it.
//!
//! It carries no proof of origin, so it is accepted only while the tenant
//! has no key at all (configured or stored): a second one is refused (403)
//! until an operator re-arms the tenant (`hookline handshake reset`, or the
//! admin API), which forgets the stored secret.

use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSecret {
    /// The header carrying the secret, echoed in the answer.
    header: String,
}

impl HandshakeKind for HookSecret {
    fn name(&self) -> &'static str {
        "hook-secret"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn stores_secret(&self) -> bool {
        true
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method != "POST" {
            return None;
        }
        let secret = req.headers.header(&self.header)?;
        Some((|| {
            let secret = echoable(secret)?;
            if !tenant.keys.is_empty() {
                return Err(Rejection::HandshakeRefused);
            }
            Ok(HandshakeAnswer {
                status: 200,
                content_type: None,
                body: bytes::Bytes::new(),
                headers: vec![(self.header.clone(), secret.to_owned())],
                store_secret: Some(secret.to_owned().into()),
                confirm: None,
            })
        })())
    }
}
