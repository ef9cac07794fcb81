//! What a request makes hookline fetch: the signing certificate of an
//! `rsa-cert-url` provider (AWS SNS, PayPal), cached, and the URL that
//! confirms an SNS subscription.
//!
//! Only a [`FetchUrl`] can be fetched, and only
//! [`FetchHosts::allow`](crate::provider::FetchHosts::allow) makes one
//! (`https`, a host of the provider's `fetch_hosts`), after the request
//! passed every cheaper check ([`certificate_to_fetch`], or a verified
//! handshake). The client is hookline's outbound one: TLS with the
//! platform's roots plus `[tls] ca_file`, no redirects, a timeout, capped
//! reads.
//!
//! A certificate is fetched once per URL and kept for
//! [`CERTIFICATE_TTL`] (the providers' certificate URLs name one
//! certificate each); requests waiting on the same URL share one fetch. A
//! failed fetch is not kept: the provider's retry fetches again. At most
//! [`MAX_CERTIFICATES`] are kept, the oldest dropped first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio::sync::OnceCell;

use crate::config::{Provider, Tenant, TlsSettings};
use crate::delivery::destination::http as outbound;
use crate::provider::{certificate_to_fetch, FetchUrl, Key, KeyError, UntrustedRequest};

/// How long a fetched certificate is used.
pub const CERTIFICATE_TTL: Duration = Duration::from_secs(24 * 3600);
/// How many certificates are kept at once.
pub const MAX_CERTIFICATES: usize = 256;
/// The longest answer read from a fetched URL.
const MAX_FETCH_BYTES: usize = 64 * 1024;
/// The whole of one fetch, connection included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The fetching client and the certificate cache; one per process.
pub struct Fetcher {
    client: reqwest::Client,
    certificates: Mutex<HashMap<FetchUrl, Cached>>,
}

struct Cached {
    cell: Arc<OnceCell<Arc<Key>>>,
    since: Instant,
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
}

impl Fetcher {
    pub fn new(tls: &TlsSettings) -> Result<Self, String> {
        let client = outbound::client_builder(tls)?
            .timeout(FETCH_TIMEOUT)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Fetcher {
            client,
            certificates: Mutex::new(HashMap::new()),
        })
    }

    /// The certificate at `url`, from the cache or fetched now.
    pub async fn certificate(&self, url: &FetchUrl) -> Result<Arc<Key>, FetchError> {
        let cell = self.cell(url);
        let key = cell
            .get_or_try_init(|| async {
                let pem = self.get(url).await?;
                let key = Key::certificate(url.clone(), &pem).map_err(|reason| {
                    FetchError::Certificate {
                        host: url.host().to_owned(),
                        reason,
                    }
                })?;
                tracing::info!(host = url.host(), "fetched a signing certificate");
                Ok::<_, FetchError>(Arc::new(key))
            })
            .await?;
        Ok(key.clone())
    }

    /// `GET url`, for its effect (SNS's `SubscribeURL` confirms a
    /// subscription); any 2xx is success.
    pub async fn confirm(&self, url: &FetchUrl) -> Result<(), FetchError> {
        self.get(url).await.map(drop)
    }

    /// The cache slot of `url`: dropping expired slots, and the oldest when
    /// full.
    fn cell(&self, url: &FetchUrl) -> Arc<OnceCell<Arc<Key>>> {
        let mut cache = self.certificates.lock().expect("certificate cache lock");
        cache.retain(|_, c| c.since.elapsed() < CERTIFICATE_TTL);
        if cache.len() >= MAX_CERTIFICATES && !cache.contains_key(url) {
            let oldest = cache
                .iter()
                .min_by_key(|(_, c)| c.since)
                .map(|(u, _)| u.clone());
            if let Some(oldest) = oldest {
                cache.remove(&oldest);
            }
        }
        let slot = cache.entry(url.clone()).or_insert_with(|| Cached {
            cell: Arc::new(OnceCell::new()),
            since: Instant::now(),
        });
        slot.cell.clone()
    }

    /// The body of a 2xx answer to `GET url`, at most [`MAX_FETCH_BYTES`].
    async fn get(&self, url: &FetchUrl) -> Result<Vec<u8>, FetchError> {
        let host = || url.host().to_owned();
        let failed = |e: reqwest::Error| FetchError::Request {
            host: host(),
            reason: outbound::describe(&e),
        };
        let res = self.client.get(url.as_str()).send().await.map_err(failed)?;
        if !res.status().is_success() {
            return Err(FetchError::Status {
                host: host(),
                status: res.status().as_u16(),
            });
        }
        let mut body = Vec::new();
        let mut stream = res.bytes_stream();
        while let Some(chunk) = stream.next().await {
            body.extend_from_slice(&chunk.map_err(failed)?);
            if body.len() > MAX_FETCH_BYTES {
                return Err(FetchError::TooLarge { host: host() });
            }
        }
        Ok(body)
    }
}

/// The certificate `req` needs, fetched, for families that verify with
/// one; `None` for the others. A request refused by a cheaper check is
/// refused here, before any fetch.
pub(super) async fn certificate_for(
    fetcher: &Fetcher,
    provider: &Provider,
    tenant: &Tenant,
    req: &UntrustedRequest<'_>,
) -> Result<Option<Arc<Key>>, super::ApiError> {
    let Some(url) = certificate_to_fetch(provider, tenant, req)? else {
        return Ok(None);
    };
    match fetcher.certificate(&url).await {
        Ok(key) => Ok(Some(key)),
        Err(e) => {
            tracing::warn!(error = %e, "cannot fetch the signing certificate");
            Err(super::ApiError::FetchFailed)
        }
    }
}
