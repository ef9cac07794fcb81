//! Broker names with placeholders: a NATS subject, an AMQP routing key, a
//! Redis stream key or an MQTT topic, written with `{provider}`,
//! `{tenant}` and `{event_type}`, filled in per message. Each broker's
//! [`Syntax`] says what the written text may hold (checked by
//! `check-config`) and which characters of a filled-in value it does not
//! allow, written as `_` instead.

use std::borrow::Cow;
use std::fmt;

/// The values a message fills in.
#[derive(Debug, Clone, Copy)]
pub struct Values<'a> {
    pub provider: &'a str,
    pub tenant: &'a str,
    pub event_type: &'a str,
}

/// Whose names these are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// A NATS subject: `.`-separated tokens, none empty; no whitespace; `*`
    /// and `>` are wildcards; a leading `$` is the system's.
    NatsSubject,
    /// An AMQP routing key: any text of at most 255 bytes.
    AmqpRoutingKey,
    /// A Redis key: any text.
    RedisKey,
    /// An MQTT topic name: `/`-separated levels; `+` and `#` are wildcards;
    /// no NUL; a leading `$` is the broker's.
    MqttTopic,
}

impl Syntax {
    /// A filled-in value with what this broker does not allow in it as `_`.
    /// The separators (`.` for NATS, `/` for MQTT) stay, so an event type
    /// such as `payment_intent.succeeded` makes a subject hierarchy.
    fn clean<'a>(self, value: &'a str) -> Cow<'a, str> {
        let bad = |c: char| match self {
            Syntax::NatsSubject => {
                c.is_whitespace() || c.is_control() || matches!(c, '*' | '>' | '$')
            }
            Syntax::MqttTopic => c.is_control() || matches!(c, '+' | '#' | '$'),
            Syntax::AmqpRoutingKey | Syntax::RedisKey => false,
        };
        if value.contains(bad) {
            Cow::Owned(value.replace(bad, "_"))
        } else {
            Cow::Borrowed(value)
        }
    }

    /// Why the text written around the placeholders is not a name of this
    /// kind, if it is not.
    fn check_written(self, text: &str) -> Result<(), String> {
        match self {
            Syntax::NatsSubject => {
                if text.contains(|c: char| c.is_whitespace() || c.is_control()) {
                    return Err("a NATS subject has no whitespace".into());
                }
                if text.contains(['*', '>']) {
                    return Err("a subject to publish to has no wildcard (* or >)".into());
                }
                if text.starts_with('$') {
                    return Err("subjects starting with $ are the server's".into());
                }
                if text.starts_with('.') || text.ends_with('.') || text.contains("..") {
                    return Err(
                        "a NATS subject has no empty token (no leading, trailing or double '.')"
                            .into(),
                    );
                }
            }
            Syntax::AmqpRoutingKey => {
                if text.len() > 255 {
                    return Err("a routing key is at most 255 bytes".into());
                }
            }
            Syntax::RedisKey => {}
            Syntax::MqttTopic => {
                if text.contains(['+', '#', '\0']) {
                    return Err("a topic to publish to has no wildcard (+ or #) and no NUL".into());
                }
                if text.starts_with('$') {
                    return Err("topics starting with $ are the broker's".into());
                }
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Provider,
    Tenant,
    EventType,
}

/// A name with placeholders, checked against its broker's syntax.
#[derive(Clone, PartialEq, Eq)]
pub struct Placeholders {
    syntax: Syntax,
    parts: Vec<Part>,
    written: String,
}

impl fmt::Debug for Placeholders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.written)
    }
}

impl fmt::Display for Placeholders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written)
    }
}

impl Placeholders {
    /// Parse `text`; the error says what is wrong with it.
    pub fn parse(text: &str, syntax: Syntax) -> Result<Placeholders, String> {
        if text.is_empty() && syntax != Syntax::AmqpRoutingKey {
            return Err("must not be empty".into());
        }
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err("a '}' without its '{'".into());
            }
            let len = rest[open..].find('}').ok_or("a '{' without its '}'")?;
            let name = &rest[open + 1..open + len];
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_owned()));
            }
            parts.push(match name {
                "provider" => Part::Provider,
                "tenant" => Part::Tenant,
                "event_type" => Part::EventType,
                _ => {
                    return Err(format!(
                        "unknown placeholder {{{name}}}: use {{provider}}, {{tenant}} or {{event_type}}"
                    ))
                }
            });
            rest = &rest[open + len + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_owned()));
        }
        // The written text alone: each placeholder stands for one plain
        // character, so "{provider}.{event_type}" is checked as "x.x".
        let shape: String = parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.as_str(),
                _ => "x",
            })
            .collect();
        syntax.check_written(&shape)?;
        Ok(Placeholders {
            syntax,
            parts,
            written: text.to_owned(),
        })
    }

    /// The name for one message.
    pub fn render(&self, values: &Values<'_>) -> String {
        let mut out = String::with_capacity(self.written.len() + 32);
        for part in &self.parts {
            let value = match part {
                Part::Text(t) => {
                    out.push_str(t);
                    continue;
                }
                Part::Provider => values.provider,
                Part::Tenant => values.tenant,
                Part::EventType => values.event_type,
            };
            out.push_str(&self.syntax.clean(value));
        }
        if self.syntax == Syntax::NatsSubject
            && (out.starts_with('.') || out.ends_with('.') || out.contains(".."))
        {
            // A value that was empty or began or ended with '.' left an
            // empty token: the server refuses those.
            out = out
                .split('.')
                .map(|t| if t.is_empty() { "_" } else { t })
                .collect::<Vec<_>>()
                .join(".");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: Values<'static> = Values {
        provider: "stripe",
        tenant: "acme",
        event_type: "payment_intent.succeeded",
    };

    #[test]
    fn placeholders_are_filled_in() {
        let p =
            Placeholders::parse("webhooks.{provider}.{event_type}", Syntax::NatsSubject).unwrap();
        assert_eq!(p.render(&V), "webhooks.stripe.payment_intent.succeeded");
        let p = Placeholders::parse("webhooks:{tenant}", Syntax::RedisKey).unwrap();
        assert_eq!(p.render(&V), "webhooks:acme");
        let p = Placeholders::parse("", Syntax::AmqpRoutingKey).unwrap();
        assert_eq!(p.render(&V), "");
    }

    #[test]
    fn what_a_broker_does_not_allow_becomes_an_underscore() {
        let odd = Values {
            event_type: "a b*>$.",
            ..V
        };
        let p = Placeholders::parse("w.{event_type}", Syntax::NatsSubject).unwrap();
        assert_eq!(p.render(&odd), "w.a_b___._");
        let empty = Values {
            event_type: "",
            ..V
        };
        assert_eq!(p.render(&empty), "w._");
        let p = Placeholders::parse("w/{event_type}", Syntax::MqttTopic).unwrap();
        assert_eq!(
            p.render(&Values {
                event_type: "a+b#c$d/e",
                ..V
            }),
            "w/a_b_c_d/e"
        );
        let p = Placeholders::parse("{event_type}", Syntax::AmqpRoutingKey).unwrap();
        assert_eq!(p.render(&odd), "a b*>$.");
    }

    #[test]
    fn bad_names_are_refused() {
        for (text, syntax) in [
            ("a.{nope}", Syntax::NatsSubject),
            ("a.{provider", Syntax::NatsSubject),
            ("a}", Syntax::RedisKey),
            ("a.*", Syntax::NatsSubject),
            ("a..{provider}", Syntax::NatsSubject),
            ("a.{provider}.", Syntax::NatsSubject),
            ("$JS.API.{provider}", Syntax::NatsSubject),
            ("a b", Syntax::NatsSubject),
            ("a/#", Syntax::MqttTopic),
            ("$SYS/{provider}", Syntax::MqttTopic),
            ("", Syntax::MqttTopic),
        ] {
            assert!(Placeholders::parse(text, syntax).is_err(), "{text:?}");
        }
        assert!(Placeholders::parse(&"k".repeat(256), Syntax::AmqpRoutingKey).is_err());
    }
}
