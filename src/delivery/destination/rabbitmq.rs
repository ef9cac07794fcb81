//! `kind = "rabbitmq"`: publish to an exchange on a confirm-mode channel,
//! `mandatory` and persistent, and wait for the broker's confirm. Only a
//! plain ack delivers: a nack, a message returned as unroutable (no queue
//! bound for its routing key) or a channel closed under it is a failed
//! attempt, retried. The message is the body with `message_id` =
//! `webhook-id`, `content_type`, `timestamp`, `app_id = "hookline"`, and
//! the delivery's headers in the headers table; RabbitMQ does not
//! deduplicate, its consumers do by `message_id`.
//!
//! One connection and channel per handler, opened by the first attempt
//! that needs them and kept; a broken one is opened again by a later
//! attempt, no sooner than [`Reconnect`] allows.

use std::sync::Arc;
use std::time::Duration;

use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};
use lapin::tcp::{OwnedIdentity, OwnedTLSConfig};
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};
use lapin::{BasicProperties, Channel, Confirmation, Connection, ConnectionProperties};
use tokio::sync::Mutex;

use super::reconnect::Reconnect;
use super::{headers, Sent};
use crate::config::{DestinationSettings, Handler, Placeholders, TlsSettings, Values};
use crate::delivery::outgoing::Outgoing;

/// AMQP's persistent delivery mode: the broker writes the message to disk
/// in a durable queue before it confirms.
const PERSISTENT: u8 = 2;

/// A RabbitMQ destination.
#[derive(Clone)]
pub struct Rabbitmq {
    /// The broker URI, credentials and all: never logged.
    uri: String,
    tls: Arc<OwnedTLSConfig>,
    name: String,
    exchange: ShortString,
    routing_key: Placeholders,
    timeout: Duration,
    link: Arc<Mutex<Link>>,
}

/// The open connection and its confirm-mode channel.
#[derive(Default)]
struct Link {
    open: Option<(Connection, Channel)>,
    /// Counts the connections opened, so an attempt that gives up on one
    /// does not close a newer one.
    generation: u64,
    reconnect: Reconnect,
}

impl std::fmt::Debug for Rabbitmq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rabbitmq")
            .field("exchange", &self.exchange)
            .field("routing_key", &self.routing_key)
            .finish_non_exhaustive()
    }
}

impl Rabbitmq {
    pub fn new(handler: &Handler, tls: &TlsSettings) -> Result<Rabbitmq, String> {
        let DestinationSettings::Rabbitmq {
            exchange,
            routing_key,
        } = &*handler.destination
        else {
            unreachable!("a rabbitmq handler has rabbitmq settings");
        };
        let read =
            |p: &std::path::Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
        let identity = match handler.client_tls() {
            Some(files) => Some(OwnedIdentity::PKCS8 {
                pem: read(&files.cert_file)?,
                key: read(&files.key_file)?,
            }),
            None => None,
        };
        let cert_chain = match &tls.ca_file {
            Some(file) => Some(String::from_utf8_lossy(&read(file)?).into_owned()),
            None => None,
        };
        Ok(Rabbitmq {
            uri: handler.url.to_string(),
            tls: Arc::new(OwnedTLSConfig {
                identity,
                cert_chain,
            }),
            name: format!("hookline {}", handler.name.as_str()),
            exchange: exchange.as_str().into(),
            routing_key: routing_key.clone(),
            timeout: handler.timeout,
            link: Default::default(),
        })
    }

    /// The open channel and its generation, opening the connection and
    /// channel if needed. A closed channel (the broker closes it on an
    /// error) or connection is replaced.
    async fn channel(&self) -> Result<(Channel, u64), String> {
        let mut link = self.link.lock().await;
        if let Some((conn, channel)) = &link.open {
            if conn.status().connected() && channel.status().connected() {
                return Ok((channel.clone(), link.generation));
            }
        }
        link.open = None;
        link.reconnect.may_try()?;
        match tokio::time::timeout(self.timeout, self.open()).await {
            Ok(Ok((conn, channel))) => {
                link.reconnect.succeeded();
                link.generation += 1;
                link.open = Some((conn, channel.clone()));
                Ok((channel, link.generation))
            }
            Ok(Err(e)) => Err(link.reconnect.failed(format!("connecting: {e}"))),
            Err(_) => Err(link.reconnect.failed("connecting: timed out".into())),
        }
    }

    async fn open(&self) -> Result<(Connection, Channel), lapin::Error> {
        let properties =
            ConnectionProperties::default().with_connection_name(self.name.as_str().into());
        let conn = Connection::connect_with_config(
            &self.uri,
            properties,
            (*self.tls).clone(),
            lapin::runtime::default_runtime()?,
        )
        .await?;
        let channel = conn.create_channel().await?;
        channel
            .confirm_select(ConfirmSelectOptions::default())
            .await?;
        Ok((conn, channel))
    }

    /// Forget connection `generation`: the next attempt opens a new one.
    async fn drop_link(&self, generation: u64) {
        let mut link = self.link.lock().await;
        if link.generation == generation {
            link.open = None;
        }
    }

    /// Publish one attempt and wait for the broker's confirm.
    pub async fn send(&self, out: &Outgoing) -> Sent {
        let routing_key = self.routing_key.render(&Values {
            provider: &out.provider,
            tenant: &out.tenant,
            event_type: &out.event_type,
        });
        if routing_key.len() > 255 {
            return Sent::dead(format!(
                "routing key {routing_key:?} is longer than AMQP's 255 bytes"
            ));
        }
        let (channel, generation) = match self.channel().await {
            Ok(c) => c,
            Err(e) => return Sent::retry(e),
        };
        let mut table = FieldTable::default();
        for (name, value) in headers(out) {
            table.insert(name.into(), AMQPValue::LongString(LongString::from(value)));
        }
        let properties = BasicProperties::default()
            .with_message_id(out.webhook_id.as_str().into())
            .with_content_type(out.content_type.as_str().into())
            .with_timestamp(u64::try_from(out.timestamp).unwrap_or(0))
            .with_app_id("hookline".into())
            .with_delivery_mode(PERSISTENT)
            .with_headers(table);
        let options = BasicPublishOptions {
            mandatory: true,
            immediate: false,
        };
        let published = tokio::time::timeout(self.timeout, async {
            channel
                .basic_publish(
                    self.exchange.clone(),
                    routing_key.as_str().into(),
                    options,
                    &out.body,
                    properties,
                )
                .await?
                .await
        })
        .await;
        let at = format!(
            "exchange {:?} routing key {routing_key:?}",
            self.exchange.as_str()
        );
        match published {
            Ok(Ok(Confirmation::Ack(None))) => Sent::delivered(format!("confirmed: {at}")),
            Ok(Ok(Confirmation::Ack(Some(returned)))) => Sent::retry(format!(
                "returned unroutable ({} {}): no queue is bound for {at}",
                returned.reply_code,
                returned.reply_text.as_str()
            )),
            Ok(Ok(Confirmation::Nack(_))) => {
                Sent::retry(format!("the broker refused it (nack): {at}"))
            }
            Ok(Ok(Confirmation::NotRequested)) => {
                // Not on a confirm-mode channel: start again on a new one.
                self.drop_link(generation).await;
                Sent::retry("the channel was not in confirm mode")
            }
            // The channel (or connection) closed under it: the next
            // attempt sees that and opens another.
            Ok(Err(e)) => Sent::retry(format!("{at}: {e}")),
            Err(_) => {
                // No confirm in time: the connection may be wedged; the
                // next attempt opens a fresh one.
                self.drop_link(generation).await;
                Sent::retry(format!("{at}: no confirm within the handler's timeout"))
            }
        }
    }
}
