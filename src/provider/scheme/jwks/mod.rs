//! `scheme = "jwks"`: a JWT signed with a key the provider publishes at a
//! URL (a JWK Set or Google's certificates), fetched and cached. Google
//! Cloud Pub/Sub push (`Authorization: Bearer`, Google's OIDC keys, the
//! audience and service-account email configured per tenant) and Kinde
//! (the body is the JWT, the keys at the tenant's Kinde domain); with
//! `detached`, a JWS over the raw body whose payload is left out of the
//! header (Fireblocks).
//!
//! Only the public-key algorithms the definition lists are accepted (never
//! `none`, never HMAC, never an algorithm the token picks outside the
//! list); the token's `kid` picks the key.
//!
//! # Fetching the keys
//!
//! As for [`super::rsa_cert_url`], in two steps:
//! [`Family::certificate`] runs every check that needs no key (the token
//! is there, its algorithm is listed, its times are within the tolerance,
//! the key URL is `https` on a host of the provider's `fetch_hosts`) and
//! names the URLs to fetch and the `kid` the token wants; the HTTP layer
//! fetches them through its cache, which keeps a set for its
//! `Cache-Control: max-age` and fetches again, at most once per interval,
//! when a token names a key the cached set lacks (the provider rotated).
//! [`Family::verify`] uses only a set fetched from the URL a tenant's
//! secret leads to.
//!
//! What a tenant's secret is depends on [`SecretIs`]: the provider domain
//! the keys are published under (Kinde), or the service account and
//! audience the token must name (Google). Neither is secret; they bind a
//! token to this tenant.

mod key_set;

pub(crate) use key_set::KeySet;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::Algorithm;
use serde::Deserialize;
use serde_json::Value;

use super::{CertificateNeeded, Family, SignError, SignInput, VerifyError};
use crate::provider::fetch_url::{FetchHosts, FetchUrl};
use crate::provider::header::HeaderNames;
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// What `keys_url` writes for the tenant's domain.
const SECRET: &str = "{secret}";

/// The parameters of `scheme = "jwks"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JwksParams {
    /// Header that carries the token; without one, the body is the token.
    #[serde(default)]
    pub header: Option<HeaderNames>,
    /// Text before the token in the header (`Bearer `), if any.
    #[serde(default)]
    pub prefix: String,
    /// The header holds a detached JWS (`protected..signature`, RFC 7515
    /// appendix F) whose payload is the raw body: Fireblocks. Nothing of
    /// the body is read as claims.
    #[serde(default)]
    pub detached: bool,
    /// Where the keys are published: an `https` URL, or `{secret}/path`
    /// for a URL under the tenant's domain (`secret = "domain"`).
    pub keys_url: String,
    /// The algorithms accepted: `RS256`, `RS384`, `RS512`, `PS256`,
    /// `PS384`, `PS512`, `ES256`, `ES384`.
    pub algorithms: Vec<Algorithm>,
    /// The `iss` values accepted; any when empty.
    #[serde(default)]
    pub issuers: Vec<String>,
    /// What a tenant's secret is.
    pub secret: SecretIs,
    /// The token must carry `iat` and `exp` (Google's verifier refuses a
    /// token without them).
    #[serde(default)]
    pub require_times: bool,
}

/// What a tenant's secret holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SecretIs {
    /// The `https://` origin the keys are published under
    /// (`https://acme.kinde.com`): `keys_url` starts with `{secret}`.
    Domain,
    /// `EMAIL AUDIENCE`: the service account the token's `email` claim must
    /// name (with `email_verified`), and its `aud`.
    EmailAudience,
}

/// What one tenant secret asks of a token.
struct Expect<'s> {
    url: String,
    email: Option<&'s str>,
    audience: Option<&'s str>,
}

impl JwksParams {
    fn expect<'s>(&self, secret: &'s [u8]) -> Option<Expect<'s>> {
        let secret = std::str::from_utf8(secret).ok()?;
        match self.secret {
            SecretIs::Domain => Some(Expect {
                url: self.keys_url.replacen(SECRET, secret, 1),
                email: None,
                audience: None,
            }),
            SecretIs::EmailAudience => {
                let (email, audience) = secret.split_once(' ')?;
                Some(Expect {
                    url: self.keys_url.clone(),
                    email: Some(email),
                    audience: Some(audience.trim()),
                })
            }
        }
    }

    /// The token: the header's value after the prefix, or the whole body.
    fn token<'r>(&self, req: &'r UntrustedRequest<'_>) -> Result<&'r str, VerifyError> {
        match &self.header {
            Some(names) => super::required(req, names)?
                .trim()
                .strip_prefix(self.prefix.as_str())
                .ok_or(VerifyError::InvalidSignature),
            None => super::jws::body_token(&req.body),
        }
    }

    /// For a detached JWS: the signing input with the body as payload, and
    /// the signature; `None` for a token that is not detached.
    fn detached_input(&self, token: &str, body: &[u8]) -> Option<(String, String)> {
        if !self.detached {
            return None;
        }
        let mut parts = token.split('.');
        let (protected, payload, signature) = (parts.next()?, parts.next()?, parts.next()?);
        if !payload.is_empty() || parts.next().is_some() {
            return None;
        }
        let message = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(body));
        Some((message, signature.to_owned()))
    }

    /// The token's header, if its algorithm is one of the list.
    fn header(&self, token: &str) -> Result<jsonwebtoken::Header, VerifyError> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| VerifyError::InvalidSignature)?;
        if !self.algorithms.contains(&header.alg) {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(header)
    }

    /// The time the token vouches for, against `now`: `now` inside its
    /// `[nbf or iat, exp]` window, else the nearest end (the caller checks
    /// it against the tolerance); `None` when it has no times.
    fn time(&self, claims: &Value, now: i64) -> Result<Option<i64>, VerifyError> {
        let at = |name: &str| claims.get(name).and_then(Value::as_i64);
        if self.require_times && (at("iat").is_none() || at("exp").is_none()) {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(super::jws::window_time(claims, now, true))
    }

    /// Whether verified `claims` name what `expect` asks.
    fn claims_hold(&self, claims: &Value, expect: &Expect<'_>) -> bool {
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        let issuer_ok = self.issuers.is_empty()
            || text("iss").is_some_and(|i| self.issuers.iter().any(|x| x == i));
        let audience_ok = expect.audience.is_none_or(|want| match claims.get("aud") {
            Some(Value::String(aud)) => aud == want,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(want)),
            _ => false,
        });
        let email_ok = expect.email.is_none_or(|want| {
            text("email") == Some(want)
                && claims.get("email_verified").and_then(Value::as_bool) == Some(true)
        });
        issuer_ok && audience_ok && email_ok
    }
}

impl Family for JwksParams {
    fn name(&self) -> &'static str {
        "jwks"
    }

    fn check(&self) -> Result<(), String> {
        if self.algorithms.is_empty() {
            return Err("algorithms: must list at least one".into());
        }
        if self.detached && self.header.is_none() {
            return Err("detached: the detached JWS is in a header; name it".into());
        }
        if let Some(alg) = self
            .algorithms
            .iter()
            .find(|a| matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
        {
            return Err(format!(
                "algorithms: {alg:?} is a shared-secret algorithm; published keys are public"
            ));
        }
        let templated = self.keys_url.starts_with(SECRET);
        match (self.secret, templated) {
            (SecretIs::Domain, false) => {
                Err("keys_url: must start with {secret} when secret = \"domain\"".into())
            }
            (SecretIs::EmailAudience, true) => {
                Err("keys_url: {secret} is only for secret = \"domain\"; give the full URL".into())
            }
            (SecretIs::Domain, true) => Ok(()),
            (SecretIs::EmailAudience, false) => match url::Url::parse(&self.keys_url) {
                Ok(u) if u.scheme() == "https" => Ok(()),
                _ => Err("keys_url: must be an https URL".into()),
            },
        }
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        let secret = secret.trim();
        match self.secret {
            SecretIs::Domain => {
                let origin = secret.trim_end_matches('/');
                let ok = url::Url::parse(origin).is_ok_and(|u| {
                    u.scheme() == "https"
                        && u.host_str().is_some()
                        && u.path() == "/"
                        && u.query().is_none()
                        && u.username().is_empty()
                });
                if !ok {
                    return Err(KeyError::new(
                        "this provider's secret is its https:// domain, with no path",
                    ));
                }
                Key::shared(origin.as_bytes().to_vec())
            }
            SecretIs::EmailAudience => {
                let valid = secret
                    .split_once(' ')
                    .is_some_and(|(email, aud)| email.contains('@') && !aud.trim().is_empty());
                if !valid {
                    return Err(KeyError::new(
                        "this provider's secret is \"SERVICE_ACCOUNT_EMAIL AUDIENCE\"",
                    ));
                }
                Key::shared(secret.as_bytes().to_vec())
            }
        }
    }

    fn decode_private_key(&self, _text: &str) -> Result<Key, KeyError> {
        Err(KeyError::new(
            "only the provider signs for this scheme, with the keys it publishes",
        ))
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let token = self.token(req)?;
        let header = self.header(token)?;
        let validation = super::jws::signature_only(header.alg);
        let detached = self.detached_input(token, &req.body);
        if self.detached && detached.is_none() {
            return Err(VerifyError::InvalidSignature);
        }
        let expects = keys
            .iter()
            .filter_map(|k| k.shared_bytes())
            .filter_map(|s| self.expect(s));
        for expect in expects {
            let Some(set) = keys.iter().find_map(|k| k.key_set_from(&expect.url)) else {
                continue;
            };
            let candidates = set.keys.iter().filter(|k| {
                (header.kid.is_none() || k.id == header.kid)
                    && k.alg.is_none_or(|a| a == header.alg)
            });
            for candidate in candidates {
                if let Some((message, signature)) = &detached {
                    let ok = jsonwebtoken::crypto::verify(
                        signature,
                        message.as_bytes(),
                        &candidate.key,
                        header.alg,
                    );
                    if ok.unwrap_or(false) {
                        return Ok(None);
                    }
                    continue;
                }
                let Ok(data) = jsonwebtoken::decode::<Value>(token, &candidate.key, &validation)
                else {
                    continue;
                };
                if self.claims_hold(&data.claims, &expect) {
                    return self.time(&data.claims, req.received_at);
                }
            }
        }
        Err(VerifyError::InvalidSignature)
    }

    fn fetches(&self) -> bool {
        true
    }

    fn certificate(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
        hosts: &FetchHosts,
    ) -> Result<Option<CertificateNeeded>, VerifyError> {
        let token = self.token(req)?;
        let header = self.header(token)?;
        let signed_at = if self.detached {
            if self.detached_input(token, &req.body).is_none() {
                return Err(VerifyError::InvalidSignature);
            }
            None
        } else {
            let claims =
                super::jws::unverified_claims(token).ok_or(VerifyError::InvalidSignature)?;
            self.time(&claims, req.received_at)?
        };
        let mut urls: Vec<FetchUrl> = Vec::new();
        for expect in keys
            .iter()
            .filter_map(|k| k.shared_bytes())
            .filter_map(|s| self.expect(s))
        {
            if let Some(url) = hosts.allow(&expect.url) {
                if !urls.contains(&url) {
                    urls.push(url);
                }
            }
        }
        if urls.is_empty() {
            return Err(VerifyError::InvalidSignature);
        }
        Ok(Some(CertificateNeeded {
            urls,
            signed_at,
            key_id: header.kid,
            credentials: Vec::new(),
        }))
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::ProviderOnly)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        self.header.as_ref().map_or(&[], |h| &h.0)
    }
}
