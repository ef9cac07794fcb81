//! Signature scheme families: the code half of a provider.
//!
//! A definition's `[signature]` table names its family with
//! `scheme = "..."` and carries that family's parameters; serde turns it
//! into one [`Scheme`] variant holding the family's params struct. Every
//! family verifies over the exact raw body, compares in constant time,
//! accepts any of several keys (rotation), and reports the timestamp it
//! signed so that [`super::verify_request`] checks it, after the signature,
//! in both directions.
//!
//! # Adding a family
//!
//! 1. Write `scheme/NAME.rs`: a params struct deriving `Deserialize` with
//!    `#[serde(deny_unknown_fields)]`, every field documented where it is
//!    declared, and `impl Family for NameParams` (see [`Family`]; the shared
//!    HMAC machinery is in [`mac`]).
//! 2. Add `mod NAME;` below and a variant `Name(NAME::NameParams)` to
//!    [`Scheme`]: the TOML name is the variant's kebab-case name.
//! 3. Add the variant's arm to [`Scheme::family`]. That is the only match.
//! 4. If the family's key is not a shared secret (a public key), add a
//!    variant to `Material` in `key.rs` and an accessor beside
//!    `Key::shared_bytes`. A family whose key is fetched by URL implements
//!    [`Family::certificate`] (see [`rsa_cert_url`]).
//! 5. Add a definition in `providers/` and its vectors in
//!    `tests/vectors/<kind>/`; `tests/it/vectors.rs` runs them.

pub mod algorithm_header;
pub mod basic;
pub mod body_hmac;
pub mod body_token;
pub mod braintree;
pub mod canonical_request;
pub mod content;
pub mod digest;
pub mod ebay;
pub mod ecdsa;
pub mod ecdsa_key_id;
pub mod ed25519;
pub mod hmac;
pub mod hmac_kv;
pub mod jwks;
pub mod jws;
pub mod jwt;
pub mod jwt_public_key;
pub mod mac;
mod needed;
pub mod public_key;
pub mod query_token;
pub mod rsa_cert_url;
pub mod rsa_key;
pub mod rsa_signature;
pub mod token;
pub mod url_hmac;
pub mod url_nonce_hmac;
pub mod x5c;

use serde::Deserialize;

pub use self::needed::{Bearer, CertificateNeeded, ClientCredentials, Credential, KeyAuth};

use super::fetch_url::{FetchHosts, FetchUrl};
use super::header::HeaderNames;
use super::key::{Key, KeyError};
use super::request::UntrustedRequest;

/// The `[signature]` table of a definition: one family and its parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "scheme", rename_all = "kebab-case")]
pub enum Scheme {
    /// One or more `prefix + digest` signatures in a header, over a
    /// template. GitHub, Shopify, Slack, Standard Webhooks. `hmac-header`
    /// is its former name, still accepted.
    #[serde(alias = "hmac-header")]
    Hmac(hmac::HmacParams),
    /// A timestamp and signatures as `key=value` pairs in one header.
    /// Stripe's `t=...,v1=...`.
    HmacKv(hmac_kv::HmacKvParams),
    /// A shared token sent verbatim in a header. GitLab.
    Token(token::TokenParams),
    /// A shared token in a query parameter of the registered URL. Azure
    /// Event Grid.
    QueryToken(query_token::QueryTokenParams),
    /// `user:password` in HTTP Basic auth. Postmark, Pipedrive, Chargebee.
    Basic(basic::BasicParams),
    /// An HMAC inside the JSON body over other body fields. Mailgun.
    BodyHmac(body_hmac::BodyHmacParams),
    /// A shared value in every item of the JSON body. Microsoft Graph.
    BodyToken(body_token::BodyTokenParams),
    /// An HMAC over the URL and the sorted form parameters. Twilio.
    UrlHmac(url_hmac::UrlHmacParams),
    /// An HMAC over the URL with its query sorted, the sorted form
    /// parameters and a nonce header. Plivo (signature V3).
    UrlNonceHmac(url_nonce_hmac::UrlNonceHmacParams),
    /// An HMAC over a canonical request: method, encoded path and query,
    /// the headers the request lists as signed, body. Contentful.
    CanonicalRequest(canonical_request::CanonicalRequestParams),
    /// A JWT, HMAC-signed, whose claim holds the body's SHA-256.
    /// FusionAuth, Upstash QStash, LiveKit.
    Jwt(jwt::JwtParams),
    /// A plain hash of the content with the secret. Cloudinary, HubSpot v2.
    Digest(digest::DigestParams),
    /// An Ed25519 signature checked with the provider's public key.
    /// Discord, Telnyx.
    Ed25519(ed25519::Ed25519Params),
    /// An ECDSA P-256/SHA-256 signature checked with the provider's public
    /// key. SendGrid.
    EcdsaP256(ecdsa::EcdsaP256Params),
    /// An ECDSA P-256/SHA-256 signature checked with the key the request
    /// names by ID, fetched from the provider's API with the tenant's API
    /// key, from the definition's `fetch_hosts` only. Circle.
    EcdsaKeyId(ecdsa_key_id::EcdsaKeyIdParams),
    /// eBay's Notification API: an ECDSA P-256/SHA-1 signature over the
    /// body (or its `JSON.stringify` re-serialization), checked with the
    /// key its header names, fetched with an application token the tenant's
    /// client ID and secret obtain. eBay.
    Ebay(ebay::EbayParams),
    /// An RSA signature checked with a certificate whose URL the request
    /// names, fetched from the definition's `fetch_hosts` only. AWS SNS,
    /// PayPal.
    RsaCertUrl(rsa_cert_url::RsaCertUrlParams),
    /// An RSA PKCS#1 v1.5 signature checked with the provider's public key,
    /// which the tenant configures (nothing is fetched). Bridge.
    Rsa(rsa_signature::RsaParams),
    /// A JWT signed with a key the provider publishes at a URL (a JWK
    /// Set), fetched from the definition's `fetch_hosts` only. Google
    /// Cloud Pub/Sub push, Kinde.
    Jwks(jwks::JwksParams),
    /// An ES256 JWS in the JSON body whose `x5c` chain leads to a trusted
    /// root (bundled or configured). Apple App Store Server Notifications.
    X5c(x5c::X5cParams),
    /// A JWT that is the whole body, signed with the provider's RSA key and
    /// checked with the public key the tenant configures. Wix.
    JwtPublicKey(jwt_public_key::JwtPublicKeyParams),
    /// Braintree's form of `bt_signature` pairs (`publicKey|hex HMAC-SHA1`
    /// keyed with the SHA-1 of the private key) over `bt_payload`.
    Braintree(braintree::BraintreeParams),
}

/// Stands in for a secret a request carries (a shared token in a header,
/// the query or the body) wherever a request is kept or shown apart from
/// its deliveries: capture files, the console.
pub const REDACTED: &str = "[redacted]";

impl Scheme {
    /// `body` as captures and the console keep and show it: with every
    /// secret the scheme reads from it (Microsoft Graph's `clientState`)
    /// replaced by [`REDACTED`]; unchanged for every other scheme.
    pub fn redacted_body<'b>(&self, body: &'b [u8]) -> std::borrow::Cow<'b, [u8]> {
        match self.family().redact_body(body) {
            Some(redacted) => std::borrow::Cow::Owned(redacted),
            None => std::borrow::Cow::Borrowed(body),
        }
    }

    /// The family's behaviour. The one place that matches on the variants.
    pub(crate) fn family(&self) -> &dyn Family {
        match self {
            Scheme::Hmac(p) => p,
            Scheme::HmacKv(p) => p,
            Scheme::Token(p) => p,
            Scheme::QueryToken(p) => p,
            Scheme::Basic(p) => p,
            Scheme::BodyHmac(p) => p,
            Scheme::BodyToken(p) => p,
            Scheme::UrlHmac(p) => p,
            Scheme::UrlNonceHmac(p) => p,
            Scheme::CanonicalRequest(p) => p,
            Scheme::Jwt(p) => p,
            Scheme::Digest(p) => p,
            Scheme::Ed25519(p) => p,
            Scheme::EcdsaP256(p) => p,
            Scheme::EcdsaKeyId(p) => p,
            Scheme::Ebay(p) => p,
            Scheme::RsaCertUrl(p) => p,
            Scheme::Rsa(p) => p,
            Scheme::Jwks(p) => p,
            Scheme::X5c(p) => p,
            Scheme::JwtPublicKey(p) => p,
            Scheme::Braintree(p) => p,
        }
    }
}

/// What a scheme family does. Implemented by each family's params struct.
pub(crate) trait Family: std::fmt::Debug + Send + Sync {
    /// The TOML `scheme` name, for `hookline providers` and the docs.
    fn name(&self) -> &'static str;

    /// Cross-field rules, checked once when the definition loads.
    fn check(&self) -> Result<(), String>;

    /// Decode one configured secret into the key this family verifies with.
    /// The error names what is wrong and never contains the secret.
    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError>;

    /// Decode a private key (`hookline sign --private-key`), for families
    /// whose secrets are public keys.
    fn decode_private_key(&self, _text: &str) -> Result<Key, KeyError> {
        Err(KeyError::new(
            "this scheme signs with the shared secret: use --secret",
        ))
    }

    /// The tenant secret (public key) that verifies what `private` signs,
    /// written as `secrets` hold it; `None` for shared-secret families.
    fn public_secret(&self, _private: &Key) -> Option<String> {
        None
    }

    /// Verify `req` against any of `keys`: `Ok(Some(t))` when the signature
    /// covered the unix time `t` (checked against the tolerance by the
    /// caller, after this), `Ok(None)` when no time is signed.
    fn verify(&self, req: &UntrustedRequest<'_>, keys: &[&Key])
        -> Result<Option<i64>, VerifyError>;

    /// Whether the family fetches a certificate ([`Family::certificate`]).
    fn fetches(&self) -> bool {
        false
    }

    /// For a family that verifies with a certificate or keys fetched by
    /// URL: what `req` needs, once every check that needs none passed
    /// (the URL allowed by `hosts` among them), and the time it signed.
    /// `Ok(None)` for the other families, which fetch nothing.
    fn certificate(
        &self,
        _req: &UntrustedRequest<'_>,
        _keys: &[&Key],
        _hosts: &FetchHosts,
    ) -> Result<Option<CertificateNeeded>, VerifyError> {
        Ok(None)
    }

    /// The headers a sender of this scheme adds to a request: the signature
    /// and, where the scheme has them, the timestamp and id headers.
    fn sign(&self, key: &Key, input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError>;

    /// Whether verification reads the external URL (`{url}`).
    fn needs_url(&self) -> bool;

    /// The headers that carry the signature.
    fn signature_headers(&self) -> &[String];

    /// Headers whose value is the secret itself (a shared token): captures
    /// store them redacted.
    fn secret_headers(&self) -> &[String] {
        &[]
    }

    /// Query parameters whose value is the secret itself (a token in the
    /// URL): captures store them redacted.
    fn secret_query_params(&self) -> &[String] {
        &[]
    }

    /// `body` with every secret inside it replaced by [`REDACTED`], for a
    /// family that reads its secret from the body; `None` when there is
    /// nothing to replace.
    fn redact_body(&self, _body: &[u8]) -> Option<Vec<u8>> {
        None
    }

    /// The header carrying the message ID the signature covers (`{id}`),
    /// which a re-signed replay must keep.
    fn id_header(&self) -> Option<&HeaderNames> {
        None
    }
}

/// The value of the first of `names` the request carries; a request
/// without any of them carries no signature.
pub(crate) fn required<'r>(
    req: &'r UntrustedRequest<'_>,
    names: &HeaderNames,
) -> Result<&'r str, VerifyError> {
    req.headers
        .first_of(names)
        .ok_or(VerifyError::MissingSignature)
}

/// [`required`] for a header the definition may not name (a timestamp
/// or ID header): `None` when it names none.
pub(crate) fn optional<'r>(
    req: &'r UntrustedRequest<'_>,
    names: Option<&HeaderNames>,
) -> Result<Option<&'r str>, VerifyError> {
    names.map(|names| required(req, names)).transpose()
}

/// Why a request failed verification. Maps to 401 with the same `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the signature header is missing")]
    MissingSignature,
    #[error("no signature matches any configured secret")]
    InvalidSignature,
    #[error("the signed timestamp is outside the tolerance")]
    TimestampOutOfTolerance,
}

/// Why a request cannot be signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("the signed content needs header {0}, which the request does not carry")]
    MissingHeader(String),
    #[error("this key cannot sign for this scheme")]
    WrongKey,
    #[error("only the provider signs for this scheme, with the certificate at a URL it names")]
    ProviderOnly,
    #[error(
        "this scheme's signature or token is inside the body: put it there when you build the body"
    )]
    SignedInBody,
    #[error("this scheme's token is a query parameter of the URL the provider is given: put it in --url")]
    SignedInUrl,
}

/// What to sign: the inverse of verification.
#[derive(Debug, Clone, Copy)]
pub struct SignInput<'a> {
    /// The HTTP method (`{method}`).
    pub method: &'a str,
    /// The URL the request goes to (`{url}`).
    pub url: &'a str,
    /// The request's other headers (content type, event ID and type), for
    /// `{header:Name}`.
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
    /// The message ID (`{id}`) for schemes that sign one.
    pub id: &'a str,
    /// Unix seconds (`{timestamp}`).
    pub timestamp: i64,
}
