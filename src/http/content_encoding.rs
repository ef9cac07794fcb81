//! A gzip-encoded webhook body, decoded before verification, under the
//! same caps as the body itself.
//!
//! Stream (getstream.io) can send its webhooks with `Content-Encoding:
//! gzip` and signs the **uncompressed** JSON (its SDK's
//! `verifyAndParseWebhook` gunzips first); other providers send plain
//! bodies. A body is decoded when the request says `Content-Encoding:
//! gzip` (or `x-gzip`) *and* the body starts with gzip's magic bytes, as
//! Stream's SDK detects it: a body already decoded (a capture replayed
//! with its original headers) passes as it is. Any other encoding passes
//! untouched, and the signature check decides.
//!
//! A small compressed body can inflate a thousandfold, so the decoded
//! bytes are capped by `server.max_body_bytes` (413 past it) and held
//! against the buffer budget as they grow (503 + `Retry-After` when it is
//! full), exactly as a plain body is. A body that is not valid gzip is
//! `malformed_payload` (400).

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header::{HeaderMap, CONTENT_ENCODING};
use bytes::Bytes;
use flate2::read::MultiGzDecoder;

use super::budget::{BufferBudget, Reservation};
use super::problem::ApiError;

/// gzip's first two bytes (RFC 1952, ID1 ID2).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// How much more is reserved each time the decoded body outgrows its
/// reservation.
const STEP: usize = 64 * 1024;

/// A decoded body and the share of the budget it holds until dropped.
#[derive(Debug)]
pub struct Decoded {
    pub bytes: Bytes,
    _reservation: Option<Reservation>,
}

/// Why a body could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("the decoded body is over {limit} bytes")]
    TooLarge { limit: usize },
    #[error("the buffer budget cannot hold the decoded body")]
    BudgetFull,
    #[error("the body is not valid gzip")]
    Malformed,
}

/// Whether a body is gzip to decode: one of the request's
/// `Content-Encoding` values says so and the bytes agree.
pub fn is_gzip<'a>(content_encodings: impl IntoIterator<Item = &'a str>, body: &[u8]) -> bool {
    let declared = content_encodings
        .into_iter()
        .flat_map(|v| v.split(','))
        .any(|c| matches!(c.trim().to_ascii_lowercase().as_str(), "gzip" | "x-gzip"));
    declared && body.starts_with(&GZIP_MAGIC)
}

/// `body` gunzipped, at most `limit` bytes, each step of growth reserved
/// with `reserve` first (`false`: the budget is full).
pub fn gunzip(
    body: &[u8],
    limit: usize,
    mut reserve: impl FnMut(usize) -> bool,
) -> Result<Vec<u8>, DecodeError> {
    let mut decoder = MultiGzDecoder::new(body);
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 8 * 1024];
    let mut reserved = 0;
    loop {
        let n = decoder
            .read(&mut chunk)
            .map_err(|_| DecodeError::Malformed)?;
        if n == 0 {
            return Ok(out);
        }
        let total = out.len() + n;
        if total > limit {
            return Err(DecodeError::TooLarge { limit });
        }
        if total > reserved {
            reserved = (reserved + STEP).max(total).min(limit);
            if !reserve(reserved) {
                return Err(DecodeError::BudgetFull);
            }
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// The body to verify: `body` decoded if it is gzip (see the module
/// docs), else `body` itself, holding nothing more.
pub fn decode(
    headers: &HeaderMap,
    body: Bytes,
    limit: usize,
    budget: &Arc<BufferBudget>,
    retry_after: Duration,
) -> Result<Decoded, ApiError> {
    let encodings = headers
        .get_all(CONTENT_ENCODING)
        .filter_map(|v| v.to_str().ok());
    if !is_gzip(encodings, &body) {
        return Ok(Decoded {
            bytes: body,
            _reservation: None,
        });
    }
    let mut reservation: Option<Reservation> = None;
    let decoded = gunzip(&body, limit, |total| match &mut reservation {
        Some(r) => r.grow_to(total),
        None => {
            reservation = budget.try_reserve(total);
            reservation.is_some()
        }
    });
    match decoded {
        Ok(bytes) => Ok(Decoded {
            bytes: Bytes::from(bytes),
            _reservation: reservation,
        }),
        Err(DecodeError::TooLarge { limit }) => Err(ApiError::PayloadTooLarge { limit }),
        Err(DecodeError::BudgetFull) => Err(ApiError::BufferFull { retry_after }),
        Err(DecodeError::Malformed) => Err(ApiError::BodyRead),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use actix_web::http::header::{HeaderName, HeaderValue};
    use flate2::write::GzEncoder;
    use flate2::Compression;

    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn headers(encoding: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(e) = encoding {
            h.insert(
                HeaderName::from_static("content-encoding"),
                HeaderValue::from_str(e).unwrap(),
            );
        }
        h
    }

    #[test]
    fn a_gzip_body_is_decoded_and_held_against_the_budget() {
        let budget = BufferBudget::new(1 << 20);
        let plain = br#"{"type":"message.new"}"#;
        let d = decode(
            &headers(Some("gzip")),
            Bytes::from(gz(plain)),
            1024,
            &budget,
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(&d.bytes[..], plain);
        assert!(budget.reserved() >= plain.len());
        drop(d);
        assert_eq!(budget.reserved(), 0);
    }

    #[test]
    fn only_a_declared_and_real_gzip_body_is_decoded() {
        let plain = Bytes::from_static(b"{}");
        let budget = BufferBudget::new(1024);
        let same = |h: HeaderMap, body: Bytes| {
            decode(&h, body.clone(), 1024, &budget, Duration::from_secs(1))
                .unwrap()
                .bytes
                == body
        };
        // Declared but already plain (a replayed capture): as it is.
        assert!(same(headers(Some("gzip")), plain.clone()));
        // gzip bytes but not declared: as they are.
        assert!(same(headers(None), Bytes::from(gz(b"{}"))));
        // Another encoding: as it is; the signature check decides.
        assert!(same(headers(Some("br")), Bytes::from(gz(b"{}"))));
        assert!(is_gzip(["identity, X-GZIP"], &gz(b"{}")));
    }

    #[test]
    fn a_bomb_stops_at_the_cap() {
        let bomb = gz(&vec![b'a'; 10 * 1024 * 1024]);
        assert!(bomb.len() < 64 * 1024);
        let mut asked = 0;
        let err = gunzip(&bomb, 100_000, |n| {
            asked = n;
            true
        })
        .unwrap_err();
        assert_eq!(err, DecodeError::TooLarge { limit: 100_000 });
        assert!(asked <= 100_000);
        let budget = BufferBudget::new(1 << 30);
        let err = decode(
            &headers(Some("gzip")),
            Bytes::from(bomb),
            100_000,
            &budget,
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert!(matches!(err, ApiError::PayloadTooLarge { limit: 100_000 }));
        assert_eq!(budget.reserved(), 0);
    }

    #[test]
    fn a_full_budget_and_bad_gzip_are_refused() {
        let budget = BufferBudget::new(10);
        let err = decode(
            &headers(Some("gzip")),
            Bytes::from(gz(&[b'x'; 100])),
            1000,
            &budget,
            Duration::from_secs(3),
        )
        .unwrap_err();
        assert!(matches!(err, ApiError::BufferFull { .. }));
        let mut broken = gz(b"{\"a\":1}");
        let n = broken.len();
        broken[n - 6] ^= 0xff;
        broken.truncate(n - 3);
        assert_eq!(gunzip(&broken, 1000, |_| true), Err(DecodeError::Malformed));
    }
}
