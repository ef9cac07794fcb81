//! `kind = "form-ping"`: when a webhook is saved, the provider POSTs an
//! unsigned form body holding one field, and keeps the webhook only if the
//! answer is a 200. WooCommerce sends `webhook_id=<id>`
//! (`WC_Webhook::deliver_ping` in
//! <https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/includes/class-wc-webhook.php>).
//!
//! The request proves nothing and the answer reveals nothing: an empty 200,
//! never an event. Only a body that is exactly that one field, with a short
//! alphanumeric value, is the ping; anything else goes on to verification.

use serde::Deserialize;

use super::{Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// The longest value taken for the ping's one field.
const MAX_VALUE_LEN: usize = 64;

/// Which field the ping's form body holds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormPing {
    /// The one field of the ping (WooCommerce: `webhook_id`).
    pub field: String,
}

impl FormPing {
    /// Whether `body` is `field=<value>` and nothing else.
    fn is_ping(&self, body: &[u8]) -> bool {
        let mut pairs = form_urlencoded::parse(body);
        let (Some((name, value)), None) = (pairs.next(), pairs.next()) else {
            return false;
        };
        name == self.field
            && !value.is_empty()
            && value.len() <= MAX_VALUE_LEN
            && value.chars().all(|c| c.is_ascii_alphanumeric())
    }
}

impl HandshakeKind for FormPing {
    fn name(&self) -> &'static str {
        "form-ping"
    }

    fn stage(&self) -> Stage {
        Stage::Unsigned
    }

    fn check(&self) -> Result<(), String> {
        if self.field.is_empty() {
            return Err("field: must not be empty".into());
        }
        Ok(())
    }

    fn sample(&self, _challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        let body = form_urlencoded::Serializer::new(String::new())
            .append_pair(&self.field, "12")
            .finish();
        Some(
            SampleRequest {
                body: body.into_bytes(),
                ..SampleRequest::bare("POST", &[])
            }
            .with_header("Content-Type", "application/x-www-form-urlencoded"),
        )
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        (req.method == "POST" && self.is_ping(&req.body)).then(|| Ok(HandshakeAnswer::empty()))
    }
}

#[cfg(test)]
mod tests {
    use super::FormPing;

    #[test]
    fn only_the_one_field_is_a_ping() {
        let ping = FormPing {
            field: "webhook_id".into(),
        };
        assert!(ping.is_ping(b"webhook_id=12"));
        for body in [
            &b""[..],
            b"webhook_id=",
            b"webhook_id=12&x=1",
            b"other=12",
            b"webhook_id=1%0A2",
            br#"{"webhook_id":12}"#,
        ] {
            assert!(!ping.is_ping(body), "{:?}", String::from_utf8_lossy(body));
        }
    }
}
