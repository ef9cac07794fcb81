//! `bench-publish`: the brokers' own publish rate, as the baseline for
//! hookline's broker destinations. A minimal publisher per broker with the
//! client and acknowledgement settings hookline's destination uses (and the
//! same message: a body and the delivery's eleven headers, a fresh
//! `webhook-id` each), `concurrency` publishes in flight, each waiting for
//! its acknowledgement: JetStream's PublishAck (`Nats-Msg-Id` set), a
//! RabbitMQ publisher confirm (confirm mode, mandatory, persistent), the
//! reply to hookline's own `lua/stream_append.lua`, MQTT 5 `PUBACK` at
//! QoS 1. Also makes and removes what a pass publishes to.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use bytes::Bytes;

/// The headers hookline's broker destinations put on a message.
pub fn headers() -> Vec<(String, String)> {
    let id = format!("msg_{}", uuid::Uuid::new_v4().simple());
    [
        ("webhook-id", id.as_str()),
        ("webhook-timestamp", "1764000000"),
        (
            "webhook-signature",
            "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
        ),
        ("content-type", "application/json"),
        ("hookline-provider", "stripe"),
        ("hookline-tenant", "default"),
        ("hookline-event-id", "evt_1QbenchBenchBenchBench"),
        ("hookline-event-type", "payment_intent.succeeded"),
        ("hookline-attempt", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

/// One broker to publish to: `kind`, its URL and the name a pass uses
/// (a stream and subject prefix, an exchange and queue, a stream key, a
/// topic prefix).
#[derive(Debug, Clone)]
pub struct Target {
    pub kind: String,
    pub url: String,
    pub name: String,
}

/// Make what a pass publishes to: a JetStream stream for `NAME.>`; a topic
/// exchange and a durable queue bound with `#`. Redis and MQTT need none.
pub async fn setup(t: &Target) -> anyhow::Result<()> {
    match t.kind.as_str() {
        "nats" => {
            let js = async_nats::jetstream::new(async_nats::connect(&t.url).await?);
            js.create_stream(async_nats::jetstream::stream::Config {
                name: t.name.clone(),
                subjects: vec![format!("{}.>", t.name)],
                storage: async_nats::jetstream::stream::StorageType::File,
                ..Default::default()
            })
            .await?;
        }
        "rabbitmq" => {
            use lapin::options::*;
            use lapin::types::FieldTable;
            let conn = lapin::Connection::connect(&t.url, Default::default()).await?;
            let ch = conn.create_channel().await?;
            let durable = ExchangeDeclareOptions {
                durable: true,
                ..Default::default()
            };
            ch.exchange_declare(
                t.name.as_str().into(),
                lapin::ExchangeKind::Topic,
                durable,
                FieldTable::default(),
            )
            .await?;
            let q = QueueDeclareOptions {
                durable: true,
                ..Default::default()
            };
            ch.queue_declare(t.name.as_str().into(), q, FieldTable::default())
                .await?;
            ch.queue_bind(
                t.name.as_str().into(),
                t.name.as_str().into(),
                "#".into(),
                Default::default(),
                FieldTable::default(),
            )
            .await?;
        }
        "redis-stream" | "mqtt" => {}
        k => bail!("unknown kind {k}"),
    }
    Ok(())
}

/// Remove what [`setup`] made (and a Redis pass's keys).
pub async fn teardown(t: &Target) -> anyhow::Result<()> {
    match t.kind.as_str() {
        "nats" => {
            let js = async_nats::jetstream::new(async_nats::connect(&t.url).await?);
            let _ = js.delete_stream(&t.name).await;
        }
        "rabbitmq" => {
            let conn = lapin::Connection::connect(&t.url, Default::default()).await?;
            let ch = conn.create_channel().await?;
            let _ = ch
                .queue_delete(t.name.as_str().into(), Default::default())
                .await;
            let _ = ch
                .exchange_delete(t.name.as_str().into(), Default::default())
                .await;
        }
        "redis-stream" => {
            let mut c = redis::Client::open(t.url.as_str())?
                .get_multiplexed_async_connection()
                .await?;
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(format!("{}:*", t.name))
                .query_async(&mut c)
                .await?;
            if !keys.is_empty() {
                let _: () = redis::cmd("DEL").arg(keys).query_async(&mut c).await?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Publish for `duration` with `concurrency` in flight; acknowledged
/// messages per second.
pub async fn publish(
    t: &Target,
    concurrency: usize,
    duration: Duration,
    body: Bytes,
) -> anyhow::Result<(u64, f64)> {
    let publisher: Arc<dyn Publish> = match t.kind.as_str() {
        "nats" => Arc::new(Nats(
            async_nats::jetstream::new(async_nats::connect(&t.url).await?),
            format!("{}.stripe.payment_intent.succeeded", t.name),
        )),
        "rabbitmq" => Arc::new(Rabbit::open(t).await?),
        "redis-stream" => Arc::new(Stream {
            conn: redis::aio::ConnectionManager::new(redis::Client::open(t.url.as_str())?).await?,
            script: redis::Script::new(include_str!("../../lua/stream_append.lua")),
            stream: format!("{}:stripe", t.name),
        }),
        "mqtt" => Arc::new(Mqtt::open(t).await?),
        k => bail!("unknown kind {k}"),
    };
    let acked = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            let (p, acked, body) = (publisher.clone(), acked.clone(), body.clone());
            tokio::spawn(async move {
                while started.elapsed() < duration {
                    p.publish(body.clone()).await?;
                    acked.fetch_add(1, Ordering::Relaxed);
                }
                anyhow::Ok(())
            })
        })
        .collect();
    for task in tasks {
        task.await??;
    }
    let n = acked.load(Ordering::Relaxed);
    Ok((n, n as f64 / started.elapsed().as_secs_f64()))
}

#[async_trait::async_trait]
trait Publish: Send + Sync {
    /// Publish one message and wait for its acknowledgement.
    async fn publish(&self, body: Bytes) -> anyhow::Result<()>;
}

struct Nats(async_nats::jetstream::Context, String);

#[async_trait::async_trait]
impl Publish for Nats {
    async fn publish(&self, body: Bytes) -> anyhow::Result<()> {
        let h = headers();
        let mut m = async_nats::jetstream::message::PublishMessage::build()
            .payload(body)
            .message_id(&h[0].1);
        for (k, v) in &h {
            m = m.header(k.as_str(), v.as_str());
        }
        self.0.send_publish(self.1.clone(), m).await?.await?;
        Ok(())
    }
}

struct Rabbit {
    _conn: lapin::Connection,
    channel: lapin::Channel,
    exchange: String,
}

impl Rabbit {
    async fn open(t: &Target) -> anyhow::Result<Rabbit> {
        let conn = lapin::Connection::connect(&t.url, Default::default()).await?;
        let channel = conn.create_channel().await?;
        channel.confirm_select(Default::default()).await?;
        Ok(Rabbit {
            _conn: conn,
            channel,
            exchange: t.name.clone(),
        })
    }
}

#[async_trait::async_trait]
impl Publish for Rabbit {
    async fn publish(&self, body: Bytes) -> anyhow::Result<()> {
        use lapin::types::{AMQPValue, FieldTable, LongString};
        let h = headers();
        let mut table = FieldTable::default();
        for (k, v) in &h {
            table.insert(
                k.as_str().into(),
                AMQPValue::LongString(LongString::from(v.clone())),
            );
        }
        let props = lapin::BasicProperties::default()
            .with_message_id(h[0].1.as_str().into())
            .with_content_type("application/json".into())
            .with_delivery_mode(2)
            .with_headers(table);
        let options = lapin::options::BasicPublishOptions {
            mandatory: true,
            immediate: false,
        };
        let confirm = self
            .channel
            .basic_publish(
                self.exchange.as_str().into(),
                "stripe.payment_intent.succeeded".into(),
                options,
                &body,
                props,
            )
            .await?
            .await?;
        match confirm {
            lapin::Confirmation::Ack(None) => Ok(()),
            other => bail!("not confirmed: {other:?}"),
        }
    }
}

struct Stream {
    conn: redis::aio::ConnectionManager,
    script: redis::Script,
    stream: String,
}

#[async_trait::async_trait]
impl Publish for Stream {
    async fn publish(&self, body: Bytes) -> anyhow::Result<()> {
        let h = headers();
        let mut call = self.script.prepare_invoke();
        call.key(&self.stream)
            .key(format!("{}:hookline-id:{}", self.stream, h[0].1))
            .arg(86_400_000u64)
            .arg(0u64);
        for (k, v) in &h {
            call.arg(k).arg(v);
        }
        call.arg("body").arg(body.as_ref());
        let _: (i64, String) = call.invoke_async(&mut self.conn.clone()).await?;
        Ok(())
    }
}

/// Publishes queued (no packet id yet), and sent (by packet id).
type Waiting = (
    VecDeque<tokio::sync::oneshot::Sender<()>>,
    HashMap<u16, tokio::sync::oneshot::Sender<()>>,
);

/// MQTT 5 at QoS 1: each publish waits for the `PUBACK` of its packet id,
/// matched in the order publishes were queued (as hookline does).
struct Mqtt {
    client: rumqttc::v5::AsyncClient,
    order: tokio::sync::Mutex<()>,
    waiting: Arc<Mutex<Waiting>>,
    topic: String,
}

impl Mqtt {
    async fn open(t: &Target) -> anyhow::Result<Mqtt> {
        use rumqttc::v5::mqttbytes::v5::Packet;
        use rumqttc::v5::{AsyncClient, Event, MqttOptions};
        let u = url::Url::parse(&t.url)?;
        let id = format!("bench-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let options = MqttOptions::new(id, u.host_str().context("host")?, u.port().unwrap_or(1883));
        let (client, mut events) = AsyncClient::new(options, 64);
        let waiting: Arc<Mutex<Waiting>> = Arc::default();
        let w = waiting.clone();
        let (ready, connected) = tokio::sync::oneshot::channel();
        let mut ready = Some(ready);
        tokio::spawn(async move {
            while let Ok(event) = events.poll().await {
                let mut w = w.lock().unwrap();
                match event {
                    Event::Incoming(Packet::ConnAck(_)) => {
                        if let Some(r) = ready.take() {
                            let _ = r.send(());
                        }
                    }
                    Event::Outgoing(rumqttc::Outgoing::Publish(pkid)) => {
                        if let Some(tx) = w.0.pop_front() {
                            w.1.insert(pkid, tx);
                        }
                    }
                    Event::Incoming(Packet::PubAck(ack)) => {
                        if let Some(tx) = w.1.remove(&ack.pkid) {
                            let _ = tx.send(());
                        }
                    }
                    _ => {}
                }
            }
        });
        connected.await.context("MQTT connect")?;
        Ok(Mqtt {
            client,
            order: Default::default(),
            waiting,
            topic: format!("{}/stripe/payment_intent.succeeded", t.name),
        })
    }
}

#[async_trait::async_trait]
impl Publish for Mqtt {
    async fn publish(&self, body: Bytes) -> anyhow::Result<()> {
        use rumqttc::v5::mqttbytes::v5::PublishProperties;
        let properties = PublishProperties {
            content_type: Some("application/json".into()),
            user_properties: headers(),
            ..Default::default()
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        {
            let _order = self.order.lock().await;
            self.waiting.lock().unwrap().0.push_back(tx);
            self.client
                .publish_with_properties(
                    &self.topic,
                    rumqttc::v5::mqttbytes::QoS::AtLeastOnce,
                    false,
                    body,
                    properties,
                )
                .await?;
        }
        tokio::time::timeout(Duration::from_secs(10), rx).await??;
        Ok(())
    }
}
