//! What identifies an event, parsed once at the edge: [`EventId`],
//! [`EventType`], [`BodyDigest`].
//!
//! Each type holds only values every store can keep and every log line can
//! print: no control characters (PostgreSQL refuses a NUL in text), a
//! bounded length. They read as `&str` (`Deref`, `AsRef`, `Display`), bind
//! to SQL as text (`sqlx(transparent)`) and serialize as plain strings, so
//! code that took a `&str` takes them unchanged.

use std::fmt;
use std::ops::Deref;

/// Longest event ID accepted; a longer one is malformed.
pub const MAX_EVENT_ID_LEN: usize = 255;

/// Longest event type accepted. Providers' types are short (`charge.succeeded`,
/// `pull_request`); this only bounds what a hostile body can make us store.
pub const MAX_EVENT_TYPE_LEN: usize = 255;

/// Why a value is not an identifier. Never quotes the value: it may be
/// anything a caller sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most {0} bytes")]
    TooLong(usize),
    #[error("must not contain control characters")]
    Control,
}

/// `s` if it is at most `max` bytes and free of control characters.
fn plain_text(s: &str, max: usize) -> Result<(), IdError> {
    if s.len() > max {
        return Err(IdError::TooLong(max));
    }
    if s.chars().any(char::is_control) {
        return Err(IdError::Control);
    }
    Ok(())
}

string_id!(
    /// A provider's event ID: non-empty, at most [`MAX_EVENT_ID_LEN`] bytes,
    /// no control characters.
    EventId
);

string_id!(
    /// A provider's event type; empty when the definition names no source.
    /// At most [`MAX_EVENT_TYPE_LEN`] bytes, no control characters.
    EventType
);

impl EventId {
    pub fn parse(s: impl Into<String>) -> Result<Self, IdError> {
        let s = s.into();
        if s.is_empty() {
            return Err(IdError::Empty);
        }
        plain_text(&s, MAX_EVENT_ID_LEN)?;
        Ok(EventId(s))
    }
}

impl EventType {
    pub fn parse(s: impl Into<String>) -> Result<Self, IdError> {
        let s = s.into();
        plain_text(&s, MAX_EVENT_TYPE_LEN)?;
        Ok(EventType(s))
    }
}

/// The SHA-256 of a body, exactly as received.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct BodyDigest([u8; 32]);

impl BodyDigest {
    pub fn of(body: &[u8]) -> Self {
        use sha2::{Digest, Sha256};
        BodyDigest(Sha256::digest(body).into())
    }

    /// A digest as a store kept it.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        BodyDigest(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

// The stores compare and store digests as bytes (`&digest[..16]`).
impl Deref for BodyDigest {
    type Target = [u8; 32];
    fn deref(&self) -> &[u8; 32] {
        &self.0
    }
}

impl AsRef<[u8]> for BodyDigest {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Lower-case hex, as reports show it.
impl fmt::Display for BodyDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for BodyDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BodyDigest({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_hold_only_storable_text() {
        assert_eq!(EventId::parse("evt_1").unwrap(), "evt_1");
        assert_eq!(EventId::parse(""), Err(IdError::Empty));
        assert_eq!(EventId::parse("evt\0"), Err(IdError::Control));
        assert_eq!(EventId::parse("a\nb"), Err(IdError::Control));
        assert!(EventId::parse("x".repeat(MAX_EVENT_ID_LEN)).is_ok());
        assert_eq!(
            EventId::parse("x".repeat(MAX_EVENT_ID_LEN + 1)),
            Err(IdError::TooLong(MAX_EVENT_ID_LEN))
        );
        // An event type may be empty (no source), never a control character.
        assert_eq!(EventType::parse("").unwrap(), "");
        assert_eq!(EventType::parse("charge.\u{7f}"), Err(IdError::Control));
    }

    #[test]
    fn a_digest_reads_as_hex_and_bytes() {
        let d = BodyDigest::of(b"");
        assert_eq!(
            d.to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(d[..2], [0xe3, 0xb0]);
    }
}
