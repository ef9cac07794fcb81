//! `kind = "mqtt"`: publish at QoS 1 over MQTT 5 and wait for the broker's
//! `PUBACK`. The payload is the body, byte for byte; the delivery's
//! headers are MQTT 5 user properties (and `content-type` the content type
//! property). A `PUBACK` that reports no matching subscribers is a failed
//! attempt: the broker drops such a message, so it is retried until a
//! subscriber (or a persistent session) takes it. MQTT does not
//! deduplicate: consumers do by the `webhook-id` property.
//!
//! One connection per handler, opened by the first attempt that needs it.
//! rumqttc's event loop runs in a task of its own; each publish waits for
//! the `PUBACK` of its packet id, which the loop reports in the order the
//! publishes were queued. A connection that fails is dropped with every
//! publish waiting on it (each a failed attempt); a later attempt opens a
//! new one, no sooner than [`Reconnect`] allows.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex as SyncMutex};
use std::time::Duration;

use rumqttc::v5::mqttbytes::v5::{Packet, PubAckReason, PublishProperties};
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::{AsyncClient, Event, EventLoop, MqttOptions};
use rumqttc::{Outgoing as Sending, TlsConfiguration, Transport};
use tokio::sync::{oneshot, Mutex};

use super::reconnect::Reconnect;
use super::{headers, tls, Sent};
use crate::config::{DestinationSettings, Handler, Placeholders, TlsSettings, Values};
use crate::delivery::outgoing::Outgoing;

/// What a publish is told: the broker's `PUBACK` reason, or why the
/// connection failed.
type Answer = Result<PubAckReason, String>;

/// An MQTT destination.
#[derive(Clone)]
pub struct Mqtt {
    /// Holds the credentials: never logged.
    options: MqttOptions,
    topic: Placeholders,
    timeout: Duration,
    link: Arc<Mutex<Link>>,
}

#[derive(Default)]
struct Link {
    session: Option<Arc<Session>>,
    reconnect: Reconnect,
}

/// One connection: the client and the publishes waiting for their ack.
struct Session {
    client: AsyncClient,
    waiting: SyncMutex<Waiting>,
    /// Held while a publish is queued, so the queue's order is the order
    /// the event loop assigns packet ids in.
    queue: Mutex<()>,
}

#[derive(Default)]
struct Waiting {
    /// Queued, not yet given a packet id.
    queued: VecDeque<oneshot::Sender<Answer>>,
    /// Sent, by packet id.
    sent: HashMap<u16, oneshot::Sender<Answer>>,
    /// Why the connection ended, once it has.
    closed: Option<String>,
}

impl Waiting {
    /// The connection ended: tell every publish waiting on it.
    fn close(&mut self, why: String) {
        for w in self
            .queued
            .drain(..)
            .chain(self.sent.drain().map(|(_, w)| w))
        {
            let _ = w.send(Err(why.clone()));
        }
        self.closed = Some(why);
    }
}

impl std::fmt::Debug for Mqtt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mqtt")
            .field("topic", &self.topic)
            .finish_non_exhaustive()
    }
}

impl Mqtt {
    pub fn new(handler: &Handler, tls_settings: &TlsSettings) -> Result<Mqtt, String> {
        let DestinationSettings::Mqtt { topic } = &*handler.destination else {
            unreachable!("an mqtt handler has mqtt settings");
        };
        let url = &handler.url;
        let secure = url.scheme() == "mqtts";
        let host = url.host_str().unwrap_or_default();
        let port = url.port().unwrap_or(if secure { 8883 } else { 1883 });
        // Unique per process, so two hookline nodes never take over each
        // other's session.
        let id = format!(
            "hookline-{}-{}",
            handler.name.as_str(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let mut options = MqttOptions::new(id, host, port);
        options
            .set_keep_alive(Duration::from_secs(30))
            .set_clean_start(true)
            .set_connection_timeout(handler.timeout.as_secs().max(1));
        if !url.username().is_empty() {
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            options.set_credentials(
                decode(url.username()),
                decode(url.password().unwrap_or_default()),
            );
        }
        if secure {
            let config = tls::client_config(handler, tls_settings)?;
            options.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(
                Arc::new(config),
            )));
        }
        Ok(Mqtt {
            options,
            topic: topic.clone(),
            timeout: handler.timeout,
            link: Default::default(),
        })
    }

    /// The open session, connecting if there is none (or it closed).
    async fn session(&self) -> Result<Arc<Session>, String> {
        let mut link = self.link.lock().await;
        if let Some(s) = &link.session {
            if s.lock().closed.is_none() {
                return Ok(s.clone());
            }
        }
        link.session = None;
        link.reconnect.may_try()?;
        match tokio::time::timeout(self.timeout, self.connect()).await {
            Ok(Ok(session)) => {
                link.reconnect.succeeded();
                link.session = Some(session.clone());
                Ok(session)
            }
            Ok(Err(e)) => Err(link.reconnect.failed(format!("connecting: {e}"))),
            Err(_) => Err(link.reconnect.failed("connecting: timed out".into())),
        }
    }

    /// Connect: start the event loop and wait for the broker's `CONNACK`.
    async fn connect(&self) -> Result<Arc<Session>, String> {
        let (client, events) = AsyncClient::new(self.options.clone(), 64);
        let session = Arc::new(Session {
            client,
            waiting: Default::default(),
            queue: Mutex::new(()),
        });
        let (ready, connected) = oneshot::channel();
        // The loop holds the session weakly: once the destination lets go
        // of it, the loop ends (rumqttc stops when its clients are gone).
        tokio::spawn(run(events, Arc::downgrade(&session), ready));
        connected
            .await
            .map_err(|_| "the connection ended".to_owned())??;
        Ok(session)
    }

    /// Publish one attempt and wait for its `PUBACK`.
    pub async fn send(&self, out: &Outgoing) -> Sent {
        let started = tokio::time::Instant::now();
        let session = match self.session().await {
            Ok(s) => s,
            Err(e) => return Sent::retry(e),
        };
        let topic = self.topic.render(&Values {
            provider: &out.provider,
            tenant: &out.tenant,
            event_type: &out.event_type,
        });
        let properties = PublishProperties {
            content_type: Some(out.content_type.clone()),
            user_properties: headers(out),
            ..Default::default()
        };
        let (tell, answer) = oneshot::channel();
        let queued = {
            let _order = session.queue.lock().await;
            {
                let mut w = session.lock();
                if let Some(why) = &w.closed {
                    return Sent::retry(format!("{topic}: {why}"));
                }
                w.queued.push_back(tell);
            }
            session
                .client
                .publish_with_properties(
                    &topic,
                    QoS::AtLeastOnce,
                    false,
                    out.body.clone(),
                    properties,
                )
                .await
        };
        if let Err(e) = queued {
            // The loop has ended (and tells the waiter so): nothing sent.
            return Sent::retry(format!("{topic}: {e}"));
        }
        let left = self.timeout.saturating_sub(started.elapsed());
        match tokio::time::timeout(left, answer).await {
            Ok(Ok(Ok(PubAckReason::Success))) => Sent::delivered(format!("PUBACK on {topic}")),
            Ok(Ok(Ok(PubAckReason::NoMatchingSubscribers))) => Sent::retry(format!(
                "{topic}: no subscriber matches it (the broker would drop it)"
            )),
            // As an HTTP 401/403 or 400 is: another try cannot succeed.
            Ok(Ok(Ok(
                reason @ (PubAckReason::NotAuthorized
                | PubAckReason::TopicNameInvalid
                | PubAckReason::PayloadFormatInvalid),
            ))) => Sent::dead(format!("{topic}: refused ({reason:?})")),
            Ok(Ok(Ok(reason))) => Sent::retry(format!("{topic}: refused ({reason:?})")),
            Ok(Ok(Err(why))) => Sent::retry(format!("{topic}: {why}")),
            Ok(Err(_)) => Sent::retry(format!("{topic}: the connection ended")),
            Err(_) => Sent::retry(format!("{topic}: no PUBACK within the handler's timeout")),
        }
    }
}

impl Session {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Drive the event loop until the connection fails or the session is
/// let go: match packet ids to publishes, acks to their waiters.
async fn run(
    mut events: EventLoop,
    session: std::sync::Weak<Session>,
    ready: oneshot::Sender<Result<(), String>>,
) {
    let mut ready = Some(ready);
    let why = loop {
        let event = events.poll().await;
        let Some(s) = session.upgrade() else { return };
        match event {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                if let Some(r) = ready.take() {
                    let _ = r.send(Ok(()));
                }
            }
            Ok(Event::Outgoing(Sending::Publish(pkid))) => {
                let mut w = s.lock();
                if let Some(waiter) = w.queued.pop_front() {
                    w.sent.insert(pkid, waiter);
                }
            }
            Ok(Event::Incoming(Packet::PubAck(ack))) => {
                if let Some(waiter) = s.lock().sent.remove(&ack.pkid) {
                    let _ = waiter.send(Ok(ack.reason));
                }
            }
            Ok(Event::Outgoing(Sending::AwaitAck(pkid))) => {
                // The broker left an older packet id unacknowledged: the
                // order that matches publishes to ids no longer holds.
                break format!("packet id {pkid} still in use");
            }
            Ok(_) => {}
            Err(e) => break e.to_string(),
        }
    };
    if let Some(r) = ready.take() {
        let _ = r.send(Err(why.clone()));
    }
    if let Some(s) = session.upgrade() {
        s.lock().close(why);
    }
}
