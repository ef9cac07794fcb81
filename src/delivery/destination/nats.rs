//! `kind = "nats"`: publish to NATS JetStream and wait for the stream's
//! `PublishAck`. The message is the body, byte for byte, with the
//! delivery's headers as NATS headers and `Nats-Msg-Id` = `webhook-id`, so
//! the stream drops a redelivery inside its duplicate window (answering
//! `duplicate: true`, which is success: the stream has the message).
//!
//! One client per handler, made when the first attempt needs it and kept:
//! async-nats connects in the background and reconnects by itself with
//! backoff, so hookline starts while the server is down, and attempts made
//! meanwhile time out and are retried like any failed attempt.

use std::time::Duration;

use async_nats::jetstream::{self, context::PublishErrorKind, message::PublishMessage};
use tokio::sync::OnceCell;

use super::{headers, tls, Sent};
use crate::config::{DestinationSettings, Handler, Placeholders, TlsSettings, Values};
use crate::delivery::outgoing::Outgoing;

/// A NATS JetStream destination.
#[derive(Clone)]
pub struct Nats {
    options: Options,
    subject: Placeholders,
    timeout: Duration,
    context: std::sync::Arc<OnceCell<jetstream::Context>>,
}

/// What connecting takes, read once from the settings.
#[derive(Clone)]
struct Options {
    /// The server URL without its credentials.
    server: url::Url,
    user: Option<(String, Option<String>)>,
    credentials: Option<String>,
    tls: rustls::ClientConfig,
    name: String,
}

impl std::fmt::Debug for Nats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the credentials.
        f.debug_struct("Nats")
            .field("server", &self.options.server.as_str())
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

impl Nats {
    pub fn new(handler: &Handler, tls_settings: &TlsSettings) -> Result<Nats, String> {
        let DestinationSettings::Nats { subject } = &*handler.destination else {
            unreachable!("a nats handler has nats settings");
        };
        let mut server = handler.url.clone();
        let user = (!server.username().is_empty())
            .then(|| (decode(server.username()), server.password().map(decode)));
        let _ = server.set_username("");
        let _ = server.set_password(None);
        let credentials = handler
            .credentials_file
            .as_ref()
            .map(|f| std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display())))
            .transpose()?;
        // Used for tls://, and for nats:// when the server requires TLS.
        let tls = tls::client_config(handler, tls_settings)?;
        Ok(Nats {
            options: Options {
                server,
                user,
                credentials,
                tls,
                name: format!("hookline {}", handler.name.as_str()),
            },
            subject: subject.clone(),
            timeout: handler.timeout,
            context: Default::default(),
        })
    }

    /// The JetStream context, connecting (in the background) on first use.
    async fn context(&self) -> Result<&jetstream::Context, String> {
        self.context
            .get_or_try_init(|| async {
                let o = &self.options;
                let mut options = async_nats::ConnectOptions::new()
                    .name(&o.name)
                    // Connect in the background: a server that is down
                    // must not hold the attempt longer than its timeout.
                    .retry_on_initial_connect()
                    .connection_timeout(self.timeout)
                    .max_reconnects(None)
                    .tls_client_config(o.tls.clone());
                if o.server.scheme() == "tls" {
                    options = options.require_tls(true);
                }
                match &o.user {
                    Some((user, Some(pass))) => {
                        options = options.user_and_password(user.clone(), pass.clone())
                    }
                    // A user name alone is a token: nats://TOKEN@host.
                    Some((token, None)) => options = options.token(token.clone()),
                    None => {}
                }
                if let Some(creds) = &o.credentials {
                    options = options
                        .credentials(creds)
                        .map_err(|_| "credentials_file: not a NATS credentials file".to_owned())?;
                }
                let client = options
                    .connect(o.server.as_str())
                    .await
                    .map_err(|e| format!("connecting: {e}"))?;
                Ok(jetstream::ContextBuilder::new()
                    .timeout(self.timeout)
                    .build(client))
            })
            .await
    }

    /// Publish one attempt and wait for the stream's acknowledgement.
    pub async fn send(&self, out: &Outgoing) -> Sent {
        let context = match self.context().await {
            Ok(c) => c,
            Err(e) => return Sent::retry(e),
        };
        let subject = self.subject.render(&Values {
            provider: &out.provider,
            tenant: &out.tenant,
            event_type: &out.event_type,
        });
        let mut message = PublishMessage::build()
            .payload(out.body.clone())
            .message_id(&out.webhook_id);
        for (name, value) in headers(out) {
            // A line break would end the header early (or forge another).
            if value.contains(['\r', '\n']) {
                return Sent::dead(format!(
                    "header {name} holds a line break, which a NATS header cannot carry"
                ));
            }
            message = message.header(name.as_str(), value.as_str());
        }
        let ack = match context.send_publish(subject.clone(), message).await {
            Ok(ack) => ack.await,
            Err(e) => Err(e),
        };
        match ack {
            Ok(ack) => Sent::delivered(format!(
                "stream {} seq {}{}",
                ack.stream,
                ack.sequence,
                if ack.duplicate { " (duplicate)" } else { "" }
            )),
            // The server refuses it whatever happens next.
            Err(e) if e.kind() == PublishErrorKind::MaxPayloadExceeded => {
                Sent::dead(format!("{subject}: {e}"))
            }
            Err(e) => {
                Sent::retry(match e.kind() {
                    PublishErrorKind::StreamNotFound => {
                        format!("{subject}: no JetStream stream takes this subject")
                    }
                    PublishErrorKind::TimedOut
                        if context.client().connection_state()
                            != async_nats::connection::State::Connected =>
                    {
                        format!("{subject}: not connected to the server (reconnecting in the background)")
                    }
                    PublishErrorKind::TimedOut => {
                        format!("{subject}: no acknowledgement within the handler's timeout")
                    }
                    _ => format!("{subject}: {e}"),
                })
            }
        }
    }
}

/// A URL's user or password as it was before percent-encoding.
fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}
