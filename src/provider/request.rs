//! The verify function's input and output: an untrusted request in, a
//! [`Verdict`] or a [`Rejection`] out.

use bytes::Bytes;

use super::handshake::HandshakeAnswer;
use super::header::HeaderLookup;
use super::scheme::VerifyError;
use super::webhook::VerifiedWebhook;

/// A request as it arrived, nothing about it trusted yet.
pub struct UntrustedRequest<'a> {
    /// The HTTP method, upper case: `POST`, `GET`, `HEAD`.
    pub method: &'a str,
    /// The external URL the provider called: scheme, host, path and query.
    /// The HTTP layer builds it only when the definition
    /// [`needs_url`](super::ProviderDef::needs_url); otherwise empty.
    pub url: &'a str,
    /// The raw query string, without `?` (handshakes read their parameters
    /// from it).
    pub query: &'a str,
    pub headers: &'a dyn HeaderLookup,
    /// The raw body, exactly as received.
    pub body: Bytes,
    /// Unix seconds at which it was received: signed timestamps are checked
    /// against it.
    pub received_at: i64,
}

impl UntrustedRequest<'_> {
    pub fn content_type(&self) -> Option<&str> {
        self.headers.header("Content-Type")
    }
}

/// What a request that passed verification is.
#[derive(Debug)]
pub enum Verdict {
    /// An event, for dedup and delivery.
    Event(VerifiedWebhook),
    /// A batch (the definition's `batch`): each item an event of its own,
    /// in the order they came; possibly none.
    Batch(Vec<VerifiedWebhook>),
    /// A provider handshake: answered as is, never an event (no dedup key,
    /// row or delivery).
    Handshake(HandshakeAnswer),
}

/// Why a request was rejected before reaching any state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error(transparent)]
    Verify(#[from] VerifyError),
    #[error("the event ID is absent")]
    MissingEventId,
    #[error("the body or event ID could not be parsed")]
    MalformedPayload,
    /// A method other than `POST` that no handshake of the definition
    /// answers; the allowed methods are
    /// [`ProviderDef::methods`](super::ProviderDef::methods).
    #[error("this method is not accepted here")]
    MethodNotAllowed,
    /// A handshake whose proof did not hold (a wrong `hub.verify_token`):
    /// the provider must not believe the endpoint is theirs.
    #[error("the handshake's proof does not match")]
    HandshakeRefused,
}

impl Rejection {
    /// The problem `code` the HTTP answer carries.
    pub fn code(&self) -> &'static str {
        match self {
            Rejection::Verify(VerifyError::MissingSignature) => "missing_signature",
            Rejection::Verify(VerifyError::InvalidSignature) => "invalid_signature",
            Rejection::Verify(VerifyError::TimestampOutOfTolerance) => "timestamp_out_of_tolerance",
            Rejection::MissingEventId => "missing_event_id",
            Rejection::MalformedPayload => "malformed_payload",
            Rejection::MethodNotAllowed => "method_not_allowed",
            Rejection::HandshakeRefused => "handshake_refused",
        }
    }

    /// The HTTP status: 401 for verification, 405 for a method, 400 for a
    /// body that never becomes an event.
    pub fn status(&self) -> u16 {
        match self {
            Rejection::Verify(_) => 401,
            Rejection::MethodNotAllowed => 405,
            Rejection::HandshakeRefused => 403,
            Rejection::MissingEventId | Rejection::MalformedPayload => 400,
        }
    }
}

/// `query` with the value of every parameter in `secret` replaced by
/// [`REDACTED`](super::scheme::REDACTED) (a `query-token` scheme's token); unchanged otherwise.
pub fn redact_query(query: &str, secret: &[String]) -> String {
    if secret.is_empty() {
        return query.to_owned();
    }
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if secret.iter().any(|s| *s == k) {
            out.append_pair(&k, super::scheme::REDACTED);
        } else {
            out.append_pair(&k, &v);
        }
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::redact_query;
    use crate::provider::scheme::REDACTED;

    #[test]
    fn a_query_token_is_stored_redacted() {
        let secret = ["code".to_owned()];
        let got = redact_query("a=1&code=s3cret&b=x%20y", &secret);
        assert!(!got.contains("s3cret"), "{got}");
        // The marker is form-encoded like every other value.
        let pairs: Vec<(String, String)> = form_urlencoded::parse(got.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        assert!(pairs.contains(&("code".into(), REDACTED.into())), "{got}");
        assert!(pairs.contains(&("b".into(), "x y".into())), "{got}");
        assert_eq!(redact_query("code=s3cret", &[]), "code=s3cret");
    }
}
