//! What a request makes hookline fetch: the signing certificate of an
//! `rsa-cert-url` provider (AWS SNS, PayPal) or the published keys of a
//! `jwks` provider (Google, Kinde), cached, and the URL that confirms an
//! SNS subscription.
//!
//! Only a [`FetchUrl`] can be fetched, and only
//! [`FetchHosts::allow`](crate::provider::FetchHosts::allow) makes one
//! (`https`, a host of the provider's `fetch_hosts`), after the request
//! passed every cheaper check ([`certificate_to_fetch`], or a verified
//! handshake). The client is hookline's outbound one: TLS with the
//! platform's roots plus `[tls] ca_file`, no redirects, a timeout, capped
//! reads.
//!
//! A certificate is fetched before its signature can be checked, so
//! anyone can name one: what is fetched is bounded by
//! [`super::fetch_cache`] (one fetch per URL, failures remembered, a
//! budget of new URLs per provider) and by [`MAX_CONCURRENT_FETCHES`] at
//! once across the process. A request refused by any of these is answered
//! 503 + `Retry-After` (`fetch_failed`), and the provider retries.
//!
//! A key fetched with a tenant's credential (`ecdsa-key-id`: Circle's API
//! key as `Authorization: Bearer`, a sensitive header never logged; `ebay`:
//! an application token obtained first with the tenant's client ID and
//! secret, see [`super::fetch_token`]) has a budget of its own per provider
//! and tenant. A key endpoint's 404 is the request's failure to verify
//! (401 `invalid_signature`: the key ID it names does not exist). A key
//! endpoint's 401 or 403, and a token endpoint's refusal, are hookline's:
//! the tenant's credentials (or its token) were refused, which no forged
//! request can cause and a retry can overcome once they are mended, so the
//! request is answered 503 + `Retry-After` and the refusal is logged and
//! remembered a minute for the tenant. A refused token is dropped, so the
//! next fetch obtains a new one.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::Semaphore;

use super::fetch_cache::{Cache, Refused};
use super::fetch_token::{TokenError, Tokens};
use crate::config::{Provider, Tenant, TlsSettings};
use crate::delivery::destination::http as outbound;
use crate::provider::{
    certificate_to_fetch, Bearer, FetchUrl, Key, KeyAuth, KeyError, Rejection, UntrustedRequest,
    VerifyError,
};

/// Certificate fetches in flight at once, across every provider.
pub const MAX_CONCURRENT_FETCHES: usize = 4;
/// How long a request waits for one of those before it is answered 503.
const FETCH_QUEUE_WAIT: Duration = Duration::from_secs(2);
/// The longest answer read from a fetched URL.
const MAX_FETCH_BYTES: usize = 64 * 1024;
/// The whole of one fetch, connection included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The fetching client and the certificate cache; one per process.
pub struct Fetcher {
    client: reqwest::Client,
    cache: Cache,
    tokens: Tokens,
    slots: Semaphore,
}

/// Why a fetch failed. Says nothing of the URL beyond its host: a
/// `SubscribeURL` carries a token.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("fetching from {host} failed: {reason}")]
    Request { host: String, reason: String },
    #[error("{host} answered {status}")]
    Status { host: String, status: u16 },
    #[error("{host} answered more than {MAX_FETCH_BYTES} bytes")]
    TooLarge { host: String },
    #[error("{host} answered no usable certificate: {reason}")]
    Certificate { host: String, reason: KeyError },
    #[error("not fetched from {host} again yet: its last fetch failed")]
    FailedRecently { host: String },
    #[error("{host} answered {status}: no such key, or not for this credential")]
    NoSuchKey { host: String, status: u16 },
    #[error("not fetched from {host}: too many new certificate URLs for this provider lately")]
    TooManyNew { host: String },
    #[error("not fetched from {host}: {MAX_CONCURRENT_FETCHES} fetches already in flight")]
    Busy { host: String },
    #[error("no application token from {host}: {reason}")]
    Token { host: String, reason: String },
}

impl From<TokenError> for FetchError {
    fn from(e: TokenError) -> Self {
        FetchError::Token {
            host: e.host,
            reason: e.reason,
        }
    }
}

impl Fetcher {
    pub fn new(tls: &TlsSettings) -> Result<Self, String> {
        let client = outbound::client_builder(tls)?
            .timeout(FETCH_TIMEOUT)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Fetcher {
            client,
            cache: Cache::new(),
            tokens: Tokens::default(),
            slots: Semaphore::new(MAX_CONCURRENT_FETCHES),
        })
    }

    /// The certificate or key set at `url`, named by a request to
    /// `budget` (the provider's name; with an `auth`, the provider's and
    /// the tenant's): from the cache, or fetched now (authorized by `auth`,
    /// if given) if the cache's bounds allow. A cached key
    /// set without the key `key_id` the request names is fetched again, at
    /// most once per [`super::fetch_cache::KEY_REFRESH_INTERVAL`].
    pub async fn certificate(
        &self,
        budget: &str,
        url: &FetchUrl,
        key_id: Option<&str>,
        auth: Option<&KeyAuth>,
    ) -> Result<Arc<Key>, FetchError> {
        let (key, cell) = self.cached(budget, url, auth).await?;
        match key_id {
            Some(id) if key.lacks_key_id(id) && self.cache.refresh(url, &cell) => {
                tracing::info!(
                    host = url.host(),
                    "a request names a key not published yet: fetching the keys again"
                );
                Ok(self.cached(budget, url, auth).await?.0)
            }
            _ => Ok(key),
        }
    }

    async fn cached(
        &self,
        budget: &str,
        url: &FetchUrl,
        auth: Option<&KeyAuth>,
    ) -> Result<(Arc<Key>, super::fetch_cache::Cell), FetchError> {
        let host = || url.host().to_owned();
        let refused = |r| match r {
            Refused::FailedRecently => FetchError::FailedRecently { host: host() },
            Refused::TooManyNew => FetchError::TooManyNew { host: host() },
            Refused::NotFound => FetchError::NoSuchKey {
                host: host(),
                status: 404,
            },
            Refused::CredentialDenied => FetchError::NoSuchKey {
                host: host(),
                status: 401,
            },
        };
        let cell = (self.cache)
            .cell(budget, url, auth.is_some())
            .map_err(refused)?;
        let key = cell
            .get_or_try_init(|| async {
                // A request that waited on a fetch that failed meanwhile
                // takes its turn here: it must not fetch again.
                if let Some(r) = self.cache.failure(url) {
                    return Err(refused(r));
                }
                if auth.is_some() && self.cache.credential_refused(budget, url) {
                    return Err(refused(Refused::CredentialDenied));
                }
                let _slot = tokio::time::timeout(FETCH_QUEUE_WAIT, self.slots.acquire())
                    .await
                    .map_err(|_| FetchError::Busy { host: host() })?
                    .expect("the semaphore is never closed");
                let fetched = async {
                    let bearer = match auth {
                        None => None,
                        Some(KeyAuth::Bearer(b)) => Some(b.clone()),
                        Some(KeyAuth::ClientCredentials(grant)) => {
                            Some(self.tokens.token(&self.client, budget, grant).await?)
                        }
                    };
                    let (answer, max_age) = self.get(url, bearer.as_ref()).await?;
                    Key::fetched(url.clone(), &answer, max_age).map_err(|reason| {
                        FetchError::Certificate {
                            host: host(),
                            reason,
                        }
                    })
                }
                .await;
                match fetched {
                    Ok(key) => {
                        tracing::info!(host = url.host(), "fetched a signing certificate");
                        Ok(Arc::new(key))
                    }
                    // A 404 is the key endpoint's answer for any tenant;
                    // a 401 or 403 is about this tenant's credential
                    // only, so it is remembered for this tenant, not for
                    // the URL (other tenants fetch it with theirs).
                    Err(
                        e @ FetchError::NoSuchKey {
                            status: 401 | 403, ..
                        },
                    ) => {
                        if let Some(KeyAuth::ClientCredentials(grant)) = auth {
                            self.tokens.forget(budget, grant);
                        }
                        self.cache.refuse(budget, url, &cell);
                        Err(e)
                    }
                    // The token endpoint refused or failed: not the key
                    // URL's fault, so not remembered against it (the
                    // token's own failure is, for this tenant).
                    Err(e @ FetchError::Token { .. }) => {
                        self.cache.failed_token(url, &cell);
                        Err(e)
                    }
                    Err(e) => {
                        let not_found = matches!(e, FetchError::NoSuchKey { .. });
                        self.cache.failed(url, &cell, not_found);
                        Err(e)
                    }
                }
            })
            .await?
            .clone();
        Ok((key, cell))
    }

    /// `GET url`, for its effect (SNS's `SubscribeURL` confirms a
    /// subscription); any 2xx is success.
    pub async fn confirm(&self, url: &FetchUrl) -> Result<(), FetchError> {
        self.get(url, None).await.map(drop)
    }

    /// The body of a 2xx answer to `GET url` (with `bearer` as
    /// `Authorization`, marked sensitive), at most [`MAX_FETCH_BYTES`], and
    /// its `Cache-Control: max-age`. With a `bearer`, a 401, 403 or 404 is
    /// [`FetchError::NoSuchKey`].
    async fn get(
        &self,
        url: &FetchUrl,
        bearer: Option<&Bearer>,
    ) -> Result<(Vec<u8>, Option<Duration>), FetchError> {
        let host = || url.host().to_owned();
        let failed = |e: reqwest::Error| FetchError::Request {
            host: host(),
            reason: outbound::describe(&e),
        };
        let mut request = self.client.get(url.as_str());
        if let Some(bearer) = bearer {
            request = request
                .bearer_auth(bearer.expose())
                .header(reqwest::header::ACCEPT, "application/json");
        }
        let res = request.send().await.map_err(failed)?;
        let status = res.status().as_u16();
        if bearer.is_some() && matches!(status, 401 | 403 | 404) {
            return Err(FetchError::NoSuchKey {
                host: host(),
                status,
            });
        }
        if !res.status().is_success() {
            return Err(FetchError::Status {
                host: host(),
                status: res.status().as_u16(),
            });
        }
        let max_age = max_age(res.headers());
        let mut body = Vec::new();
        let mut stream = res.bytes_stream();
        while let Some(chunk) = stream.next().await {
            body.extend_from_slice(&chunk.map_err(failed)?);
            if body.len() > MAX_FETCH_BYTES {
                return Err(FetchError::TooLarge { host: host() });
            }
        }
        Ok((body, max_age))
    }
}

/// The `max-age` of a `Cache-Control` header, unless it also says
/// `no-cache` or `no-store` (then zero: the shortest the cache allows).
fn max_age(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::CACHE_CONTROL)?.to_str().ok()?;
    let mut age = None;
    for directive in value.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-cache" || lower == "no-store" {
            return Some(Duration::ZERO);
        }
        if let Some(secs) = lower.strip_prefix("max-age=") {
            age = secs.trim_matches('"').parse().ok().map(Duration::from_secs);
        }
    }
    age
}

/// The certificate or keys `req` needs, fetched, for families that
/// verify with them; none for the others. A request refused by a cheaper
/// check is refused here, before any fetch.
pub(super) async fn certificates_for(
    fetcher: &Fetcher,
    provider: &Provider,
    tenant: &Tenant,
    req: &UntrustedRequest<'_>,
) -> Result<Vec<Arc<Key>>, super::ApiError> {
    let Some(needed) = certificate_to_fetch(provider, tenant, req)? else {
        return Ok(Vec::new());
    };
    let mut keys = Vec::with_capacity(needed.urls.len());
    let tenant_budget = format!("{}\n{}", provider.name.as_str(), tenant.name.as_str());
    let mut credential_refused = false;
    for url in &needed.urls {
        let auth = (needed.credentials.iter())
            .find(|c| c.url == *url)
            .map(|c| &c.auth);
        let budget = match auth {
            Some(_) => tenant_budget.as_str(),
            None => provider.name.as_str(),
        };
        match fetcher
            .certificate(budget, url, needed.key_id.as_deref(), auth)
            .await
        {
            Ok(key) => keys.push(key),
            // The key endpoint does not know the key ID this request
            // names: for one tenant secret among several, another's URL
            // may; else the request fails verification.
            Err(FetchError::NoSuchKey { host, status: 404 }) => {
                tracing::info!(
                    host,
                    "the key endpoint has no key of the ID a request names"
                );
            }
            Err(FetchError::NoSuchKey { host, status }) => {
                credential_refused = true;
                tracing::warn!(
                    host,
                    status,
                    "the key endpoint refused this tenant's credential: check its secrets"
                );
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot fetch the signing certificate or keys");
                return Err(super::ApiError::FetchFailed);
            }
        }
    }
    match keys.is_empty() {
        // The request may be genuine: its provider retries it.
        true if credential_refused => Err(super::ApiError::FetchFailed),
        true => Err(Rejection::Verify(VerifyError::InvalidSignature).into()),
        false => Ok(keys),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue, CACHE_CONTROL};

    fn cache_control(value: &str) -> Option<Duration> {
        let mut headers = HeaderMap::new();
        headers.insert(CACHE_CONTROL, HeaderValue::from_str(value).unwrap());
        max_age(&headers)
    }

    #[test]
    fn max_age_is_read_from_cache_control() {
        // What www.googleapis.com/oauth2/v1/certs answers.
        let google = "public, max-age=19965, must-revalidate, no-transform";
        assert_eq!(cache_control(google), Some(Duration::from_secs(19965)));
        assert_eq!(cache_control("Max-Age=60"), Some(Duration::from_secs(60)));
        assert_eq!(cache_control("no-store, max-age=600"), Some(Duration::ZERO));
        assert_eq!(cache_control("public"), None);
        assert_eq!(max_age(&HeaderMap::new()), None);
    }
}
