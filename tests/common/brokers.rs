//! The real brokers the destination tests publish to: the shared NATS
//! JetStream (127.0.0.1:4222), RabbitMQ (5672, guest/guest), Mosquitto
//! (1883) and Redis (6379), each overridable with `HOOKLINE_TEST_*_URL`.
//! Every test makes its own stream, exchange and queue, topic and key
//! prefix (named by a fresh `t<uuid>`) and removes them when it ends. Tests
//! that stop a broker start their own (`private_nats`, `private_rabbitmq`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_nats::jetstream;

pub mod rabbitmq;

pub fn nats_url() -> String {
    std::env::var("HOOKLINE_TEST_NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".into())
}
pub fn amqp_url() -> String {
    std::env::var("HOOKLINE_TEST_AMQP_URL")
        .unwrap_or_else(|_| "amqp://guest:guest@127.0.0.1:5672/%2f".into())
}
pub fn mqtt_url() -> String {
    std::env::var("HOOKLINE_TEST_MQTT_URL").unwrap_or_else(|_| "mqtt://127.0.0.1:1883".into())
}

/// A fresh name for one test's broker objects.
pub fn test_name() -> String {
    format!("t{}", uuid::Uuid::new_v4().simple())
}

/// Run `f` to completion on a runtime of its own (for `Drop`).
pub fn block_on<F: std::future::Future + Send>(f: F) -> F::Output
where
    F::Output: Send,
{
    std::thread::scope(|s| {
        s.spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(f)
        })
        .join()
        .unwrap()
    })
}

/// Poll `check` until it returns `Some`, or panic with `what` after `within`.
pub async fn eventually<T, F, Fut>(within: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + within;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A JetStream stream taking the subjects `NAME.>`, deleted on drop.
pub struct NatsStream {
    pub url: String,
    pub name: String,
    context: jetstream::Context,
}

impl NatsStream {
    pub async fn create(url: &str, name: &str) -> NatsStream {
        let client = async_nats::connect(url).await.expect("NATS answers");
        NatsStream::create_on(client, url, name).await
    }

    /// The same over a client of the caller's (TLS).
    pub async fn create_on(client: async_nats::Client, url: &str, name: &str) -> NatsStream {
        let context = jetstream::new(client);
        context
            .create_stream(jetstream::stream::Config {
                name: name.to_owned(),
                subjects: vec![format!("{name}.>")],
                // File storage: the restart tests need the messages back.
                storage: jetstream::stream::StorageType::File,
                duplicate_window: Duration::from_secs(120),
                ..Default::default()
            })
            .await
            .expect("stream created");
        NatsStream {
            url: url.to_owned(),
            name: name.to_owned(),
            context,
        }
    }

    /// Every message in the stream, in order.
    pub async fn messages(&self) -> Vec<jetstream::message::StreamMessage> {
        let mut stream = self.context.get_stream(&self.name).await.unwrap();
        let last = stream.info().await.unwrap().state.last_sequence;
        let mut out = Vec::new();
        for seq in 1..=last {
            if let Ok(m) = stream.get_raw_message(seq).await {
                out.push(m);
            }
        }
        out
    }

    /// Wait until the stream holds at least `n` messages.
    pub async fn wait_for(
        &self,
        n: usize,
        within: Duration,
    ) -> Vec<jetstream::message::StreamMessage> {
        eventually(
            within,
            &format!("{n} messages in {}", self.name),
            || async {
                let got = self.messages().await;
                (got.len() >= n).then_some(got)
            },
        )
        .await
    }
}

impl Drop for NatsStream {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        block_on(async move {
            if let Ok(client) = async_nats::connect(url).await {
                let _ = jetstream::new(client).delete_stream(&name).await;
            }
        });
    }
}

/// A NATS header's value.
pub fn nats_header<'a>(m: &'a jetstream::message::StreamMessage, name: &str) -> Option<&'a str> {
    m.headers.get(name).map(|v| v.as_str())
}

/// One MQTT message received.
#[derive(Debug, Clone)]
pub struct MqttMessage {
    pub topic: String,
    pub payload: Vec<u8>,
    pub content_type: Option<String>,
    pub properties: Vec<(String, String)>,
}

impl MqttMessage {
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// An MQTT 5 subscriber (QoS 1) to `FILTER`, collecting what arrives.
pub struct MqttSubscriber {
    received: Arc<Mutex<Vec<MqttMessage>>>,
    task: tokio::task::JoinHandle<()>,
}

impl MqttSubscriber {
    /// Subscribe, and return once the broker acknowledged the subscription.
    pub async fn start(url: &str, filter: &str) -> MqttSubscriber {
        use rumqttc::v5::mqttbytes::v5::Packet;
        use rumqttc::v5::mqttbytes::QoS;
        use rumqttc::v5::{AsyncClient, Event, MqttOptions};
        let u = url::Url::parse(url).unwrap();
        let options =
            MqttOptions::new(test_name(), u.host_str().unwrap(), u.port().unwrap_or(1883));
        let (client, mut events) = AsyncClient::new(options, 16);
        client.subscribe(filter, QoS::AtLeastOnce).await.unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let (subscribed, ready) = tokio::sync::oneshot::channel();
        let mut subscribed = Some(subscribed);
        let sink = received.clone();
        let task = tokio::spawn(async move {
            let _client = client;
            loop {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::SubAck(_))) => {
                        if let Some(s) = subscribed.take() {
                            let _ = s.send(());
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        let props = p.properties.clone().unwrap_or_default();
                        sink.lock().unwrap().push(MqttMessage {
                            topic: String::from_utf8_lossy(&p.topic).into_owned(),
                            payload: p.payload.to_vec(),
                            content_type: props.content_type,
                            properties: props.user_properties,
                        });
                    }
                    Ok(_) => {}
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
        tokio::time::timeout(Duration::from_secs(10), ready)
            .await
            .expect("the broker acknowledges the subscription")
            .unwrap();
        MqttSubscriber { received, task }
    }

    pub fn received(&self) -> Vec<MqttMessage> {
        self.received.lock().unwrap().clone()
    }

    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<MqttMessage> {
        eventually(within, &format!("{n} MQTT messages"), || async {
            let got = self.received();
            (got.len() >= n).then_some(got)
        })
        .await
    }
}

impl Drop for MqttSubscriber {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One Redis Stream entry: its id and fields.
pub type StreamEntry = (String, Vec<(String, Vec<u8>)>);

/// The entries of a Redis Stream.
pub fn stream_entries(stream: &str) -> Vec<StreamEntry> {
    let client = redis::Client::open(super::redis_url()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let reply: Vec<StreamEntry> = redis::cmd("XRANGE")
        .arg(stream)
        .arg("-")
        .arg("+")
        .query(&mut conn)
        .unwrap();
    reply
}

/// Deletes the Redis keys under `PREFIX:` on drop.
pub struct RedisPrefix(pub String);

impl Drop for RedisPrefix {
    fn drop(&mut self) {
        if let Ok(client) = redis::Client::open(super::redis_url()) {
            if let Ok(mut conn) = client.get_connection() {
                let keys: Vec<String> = redis::cmd("KEYS")
                    .arg(format!("{}:*", self.0))
                    .query(&mut conn)
                    .unwrap_or_default();
                if !keys.is_empty() {
                    let _: Result<(), _> = redis::cmd("DEL").arg(keys).query(&mut conn);
                }
            }
        }
    }
}
