//! A handler's destination: its `kind` and the keys each kind takes. An
//! `http` handler is POSTed to; a `nats`, `rabbitmq`, `redis-stream` or
//! `mqtt` handler publishes to that broker, acknowledged only once the
//! broker has the message. Checked here, with every problem reported:
//! the URL's scheme, the kind's required keys, keys of another kind, and
//! the placeholders of subjects, routing keys, streams and topics.

use std::time::Duration;

use super::issues::{key, ConfigIssue};
use super::placeholders::{Placeholders, Syntax};
use super::Handler;

/// `kind`: what a handler is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HandlerKind {
    /// POST to `url` (the default).
    #[default]
    Http,
    /// Publish to NATS JetStream.
    Nats,
    /// Publish to a RabbitMQ exchange (AMQP 0-9-1, publisher confirms).
    Rabbitmq,
    /// Append to a Redis Stream.
    RedisStream,
    /// Publish to an MQTT broker (v5, QoS 1).
    Mqtt,
}

impl HandlerKind {
    const ALL: [HandlerKind; 5] = [
        HandlerKind::Http,
        HandlerKind::Nats,
        HandlerKind::Rabbitmq,
        HandlerKind::RedisStream,
        HandlerKind::Mqtt,
    ];

    /// As written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            HandlerKind::Http => "http",
            HandlerKind::Nats => "nats",
            HandlerKind::Rabbitmq => "rabbitmq",
            HandlerKind::RedisStream => "redis-stream",
            HandlerKind::Mqtt => "mqtt",
        }
    }

    /// The URL schemes this kind connects with; the second is TLS.
    fn schemes(self) -> [&'static str; 2] {
        match self {
            HandlerKind::Http => ["http", "https"],
            HandlerKind::Nats => ["nats", "tls"],
            HandlerKind::Rabbitmq => ["amqp", "amqps"],
            HandlerKind::RedisStream => ["redis", "rediss"],
            HandlerKind::Mqtt => ["mqtt", "mqtts"],
        }
    }

    /// The keys only some kinds take, with the kind that takes each.
    const OWN_KEYS: &'static [(&'static str, HandlerKind)] = &[
        ("subject", HandlerKind::Nats),
        ("credentials_file", HandlerKind::Nats),
        ("exchange", HandlerKind::Rabbitmq),
        ("routing_key", HandlerKind::Rabbitmq),
        ("stream", HandlerKind::RedisStream),
        ("maxlen", HandlerKind::RedisStream),
        ("dedup_window", HandlerKind::RedisStream),
        ("topic", HandlerKind::Mqtt),
    ];
}

/// How long a Redis Stream destination remembers a `webhook-id` it
/// appended, by default.
pub const DEFAULT_DEDUP_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// What a handler's destination needs beyond its URL. Derived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DestinationSettings {
    Http,
    Nats {
        subject: Placeholders,
    },
    Rabbitmq {
        /// `""` is the default exchange.
        exchange: String,
        routing_key: Placeholders,
    },
    RedisStream {
        stream: Placeholders,
        maxlen: Option<u64>,
        dedup_window: Duration,
    },
    Mqtt {
        topic: Placeholders,
    },
}

/// The field of a Redis Stream entry that holds the body: a forwarded
/// header of this name would be ambiguous beside it.
pub const STREAM_BODY_FIELD: &str = "body";

/// Check `h`'s kind-specific keys and derive its destination; `at` is the
/// handler's key.
pub(super) fn resolve(
    h: &mut Handler,
    at: &str,
) -> (Option<DestinationSettings>, Vec<ConfigIssue>) {
    let mut issues = Vec::new();
    let written = h.kind_setting.as_deref().unwrap_or("http");
    let Some(kind) = HandlerKind::ALL.into_iter().find(|k| k.as_str() == written) else {
        // The other checks depend on the kind: checking against a guess
        // would only add noise.
        let reason =
            format!("unknown kind {written:?}: use http, nats, rabbitmq, redis-stream or mqtt");
        return (None, vec![ConfigIssue::new(key(at, "kind"), reason)]);
    };
    h.kind = kind;
    let [plain, tls] = kind.schemes();
    if h.url.scheme() != plain && h.url.scheme() != tls {
        issues.push(ConfigIssue::new(
            key(at, "url"),
            format!(
                "a {} handler's URL is {plain}:// or {tls}://",
                kind.as_str()
            ),
        ));
    } else if h.url.host_str().is_none_or(str::is_empty) {
        issues.push(ConfigIssue::new(key(at, "url"), "has no host"));
    }
    for (name, owner) in HandlerKind::OWN_KEYS {
        if *owner != kind && h.is_set(name) {
            issues.push(ConfigIssue::new(
                key(at, name),
                format!(
                    "not a key of a {} handler (it belongs to kind = \"{}\")",
                    kind.as_str(),
                    owner.as_str()
                ),
            ));
        }
    }
    if kind == HandlerKind::Http && h.signing_key.is_none() {
        issues.push(ConfigIssue::new(
            key(at, "signing_secret"),
            "required for an http handler (deliveries are signed with Standard Webhooks)",
        ));
    }
    let name = |issues: &mut Vec<ConfigIssue>, field: &str, value: Option<&str>, syntax| {
        let Some(text) = value else {
            issues.push(ConfigIssue::new(
                key(at, field),
                format!("required for a {} handler", kind.as_str()),
            ));
            return None;
        };
        Placeholders::parse(text, syntax)
            .map_err(|e| issues.push(ConfigIssue::new(key(at, field), e)))
            .ok()
    };
    let settings = match kind {
        HandlerKind::Http => Some(DestinationSettings::Http),
        HandlerKind::Nats => name(
            &mut issues,
            "subject",
            h.subject.as_deref(),
            Syntax::NatsSubject,
        )
        .map(|subject| DestinationSettings::Nats { subject }),
        HandlerKind::Rabbitmq => {
            let exchange = h.exchange.clone().unwrap_or_default();
            if let Err(e) = check_exchange(&exchange) {
                issues.push(ConfigIssue::new(key(at, "exchange"), e));
            }
            name(
                &mut issues,
                "routing_key",
                h.routing_key.as_deref(),
                Syntax::AmqpRoutingKey,
            )
            .map(|routing_key| DestinationSettings::Rabbitmq {
                exchange,
                routing_key,
            })
        }
        HandlerKind::RedisStream => {
            if h.maxlen == Some(0) {
                issues.push(ConfigIssue::new(key(at, "maxlen"), "must be at least 1"));
            }
            let dedup_window = h.dedup_window.unwrap_or(DEFAULT_DEDUP_WINDOW);
            if dedup_window < Duration::from_secs(1) {
                issues.push(ConfigIssue::new(
                    key(at, "dedup_window"),
                    "must be at least 1s",
                ));
            }
            if h.forward_headers
                .iter()
                .any(|f| f.name().as_str() == STREAM_BODY_FIELD)
            {
                issues.push(ConfigIssue::new(
                    key(at, "forward_headers"),
                    "a redis-stream entry's body is its \"body\" field: a header of that name cannot be forwarded",
                ));
            }
            name(&mut issues, "stream", h.stream.as_deref(), Syntax::RedisKey).map(|stream| {
                DestinationSettings::RedisStream {
                    stream,
                    maxlen: h.maxlen,
                    dedup_window,
                }
            })
        }
        HandlerKind::Mqtt => name(&mut issues, "topic", h.topic.as_deref(), Syntax::MqttTopic)
            .map(|topic| DestinationSettings::Mqtt { topic }),
    };
    if let Some(file) = &h.credentials_file {
        if kind == HandlerKind::Nats {
            if let Err(e) = std::fs::read_to_string(file) {
                issues.push(ConfigIssue::new(
                    key(at, "credentials_file"),
                    format!("{}: {e}", file.display()),
                ));
            }
        }
    }
    (settings, issues)
}

/// An AMQP exchange name: letters, digits, `-`, `_`, `.`, `:`; at most 255
/// bytes; `""` is the default exchange.
fn check_exchange(name: &str) -> Result<(), String> {
    if name.len() > 255 {
        return Err("an exchange name is at most 255 bytes".into());
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
    {
        return Err("an exchange name uses only letters, digits, '-', '_', '.' and ':'".into());
    }
    Ok(())
}
