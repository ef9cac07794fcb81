//! Reading a webhook's body: capped in size (`server.max_body_bytes`),
//! in time (`server.body_timeout`) and, across all requests and per
//! client, in memory ([`BufferBudget`], `server.max_buffered_bytes`,
//! `server.max_buffered_bytes_per_peer`).
//!
//! Order: a declared length over the cap is 413 before anything is read;
//! the first chunk's reservation the budget cannot cover is 503 +
//! `Retry-After` before anything is read, and so is a later one as the
//! body arrives; a body not in whole by the deadline is 408. A body left
//! unread closes the connection once answered ([`hold_until_sent`]).
//!
//! What is reserved follows what arrives: the first chunk before a byte
//! is read, then twice as much each time the body outgrows it (never past
//! its declared length), and the buffer grows in the same steps. A
//! sender that declares a large body and sends nothing, or dribbles it,
//! holds only what it sent, not what it promised.

use std::error::Error as StdError;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use bytes::{Bytes, BytesMut};
use futures::StreamExt;

use super::budget::{BufferBudget, Reservation};
use super::peer::Peer;
use super::problem::ApiError;
use crate::config::ServerSettings;

/// What a body reserves before its first byte (less if it declares less):
/// its reservation then grows as it arrives.
const FIRST_CHUNK: usize = 16 * 1024;

/// A body read whole, and the share of the budget it holds until the
/// request is answered.
pub struct Body {
    pub bytes: Bytes,
    /// Never read: held, and given back to the budget when the body is
    /// dropped.
    _reservation: Reservation,
}

/// Read the request's body under the server's caps.
pub async fn read(
    req: &HttpRequest,
    payload: &mut web::Payload,
    server: &ServerSettings,
    budget: &Arc<BufferBudget>,
) -> Result<Body, ApiError> {
    let limit = server.max_body_bytes;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    // The slowest sender gives its share back within body_timeout: that is
    // when a retry can find room again.
    let full = || ApiError::BufferFull {
        retry_after: server.body_timeout,
    };
    let peer = Peer::of(req, server);
    // At most this much can arrive: actix ends a body at its declared
    // length.
    let most = declared.unwrap_or(limit).min(limit);
    let mut reservation = budget
        .try_reserve(peer, FIRST_CHUNK.min(most))
        .ok_or_else(full)?;
    // What is reserved is what the buffer may take: it grows with the
    // reservation, never ahead of it.
    let mut body = BytesMut::with_capacity(reservation.bytes());
    let read_all = async {
        while let Some(chunk) = payload.next().await {
            let chunk = chunk.map_err(|_| ApiError::BodyRead)?;
            let total = body.len() + chunk.len();
            if total > limit {
                return Err(ApiError::PayloadTooLarge { limit });
            }
            if total > reservation.bytes() {
                // Doubled until it covers what arrived, whatever the
                // chunks: 16, 32, 64 KiB..., then the declared length.
                let mut next = reservation.bytes().max(1);
                while next < total {
                    next = next.saturating_mul(2);
                }
                let next = next.min(most).max(total);
                if !reservation.grow_to(next) {
                    return Err(full());
                }
                body.reserve(next - body.len());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(())
    };
    match tokio::time::timeout(server.body_timeout, read_all).await {
        Ok(Ok(())) => Ok(Body {
            bytes: body.freeze(),
            _reservation: reservation,
        }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(ApiError::BodyTimeout(server.body_timeout)),
    }
}

/// `res`, holding the request's payload until it has been sent.
///
/// actix closes a connection whose request body is still unread when the
/// answer goes out, but drains a chunked one whose reader is gone: a
/// silent sender would keep it open. Held until sent, the payload counts as
/// unread, so every connection refused mid-body (408, 503, 413) is closed.
/// A body read whole is unaffected.
pub fn hold_until_sent(res: HttpResponse, payload: web::Payload) -> HttpResponse {
    res.map_body(|_, body| {
        BoxBody::new(Held {
            body,
            _payload: payload,
        })
    })
}

/// A response body that keeps the request's payload alive while it is
/// sent.
struct Held {
    body: BoxBody,
    _payload: web::Payload,
}

impl MessageBody for Held {
    type Error = Box<dyn StdError>;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_next(cx)
    }
}
