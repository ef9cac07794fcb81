//! Handshakes: requests a provider sends to prove or set up an endpoint
//! (Slack's `url_verification`, hub.challenge, CRC checks, ...), answered
//! by [`super::verify_request`] as a [`HandshakeAnswer`], never an event.
//!
//! A definition's optional `[handshake]` table names one kind with
//! `kind = "..."` plus its parameters; serde turns it into one
//! [`Handshake`] variant holding the kind's struct.
//!
//! # Adding a kind
//!
//! 1. Write `handshake/NAME.rs`: a struct deriving `Deserialize` with
//!    `#[serde(deny_unknown_fields)]` (its fields, if any, documented) and
//!    `impl HandshakeKind` for it.
//! 2. Add `mod NAME;` below and a variant to [`Handshake`]: the TOML name
//!    is the variant's kebab-case name.
//! 3. Add the variant's arm to [`Handshake::kind`]. That is the only match.
//!
//! What a kind can express: [`Stage::Unsigned`] for requests that carry no
//! signature (GET challenges, answered before verification, perhaps
//! checked against the tenant's `verify_token`), [`Stage::Signed`] for those
//! answered only once the signature verified; other methods than `POST`
//! through [`HandshakeKind::methods`]; answers with any status, content
//! type, body and headers; a secret to store for the tenant
//! ([`HandshakeAnswer::store_secret`]), which later requests then carry in
//! [`TenantState::stored_key`]; a URL the HTTP layer fetches before
//! answering ([`HandshakeAnswer::confirm`], SNS's `SubscribeURL`).

mod braintree_challenge;
mod discord;
mod ebay_challenge;
mod event_grid;
mod form_ping;
mod head_ok;
mod header_echo;
mod hook_secret;
mod hub_challenge;
mod intent_to_receive;
mod json_echo;
mod okta;
mod query_echo;
mod slack;
mod smartsheet;
mod sns;
mod twitch;
mod twitter_crc;
mod zoom;

use bytes::Bytes;
use secrecy::SecretString;
use serde::Deserialize;

use super::fetch_url::{FetchHosts, FetchUrl};
use super::key::Key;
use super::request::{Rejection, UntrustedRequest};

/// The longest challenge echoed back; a longer one is refused
/// (`malformed_payload`), so the endpoint cannot be made to reflect
/// arbitrary amounts of data.
pub const MAX_CHALLENGE_LEN: usize = 512;

/// The `[handshake]` table of a definition: one kind and its parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Handshake {
    /// Slack Events API `url_verification`: after the signature, echo
    /// `challenge` as `text/plain`.
    SlackUrlVerification(slack::SlackUrlVerification),
    /// Discord's signed PING: `{"type":0}` answered 204, `{"type":1}`
    /// without an event answered `{"type":1}`.
    DiscordPing(discord::DiscordPing),
    /// Zoom's signed `endpoint.url_validation`: the plain token and its
    /// HMAC.
    ZoomUrlValidation(zoom::ZoomUrlValidation),
    /// Twitch EventSub's signed `webhook_callback_verification`: the raw
    /// challenge.
    TwitchCallbackVerification(twitch::TwitchCallbackVerification),
    /// Okta's `GET` with `X-Okta-Verification-Challenge`, once its
    /// authorization header verified.
    OktaVerification(okta::OktaVerification),
    /// WebSub `hub.challenge` against the tenant's `verify_token` (Meta,
    /// Strava).
    HubChallenge(hub_challenge::HubChallenge),
    /// A query parameter echoed as text (Dropbox `GET ?challenge=`,
    /// Microsoft Graph `POST ?validationToken=`).
    QueryEcho(query_echo::QueryEcho),
    /// X's `GET ?crc_token=`, signed over its query, answered with the
    /// token's HMAC.
    TwitterCrc(twitter_crc::TwitterCrc),
    /// `HEAD` answered 200 (Trello).
    HeadOk(head_ok::HeadOk),
    /// The signing secret handed over in a header and stored (Asana's
    /// `X-Hook-Secret`).
    HookSecret(hook_secret::HookSecret),
    /// AWS SNS's signed `SubscriptionConfirmation`: confirmed by fetching
    /// its `SubscribeURL` from an allowed host.
    SnsSubscription(sns::SnsSubscription),
    /// An unsigned form POST of one field answered with an empty 200
    /// (WooCommerce's `webhook_id=` ping).
    FormPing(form_ping::FormPing),
    /// Smartsheet's `Smartsheet-Hook-Challenge`, echoed in the
    /// `Smartsheet-Hook-Response` header and as `smartsheetHookResponse`.
    SmartsheetVerification(smartsheet::SmartsheetVerification),
    /// Azure Event Grid's `SubscriptionValidationEvent` (answered with its
    /// `validationCode`) and CloudEvents `OPTIONS` abuse protection, once
    /// the request's token verified.
    EventGridValidation(event_grid::EventGridValidation),
    /// A bodiless POST whose header is echoed in the answer's header
    /// (RingCentral's `Validation-Token`).
    HeaderEcho(header_echo::HeaderEcho),
    /// Xero's "intent to receive": signed POSTs of an empty batch, answered
    /// 200 when the signature is right and 401 when not, both empty.
    IntentToReceive(intent_to_receive::IntentToReceive),
    /// A signed JSON request of one type answered with one of its members
    /// echoed in a JSON object (Tebex's `validation.webhook`).
    JsonEcho(json_echo::JsonEcho),
    /// Braintree's `GET ?bt_challenge=` answered with
    /// `publicKey|hex HMAC-SHA1(SHA1(privateKey), challenge)`.
    BraintreeChallenge(braintree_challenge::BraintreeChallenge),
    /// eBay's `GET ?challenge_code=` answered with
    /// `{"challengeResponse": hex SHA-256(code + verify_token + endpoint)}`.
    EbayChallenge(ebay_challenge::EbayChallenge),
}

impl Handshake {
    /// The kind's behaviour. The one place that matches on the variants.
    pub(crate) fn kind(&self) -> &dyn HandshakeKind {
        match self {
            Handshake::SlackUrlVerification(h) => h,
            Handshake::DiscordPing(h) => h,
            Handshake::ZoomUrlValidation(h) => h,
            Handshake::TwitchCallbackVerification(h) => h,
            Handshake::OktaVerification(h) => h,
            Handshake::HubChallenge(h) => h,
            Handshake::QueryEcho(h) => h,
            Handshake::TwitterCrc(h) => h,
            Handshake::HeadOk(h) => h,
            Handshake::HookSecret(h) => h,
            Handshake::SnsSubscription(h) => h,
            Handshake::FormPing(h) => h,
            Handshake::SmartsheetVerification(h) => h,
            Handshake::EventGridValidation(h) => h,
            Handshake::HeaderEcho(h) => h,
            Handshake::IntentToReceive(h) => h,
            Handshake::JsonEcho(h) => h,
            Handshake::BraintreeChallenge(h) => h,
            Handshake::EbayChallenge(h) => h,
        }
    }

    /// The kind's TOML name, for logs and metrics.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// Whether the handshake hands over a secret the receiver stores
    /// (tenants then need no configured secret).
    pub fn stores_secret(&self) -> bool {
        self.kind().stores_secret()
    }
}

/// When a handshake is recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Before any signature check: the request carries none, and proves
    /// itself otherwise (a `verify_token`) or not at all.
    Unsigned,
    /// Only once the request's signature verified.
    Signed,
}

/// What a handshake kind does. Implemented by each kind's struct.
pub(crate) trait HandshakeKind: std::fmt::Debug + Send + Sync {
    /// The TOML `kind`.
    fn name(&self) -> &'static str;

    fn stage(&self) -> Stage;

    /// Methods other than `POST` this kind answers (`GET`, `HEAD`).
    fn methods(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether its answers carry a secret to store
    /// ([`HandshakeAnswer::store_secret`]).
    fn stores_secret(&self) -> bool {
        false
    }

    /// Cross-field rules, checked once when the definition loads.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    /// Whether an answer may ask for a URL to be fetched
    /// ([`HandshakeAnswer::confirm`]).
    fn fetches(&self) -> bool {
        false
    }

    /// The request the provider sends for this handshake, with
    /// `challenge` as its challenge, before any signature is added
    /// (`hookline handshake KIND`); `None` for a kind only the provider
    /// can produce (AWS SNS, X's CRC).
    fn sample(&self, _challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        None
    }

    /// `None` when `req` is not this handshake (it is then an ordinary
    /// event); otherwise the answer, or why the handshake is refused.
    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>>;
}

/// A handshake request as its provider would send it, unsigned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleRequest {
    pub method: &'static str,
    /// Query parameters, not yet encoded.
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl SampleRequest {
    /// A `POST` of `body` as JSON.
    pub(crate) fn json(body: &serde_json::Value) -> Self {
        SampleRequest {
            method: "POST",
            query: Vec::new(),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
        }
    }

    /// A bodiless `method` with `query`.
    pub(crate) fn bare(method: &'static str, query: &[(&str, &str)]) -> Self {
        SampleRequest {
            method,
            query: query
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// With one more header.
    pub(crate) fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

impl Handshake {
    /// The request [`HandshakeKind::sample`] describes, and whether it is
    /// answered only once signed.
    pub fn sample(
        &self,
        challenge: &str,
        verify_token: Option<&str>,
    ) -> Option<(SampleRequest, bool)> {
        let kind = self.kind();
        let req = kind.sample(challenge, verify_token)?;
        Some((req, kind.stage() == Stage::Signed))
    }
}

/// What the HTTP layer knows of a tenant beyond its configured keys, for
/// handshakes that need it. `Default` is "nothing".
#[derive(Debug, Default, Clone, Copy)]
pub struct TenantState<'a> {
    /// The tenant's `verify_token` (hub.challenge handshakes).
    pub verify_token: Option<&'a SecretString>,
    /// A secret an earlier handshake stored for this provider and tenant
    /// (Asana's `X-Hook-Secret`), decoded by the definition; requests are
    /// verified against it as well as the configured keys.
    pub stored_key: Option<&'a Key>,
    /// The certificates or published keys fetched for this request, for
    /// a family that verifies with them ([`super::certificate_to_fetch`]
    /// says which).
    pub certificates: &'a [&'a Key],
}

/// Everything a handshake may use to answer.
pub struct Credentials<'a> {
    /// The configured keys, then the stored one.
    pub keys: &'a [&'a Key],
    pub verify_token: Option<&'a SecretString>,
    /// The hosts the provider's URLs may be fetched from (SNS's
    /// `SubscribeURL`).
    pub fetch_hosts: &'a FetchHosts,
}

/// The answer to a handshake, sent as is.
#[derive(Debug, Clone)]
pub struct HandshakeAnswer {
    pub status: u16,
    pub content_type: Option<&'static str>,
    pub body: Bytes,
    /// Extra headers (`X-Content-Type-Options`, Asana's `X-Hook-Secret`).
    pub headers: Vec<(String, String)>,
    /// A secret to store durably for this provider and tenant before the
    /// answer is sent; `None` for stateless handshakes.
    pub store_secret: Option<SecretString>,
    /// A URL to `GET` before the answer is sent (SNS's `SubscribeURL`,
    /// which confirms the subscription); if the `GET` fails, the provider
    /// gets a 503 instead and tries again. `None` for most handshakes.
    pub confirm: Option<FetchUrl>,
}

impl HandshakeAnswer {
    /// `200`, `text/plain`, the challenge echoed, and `nosniff` so that no
    /// browser reads the echoed text as anything else.
    pub fn echo(challenge: &str) -> Self {
        HandshakeAnswer {
            status: 200,
            content_type: Some("text/plain"),
            body: Bytes::copy_from_slice(challenge.as_bytes()),
            headers: vec![("X-Content-Type-Options".into(), "nosniff".into())],
            store_secret: None,
            confirm: None,
        }
    }
}

impl HandshakeAnswer {
    /// `200` with no body: an acknowledgement that reveals nothing.
    pub fn empty() -> Self {
        HandshakeAnswer {
            status: 200,
            content_type: None,
            body: Bytes::new(),
            headers: Vec::new(),
            store_secret: None,
            confirm: None,
        }
    }

    /// `200` with `value` as JSON.
    pub fn json(value: &serde_json::Value) -> Self {
        HandshakeAnswer {
            status: 200,
            content_type: Some("application/json"),
            body: Bytes::from(value.to_string()),
            headers: Vec::new(),
            store_secret: None,
            confirm: None,
        }
    }
}

/// The URL-decoded value of query parameter `name`, if present.
pub(crate) fn query_param(query: &str, name: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// A challenge fit to echo: non-empty, at most [`MAX_CHALLENGE_LEN`]
/// bytes, no control characters.
pub(crate) fn echoable(challenge: &str) -> Result<&str, Rejection> {
    if challenge.is_empty()
        || challenge.len() > MAX_CHALLENGE_LEN
        || challenge.chars().any(char::is_control)
    {
        return Err(Rejection::MalformedPayload);
    }
    Ok(challenge)
}
