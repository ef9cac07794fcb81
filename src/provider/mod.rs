//! Providers: definitions (data), scheme families and handshakes (code),
//! and the one function, [`verify_request`], that turns an untrusted
//! request into a [`VerifiedWebhook`], a [`HandshakeAnswer`] or a
//! [`Rejection`].
//!
//! - `definition`: `providers/KIND.toml`, loaded and checked once;
//! - `scheme/`: one file per signature family (how to add one: its
//!   `mod.rs`);
//! - `handshake/`: one file per handshake kind (likewise);
//! - `identity`: where the event ID and type live (`payload`: inside a
//!   JWT or a base64 XML form field);
//! - `batch`: a request that carries several events, one per item;
//! - `fingerprint`: the content digest the conflict check compares;
//! - `template`, `form`: the signed content of HMAC schemes;
//! - `key`: what a configured secret becomes;
//! - `fetch_url`: the URLs a request may make hookline fetch (a signing
//!   certificate, SNS's `SubscribeURL`), allowed by host;
//! - `request`, `verify`, `webhook`: the verify function, its input and
//!   output;
//! - `sign`: the sender's side.

mod batch;
mod catalogue;
pub(crate) mod definition;
mod fetch_url;
mod fingerprint;
mod form;
pub mod handshake;
mod header;
pub(crate) mod identity;
mod key;
mod payload;
mod request;
pub mod scheme;
mod sign;
pub(crate) mod template;
mod verify;
mod webhook;

pub use catalogue::describe;
pub use definition::{DefinitionError, Definitions, ProviderDef, ReplayGuard};
pub use fetch_url::{FetchHosts, FetchUrl};
pub use fingerprint::Fingerprint;
pub use handshake::{Handshake, HandshakeAnswer, TenantState};
pub use header::{HeaderLookup, HeaderNames};
pub use identity::{FieldSource, MAX_EVENT_ID_LEN};
pub use key::{Key, KeyError};
pub use request::{redact_query, Rejection, UntrustedRequest, Verdict};
pub use scheme::{
    Bearer, CertificateNeeded, ClientCredentials, Credential, KeyAuth, Scheme, SignError,
    SignInput, VerifyError,
};
pub use sign::{decode_signing_secret, sender_headers, standard_webhooks_signature};
pub use template::Template;
pub use verify::{certificate_to_fetch, verify_request, verify_signature};
pub use webhook::VerifiedWebhook;
