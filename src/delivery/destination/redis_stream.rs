//! `kind = "redis-stream"`: append the message to a Redis Stream with one
//! script (`lua/stream_append.lua`) that appends it only if its
//! `webhook-id` was not appended within `dedup_window`, and remembers it;
//! Redis' reply to that script is the acknowledgement. A redelivery (a
//! retry after a lost reply, a crash, a replay) inside the window answers
//! with the entry already there and is success, so the stream holds each
//! delivery once. The entry's fields are the delivery's headers, then
//! `body`, the bytes as accepted.
//!
//! One connection per handler (redis' `ConnectionManager`, which
//! reconnects by itself), made by the first attempt that needs it.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::Script;
use tokio::sync::{Mutex, OnceCell};

use super::reconnect::Reconnect;
use super::{headers, Sent};
use crate::config::{
    DestinationSettings, Handler, Placeholders, TlsSettings, Values, STREAM_BODY_FIELD,
};
use crate::delivery::outgoing::Outgoing;

/// A Redis Stream destination.
#[derive(Clone)]
pub struct RedisStream {
    /// Holds the URL (and its password): never logged.
    client: redis::Client,
    config: ConnectionManagerConfig,
    stream: Placeholders,
    maxlen: Option<u64>,
    dedup_window: Duration,
    script: Arc<Script>,
    conn: Arc<OnceCell<ConnectionManager>>,
    reconnect: Arc<Mutex<Reconnect>>,
}

impl std::fmt::Debug for RedisStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStream")
            .field("stream", &self.stream)
            .field("maxlen", &self.maxlen)
            .finish_non_exhaustive()
    }
}

/// The key that remembers `webhook_id` was appended to `stream`: beside
/// the stream, under its name.
pub fn dedup_key(stream: &str, webhook_id: &str) -> String {
    format!("{stream}:hookline-id:{webhook_id}")
}

impl RedisStream {
    pub fn new(handler: &Handler, tls: &TlsSettings) -> Result<RedisStream, String> {
        let DestinationSettings::RedisStream {
            stream,
            maxlen,
            dedup_window,
        } = &*handler.destination
        else {
            unreachable!("a redis-stream handler has redis-stream settings");
        };
        let read =
            |p: &std::path::Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
        let url = handler.url.as_str();
        let client = if url.starts_with("rediss://")
            && (tls.ca_file.is_some() || handler.client_tls().is_some())
        {
            let client_tls = match handler.client_tls() {
                Some(files) => Some(redis::ClientTlsConfig {
                    client_cert: read(&files.cert_file)?,
                    client_key: read(&files.key_file)?,
                }),
                None => None,
            };
            let root_cert = tls.ca_file.as_deref().map(read).transpose()?;
            redis::Client::build_with_tls(
                url,
                redis::TlsCertificates {
                    client_tls,
                    root_cert,
                },
            )
        } else {
            redis::Client::open(url)
        }
        // The client's message could quote the URL (and its password).
        .map_err(|_| "url: not a Redis URL the client accepts".to_owned())?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(handler.timeout)
            .set_response_timeout(handler.timeout)
            // Each attempt reconnects at most once; Reconnect spaces them.
            .set_number_of_retries(0);
        Ok(RedisStream {
            client,
            config,
            stream: stream.clone(),
            maxlen: *maxlen,
            dedup_window: *dedup_window,
            script: Arc::new(Script::new(include_str!("../../../lua/stream_append.lua"))),
            conn: Default::default(),
            reconnect: Default::default(),
        })
    }

    /// The connection, made on first use (no sooner than [`Reconnect`]
    /// allows after a failure).
    async fn conn(&self) -> Result<ConnectionManager, String> {
        if let Some(c) = self.conn.get() {
            return Ok(c.clone());
        }
        let mut reconnect = self.reconnect.lock().await;
        if let Some(c) = self.conn.get() {
            return Ok(c.clone());
        }
        reconnect.may_try()?;
        match ConnectionManager::new_with_config(self.client.clone(), self.config.clone()).await {
            Ok(c) => {
                reconnect.succeeded();
                let _ = self.conn.set(c.clone());
                Ok(c)
            }
            Err(e) => Err(reconnect.failed(format!("connecting: {}", describe(&e)))),
        }
    }

    /// Append one attempt, unless its `webhook-id` is in the stream already.
    pub async fn send(&self, out: &Outgoing) -> Sent {
        let mut conn = match self.conn().await {
            Ok(c) => c,
            Err(e) => return Sent::retry(e),
        };
        let stream = self.stream.render(&Values {
            provider: &out.provider,
            tenant: &out.tenant,
            event_type: &out.event_type,
        });
        let mut call = self.script.prepare_invoke();
        call.key(&stream)
            .key(dedup_key(&stream, &out.webhook_id))
            .arg(self.dedup_window.as_millis() as u64)
            .arg(self.maxlen.unwrap_or(0));
        for (name, value) in headers(out) {
            call.arg(name).arg(value);
        }
        call.arg(STREAM_BODY_FIELD).arg(out.body.as_ref());
        match call.invoke_async::<(i64, String)>(&mut conn).await {
            Ok((1, id)) => Sent::delivered(format!("{stream} entry {id}")),
            Ok((_, id)) => Sent::delivered(format!("{stream} entry {id} (duplicate)")),
            Err(e) => Sent::retry(format!("{stream}: {}", describe(&e))),
        }
    }
}

/// A Redis error without anything that could hold the URL.
fn describe(e: &redis::RedisError) -> String {
    match (e.code(), e.detail()) {
        (Some(code), Some(detail)) => format!("{code} {detail}"),
        (Some(code), None) => code.to_owned(),
        _ if e.is_timeout() => "timed out".to_owned(),
        _ if e.is_io_error() || e.is_connection_refusal() || e.is_connection_dropped() => {
            format!("connection failed ({:?})", e.kind())
        }
        _ => format!("{:?}", e.kind()),
    }
}
