//! `message = "paypal"`: PayPal's REST webhooks, verified the way
//! PayPal's own SDK verifies them locally
//! (<https://developer.paypal.com/api/rest/webhooks/rest/>).
//!
//! `PAYPAL-TRANSMISSION-SIG` is the base64 RSA signature, with
//! `PAYPAL-AUTH-ALGO` (`SHA256withRSA`), of
//!
//! ```text
//! PAYPAL-TRANSMISSION-ID|PAYPAL-TRANSMISSION-TIME|webhook ID|CRC32 of the body
//! ```
//!
//! the CRC32 written as an unsigned decimal, checked with the certificate
//! at `PAYPAL-CERT-URL`. The webhook ID is the tenant's secret (not a
//! secret, but it binds the signature to this webhook).
//!
//! The scheme signs only a CRC32 of the body, which anyone can match with
//! another body: a captured request can be replayed with a different body
//! until its transmission time leaves the tolerance. That is PayPal's
//! weakness, documented in `docs/`; keep the tolerance short.
//!
//! `PAYPAL-CERT-URL` must name a certificate where PayPal serves them,
//! `/v1/notifications/certs/CERT-...` with no query or fragment
//! ([`is_certificate_path`]): any other path or query on PayPal's hosts is
//! refused before anything is fetched, so a forged request cannot make
//! hookline fetch what it likes there.

use std::sync::OnceLock;

use super::{Hash, Signed};
use crate::provider::key::KeyError;
use crate::provider::request::UntrustedRequest;
use crate::provider::scheme::mac::{self, DigestEncoding, TimestampFormat};
use crate::provider::scheme::VerifyError;

const SIGNATURE: &str = "PAYPAL-TRANSMISSION-SIG";

/// The header that carries the signature.
pub(crate) fn signature_header() -> &'static [String] {
    static NAMES: OnceLock<[String; 1]> = OnceLock::new();
    NAMES.get_or_init(|| [SIGNATURE.to_owned()])
}

/// The signature, certificate URL and the signed text for each of the
/// tenant's webhook IDs `ids`.
pub(crate) fn read(req: &UntrustedRequest<'_>, ids: &[&[u8]]) -> Result<Signed, VerifyError> {
    let header = |name| req.headers.header(name).map(str::trim);
    let signature = header(SIGNATURE).ok_or(VerifyError::MissingSignature)?;
    // A signature without what it signs cannot be checked.
    let required = |name| header(name).ok_or(VerifyError::InvalidSignature);
    let signature = mac::decode_digest(DigestEncoding::Base64, signature)
        .ok_or(VerifyError::InvalidSignature)?;
    if required("PAYPAL-AUTH-ALGO")? != "SHA256withRSA" {
        return Err(VerifyError::InvalidSignature);
    }
    let cert_url = required("PAYPAL-CERT-URL")?;
    if !is_certificate_path(cert_url) {
        return Err(VerifyError::InvalidSignature);
    }
    let transmission_id = required("PAYPAL-TRANSMISSION-ID")?;
    let time = required("PAYPAL-TRANSMISSION-TIME")?;
    let signed_at = TimestampFormat::Rfc3339.parse(time)?;
    let crc = crc32fast::hash(&req.body).to_string();
    let messages = ids
        .iter()
        .map(|id| {
            [
                transmission_id.as_bytes(),
                time.as_bytes(),
                id,
                crc.as_bytes(),
            ]
            .join(&b'|')
        })
        .collect();
    Ok(Signed {
        signature,
        hash: Hash::Sha256,
        cert_url: cert_url.to_owned(),
        signed_at,
        messages,
    })
}

/// Whether `url` names a certificate the way PayPal's do:
/// `/v1/notifications/certs/CERT-` and an ID of letters, digits and `-`
/// (`CERT-360caa42-fca2a594-a5cafa77`), no query, no fragment. PayPal's
/// verify-webhook-signature API and SDK samples name certificates so
/// (<https://developer.paypal.com/api/rest/webhooks/rest/>); the host is
/// the definition's `fetch_hosts`.
pub(crate) fn is_certificate_path(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    let id = url.path().strip_prefix("/v1/notifications/certs/CERT-");
    url.query().is_none()
        && url.fragment().is_none()
        && id.is_some_and(|id| {
            (1..=100).contains(&id.len())
                && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// A webhook ID as the developer dashboard shows it: letters and digits.
pub(crate) fn check_webhook_id(id: &str) -> Result<(), KeyError> {
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(KeyError::new(
            "a PayPal webhook ID is letters and digits, as the dashboard shows it",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_certificate_path;

    #[test]
    fn only_certificate_paths() {
        for ok in [
            "https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77",
            "https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1",
        ] {
            assert!(is_certificate_path(ok), "{ok}");
        }
        for refused in [
            "https://api.paypal.com/v1/notifications/certs/CERT-1?x=1",
            "https://api.paypal.com/v1/notifications/certs/CERT-1#x",
            "https://api.paypal.com/v1/notifications/certs/CERT-",
            "https://api.paypal.com/v1/notifications/certs/CERT-1/x",
            "https://api.paypal.com/v1/notifications/certs/CERT-a%2Fb",
            "https://api.paypal.com/v1/oauth2/token",
            "https://api.paypal.com/",
            "not a url",
        ] {
            assert!(!is_certificate_path(refused), "{refused}");
        }
    }
}
