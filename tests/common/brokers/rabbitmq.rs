//! RabbitMQ: a test's own exchange and queue, declared on the shared
//! broker (or a private one) and read back message by message.

use std::time::{Duration, Instant};

use lapin::options::{
    BasicGetOptions, ExchangeDeclareOptions, ExchangeDeleteOptions, QueueBindOptions,
    QueueDeclareOptions, QueueDeleteOptions,
};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{BasicProperties, Connection, ConnectionProperties, ExchangeKind};

use super::block_on;

/// A durable topic exchange and a durable queue named `NAME`, bound with
/// `#` unless `bound` is false; both deleted on drop, unless kept
/// ([`RabbitQueue::keep`]).
pub struct RabbitQueue {
    pub url: String,
    pub name: String,
    conn: Connection,
    channel: lapin::Channel,
    delete_on_drop: bool,
}

/// One message taken from a queue.
pub struct AmqpMessage {
    pub body: Vec<u8>,
    pub properties: BasicProperties,
}

impl AmqpMessage {
    pub fn header(&self, name: &str) -> Option<String> {
        let table = self.properties.headers().as_ref()?;
        match table.inner().get(name)? {
            AMQPValue::LongString(s) => Some(String::from_utf8_lossy(s.as_bytes()).into_owned()),
            other => Some(format!("{other:?}")),
        }
    }
}

impl RabbitQueue {
    pub async fn create(url: &str, name: &str, bound: bool) -> RabbitQueue {
        RabbitQueue::try_create(url, name, bound)
            .await
            .expect("RabbitMQ answers")
    }

    /// Declare the durable topic exchange `name` and the durable queue
    /// `name` (and, if `bound`, bind it for every routing key); the
    /// broker's error when it does not answer yet.
    pub async fn try_create(url: &str, name: &str, bound: bool) -> lapin::Result<RabbitQueue> {
        let conn = Connection::connect(url, ConnectionProperties::default()).await?;
        let channel = conn.create_channel().await?;
        channel
            .exchange_declare(
                name.into(),
                ExchangeKind::Topic,
                ExchangeDeclareOptions {
                    durable: true,
                    ..Default::default()
                },
                FieldTable::default(),
            )
            .await?;
        channel
            .queue_declare(
                name.into(),
                QueueDeclareOptions {
                    durable: true,
                    ..Default::default()
                },
                FieldTable::default(),
            )
            .await?;
        let q = RabbitQueue {
            url: url.to_owned(),
            name: name.to_owned(),
            conn,
            channel,
            delete_on_drop: true,
        };
        if bound {
            if let Err(e) = q.try_bind().await {
                // What was declared may hold messages of a queue declared
                // before: a failed bind deletes nothing.
                q.keep();
                return Err(e);
            }
        }
        Ok(q)
    }

    /// Close this handle and leave the exchange, the queue, its binding
    /// and its messages on the broker, as an operator's declaration would.
    pub fn keep(mut self) {
        self.delete_on_drop = false;
    }

    /// Bind the queue to the exchange for every routing key.
    pub async fn bind(&self) {
        self.try_bind().await.unwrap();
    }

    async fn try_bind(&self) -> lapin::Result<()> {
        self.channel
            .queue_bind(
                self.name.as_str().into(),
                self.name.as_str().into(),
                "#".into(),
                QueueBindOptions::default(),
                FieldTable::default(),
            )
            .await
    }

    /// Take every message waiting in the queue.
    pub async fn take_all(&self) -> Vec<AmqpMessage> {
        let mut out = Vec::new();
        while let Some(m) = self
            .channel
            .basic_get(self.name.as_str().into(), BasicGetOptions { no_ack: true })
            .await
            .unwrap()
        {
            out.push(AmqpMessage {
                body: m.delivery.data.clone(),
                properties: m.delivery.properties.clone(),
            });
        }
        out
    }

    /// Take messages until there are at least `n`.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<AmqpMessage> {
        let taken = self.take_until(within, |all| all.len() >= n).await;
        assert!(
            taken.len() >= n,
            "timed out waiting for {n} messages in queue {}",
            self.name
        );
        taken
    }

    /// Take messages until `done` says what was taken is enough, or
    /// `within` has passed: what was taken, for the caller to judge.
    pub async fn take_until(
        &self,
        within: Duration,
        done: impl Fn(&[AmqpMessage]) -> bool,
    ) -> Vec<AmqpMessage> {
        let deadline = Instant::now() + within;
        let mut taken = Vec::new();
        loop {
            taken.extend(self.take_all().await);
            if done(&taken) || Instant::now() >= deadline {
                return taken;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for RabbitQueue {
    fn drop(&mut self) {
        if !self.delete_on_drop {
            return;
        }
        let (url, name) = (self.url.clone(), self.name.clone());
        let _ = (&self.conn, &self.channel);
        block_on(async move {
            if let Ok(conn) = Connection::connect(&url, ConnectionProperties::default()).await {
                if let Ok(ch) = conn.create_channel().await {
                    let _ = ch
                        .queue_delete(name.as_str().into(), QueueDeleteOptions::default())
                        .await;
                    let _ = ch
                        .exchange_delete(name.as_str().into(), ExchangeDeleteOptions::default())
                        .await;
                }
            }
        });
    }
}
