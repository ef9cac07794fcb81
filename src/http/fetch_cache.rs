//! What [`super::fetch::Fetcher`] remembers of the certificate URLs
//! requests named, so that requests (forged ones above all: a certificate
//! is fetched before the signature can be checked) cannot make hookline
//! fetch without bound:
//!
//! - a certificate fetched is kept for [`CERTIFICATE_TTL`], a set of
//!   published keys (JWKS) for its answer's `Cache-Control: max-age`
//!   (else [`KEY_SET_TTL`]), between [`KEY_REFRESH_INTERVAL`] and
//!   [`CERTIFICATE_TTL`]; at most [`MAX_CERTIFICATES`] (the oldest dropped
//!   first); requests waiting on the same URL share one fetch;
//! - a key set is fetched again before then when a request names a key
//!   it lacks, at most once per [`KEY_REFRESH_INTERVAL`] for each URL;
//! - a URL whose fetch failed is not fetched again for [`FAILURE_TTL`]
//!   (requests naming it are answered 503 meanwhile, and the provider
//!   retries), at most [`MAX_FAILURES`] remembered (the oldest dropped
//!   first);
//! - a URL not yet known is fetched only while its provider's budget of
//!   new fetches lasts: [`NEW_FETCH_BURST`] at once, then one every
//!   [`NEW_FETCH_PERIOD`] (each configured provider has its own, so a
//!   flood naming one provider's hosts leaves the others' alone);
//! - a key fetched by ID from eBay's API is kept an hour, as eBay
//!   recommends (`EBAY_KEY_TTL` in `provider/key.rs`);
//! - a key fetched with a tenant's credential (`ecdsa-key-id`: Circle's
//!   API key; `ebay`: a token its client ID and secret obtain) only
//!   within a smaller budget, each provider and tenant its own:
//!   [`CREDENTIALED_FETCH_BURST`] at once, then one every
//!   [`CREDENTIALED_FETCH_PERIOD`], so that forged requests naming key IDs
//!   cannot make hookline call the provider's API more than that;
//! - a URL the provider's API answered 404 (no such key) is remembered as
//!   such for [`FAILURE_TTL`]: requests naming it fail verification
//!   without a fetch; a 401 or 403, which is about one tenant's
//!   credential, is remembered as long for that tenant only.
//!
//! None of it is kept across restarts.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use tokio::sync::OnceCell;

use crate::provider::{FetchUrl, Key};

/// How long a fetched certificate is used.
pub const CERTIFICATE_TTL: Duration = Duration::from_secs(24 * 3600);
/// How long a set of published keys is used when its answer gives no
/// `max-age`.
pub const KEY_SET_TTL: Duration = Duration::from_secs(3600);
/// A key set is fetched again for an unknown key ID at most once per
/// this interval, and kept at least this long.
pub const KEY_REFRESH_INTERVAL: Duration = Duration::from_secs(60);
/// How many certificates are kept at once.
pub const MAX_CERTIFICATES: usize = 256;
/// How long a URL whose fetch failed is not fetched again.
pub const FAILURE_TTL: Duration = Duration::from_secs(60);
/// How many failed URLs are remembered at once.
pub const MAX_FAILURES: usize = 4096;
/// New URLs one provider may have fetched at once ...
pub const NEW_FETCH_BURST: u32 = 10;
/// ... and then one per this period.
pub const NEW_FETCH_PERIOD: Duration = Duration::from_secs(6);
/// New URLs fetched with one provider's tenant's credential at once ...
pub const CREDENTIALED_FETCH_BURST: u32 = 5;
/// ... and then one per this period.
pub const CREDENTIALED_FETCH_PERIOD: Duration = Duration::from_secs(12);

/// One URL's certificate, fetched or being fetched.
pub(super) type Cell = Arc<OnceCell<Arc<Key>>>;

struct Cached {
    cell: Cell,
    since: Instant,
}

impl Cached {
    /// Whether it is still to be used (or still being fetched).
    fn fresh(&self) -> bool {
        self.since.elapsed() < lifetime(self.cell.get().map(|k| &**k))
    }
}

/// How long a fetched `key` is used: a certificate a day, a key set its
/// `max-age` (else [`KEY_SET_TTL`]) within [`KEY_REFRESH_INTERVAL`] and
/// [`CERTIFICATE_TTL`], a key with a lifetime of its own (eBay's, an hour)
/// that. One still being fetched (`None`) is kept.
fn lifetime(key: Option<&Key>) -> Duration {
    match key {
        Some(key) if key.is_key_set() => key
            .max_age()
            .unwrap_or(KEY_SET_TTL)
            .clamp(KEY_REFRESH_INTERVAL, CERTIFICATE_TTL),
        Some(key) => key.max_age().unwrap_or(CERTIFICATE_TTL),
        None => CERTIFICATE_TTL,
    }
}

/// Why a URL is not fetched now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// Its fetch failed less than [`FAILURE_TTL`] ago.
    FailedRecently,
    /// Its provider (or provider and tenant, for a credentialed fetch)
    /// fetched its budget of new URLs lately.
    TooManyNew,
    /// The provider's API answered it has no such key, less than
    /// [`FAILURE_TTL`] ago.
    NotFound,
    /// The provider's API refused this tenant's credential for it (401,
    /// 403) less than [`FAILURE_TTL`] ago.
    CredentialDenied,
}

/// A fetch that failed, and when.
#[derive(Clone, Copy)]
struct Failure {
    at: Instant,
    /// The key endpoint answered 401, 403 or 404.
    not_found: bool,
}

/// The certificates, the failures and the budgets of new fetches.
pub(super) struct Cache {
    certificates: Mutex<HashMap<FetchUrl, Cached>>,
    failures: Mutex<HashMap<FetchUrl, Failure>>,
    /// When each key set was last fetched again for an unknown key ID.
    refreshed: Mutex<HashMap<FetchUrl, Instant>>,
    new_fetches: DefaultKeyedRateLimiter<String>,
    credentialed_fetches: DefaultKeyedRateLimiter<String>,
    /// When the provider's API last refused a budget's (tenant's)
    /// credential for a URL.
    refused: Mutex<HashMap<(String, FetchUrl), Instant>>,
}

impl Cache {
    pub(super) fn new() -> Self {
        let quota = Quota::with_period(NEW_FETCH_PERIOD)
            .expect("a positive period")
            .allow_burst(NonZeroU32::new(NEW_FETCH_BURST).expect("a positive burst"));
        let credentialed = Quota::with_period(CREDENTIALED_FETCH_PERIOD)
            .expect("a positive period")
            .allow_burst(NonZeroU32::new(CREDENTIALED_FETCH_BURST).expect("a positive burst"));
        Cache {
            certificates: Mutex::new(HashMap::new()),
            failures: Mutex::new(HashMap::new()),
            refreshed: Mutex::new(HashMap::new()),
            new_fetches: RateLimiter::keyed(quota),
            credentialed_fetches: RateLimiter::keyed(credentialed),
            refused: Mutex::new(HashMap::new()),
        }
    }

    /// The cell of `url` for a request to `budget` (the provider's name,
    /// or the provider's and tenant's for a `credentialed` fetch): the one
    /// already there (fetched, or being fetched by another request), or a
    /// new one if the URL did not fail lately and the budget allows one
    /// more fetch.
    pub(super) fn cell(
        &self,
        budget: &str,
        url: &FetchUrl,
        credentialed: bool,
    ) -> Result<Cell, Refused> {
        let mut cache = self.certificates.lock().expect("certificate cache lock");
        cache.retain(|_, c| c.fresh());
        if let Some(c) = cache.get(url) {
            return Ok(c.cell.clone());
        }
        if let Some(refused) = self.failure(url) {
            return Err(refused);
        }
        if credentialed && self.credential_refused(budget, url) {
            return Err(Refused::CredentialDenied);
        }
        // Only configured providers and tenants get here (an unknown one
        // is a 404 first), so the keys are bounded.
        let limiter = if credentialed {
            &self.credentialed_fetches
        } else {
            &self.new_fetches
        };
        if limiter.check_key(&budget.to_owned()).is_err() {
            return Err(Refused::TooManyNew);
        }
        if cache.len() >= MAX_CERTIFICATES {
            let oldest = cache
                .iter()
                .min_by_key(|(_, c)| c.since)
                .map(|(u, _)| u.clone());
            if let Some(oldest) = oldest {
                cache.remove(&oldest);
            }
        }
        let cell = Cell::default();
        cache.insert(
            url.clone(),
            Cached {
                cell: cell.clone(),
                since: Instant::now(),
            },
        );
        Ok(cell)
    }

    /// Whether `url`'s key set, which lacks a key a request names, may be
    /// fetched again now: not if it was for the same reason less than
    /// [`KEY_REFRESH_INTERVAL`] ago. When it may, its cell is forgotten,
    /// so that the next [`Cache::cell`] fetches it.
    pub(super) fn refresh(&self, url: &FetchUrl, cell: &Cell) -> bool {
        {
            let mut refreshed = self.refreshed.lock().expect("refresh lock");
            refreshed.retain(|_, at| at.elapsed() < KEY_REFRESH_INTERVAL);
            // Only cached URLs get here, so the map is bounded by the
            // cache's size within one interval.
            if refreshed.contains_key(url) || refreshed.len() >= MAX_CERTIFICATES {
                return false;
            }
            refreshed.insert(url.clone(), Instant::now());
        }
        let mut cache = self.certificates.lock().expect("certificate cache lock");
        if cache.get(url).is_some_and(|c| Arc::ptr_eq(&c.cell, cell)) {
            cache.remove(url);
        }
        true
    }

    /// The provider's API refused `budget`'s (one tenant's) credential for
    /// `url`: forget the cell (unless a newer one took its place) and
    /// remember the refusal for that budget only; other tenants fetch the
    /// URL with their own.
    pub(super) fn refuse(&self, budget: &str, url: &FetchUrl, cell: &Cell) {
        {
            let mut cache = self.certificates.lock().expect("certificate cache lock");
            if cache.get(url).is_some_and(|c| Arc::ptr_eq(&c.cell, cell)) {
                cache.remove(url);
            }
        }
        let mut refused = self.refused.lock().expect("refusal cache lock");
        refused.retain(|_, at| at.elapsed() < FAILURE_TTL);
        if refused.len() >= MAX_FAILURES {
            let oldest = refused
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                refused.remove(&oldest);
            }
        }
        refused.insert((budget.to_owned(), url.clone()), Instant::now());
    }

    /// Whether the provider's API refused `budget`'s credential for `url`
    /// less than [`FAILURE_TTL`] ago.
    pub(super) fn credential_refused(&self, budget: &str, url: &FetchUrl) -> bool {
        let refused = self.refused.lock().expect("refusal cache lock");
        refused
            .get(&(budget.to_owned(), url.clone()))
            .is_some_and(|at| at.elapsed() < FAILURE_TTL)
    }

    /// How `url`'s last fetch failed, if it did less than [`FAILURE_TTL`]
    /// ago.
    pub(super) fn failure(&self, url: &FetchUrl) -> Option<Refused> {
        let failures = self.failures.lock().expect("failure cache lock");
        let failure = failures.get(url).filter(|f| f.at.elapsed() < FAILURE_TTL)?;
        Some(if failure.not_found {
            Refused::NotFound
        } else {
            Refused::FailedRecently
        })
    }

    /// `url`'s fetch failed before it was made, for want of a token: forget
    /// its cell (unless a newer one took its place), remembering nothing
    /// against the URL.
    pub(super) fn failed_token(&self, url: &FetchUrl, cell: &Cell) {
        let mut cache = self.certificates.lock().expect("certificate cache lock");
        if cache.get(url).is_some_and(|c| Arc::ptr_eq(&c.cell, cell)) {
            cache.remove(url);
        }
    }

    /// `url`'s fetch failed (`not_found`: the key endpoint has no such
    /// key): forget its cell (unless a newer one took its place) and
    /// remember the failure.
    pub(super) fn failed(&self, url: &FetchUrl, cell: &Cell, not_found: bool) {
        {
            let mut cache = self.certificates.lock().expect("certificate cache lock");
            if cache.get(url).is_some_and(|c| Arc::ptr_eq(&c.cell, cell)) {
                cache.remove(url);
            }
        }
        let mut failures = self.failures.lock().expect("failure cache lock");
        failures.retain(|_, f| f.at.elapsed() < FAILURE_TTL);
        if failures.len() >= MAX_FAILURES {
            let oldest = failures
                .iter()
                .min_by_key(|(_, f)| f.at)
                .map(|(u, _)| u.clone());
            if let Some(oldest) = oldest {
                failures.remove(&oldest);
            }
        }
        let failure = Failure {
            at: Instant::now(),
            not_found,
        };
        failures.insert(url.clone(), failure);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::FetchHosts;

    const SET: &[u8] = br#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1",
        "x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
        "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#;

    fn key_set(max_age: Option<u64>) -> Key {
        let hosts: FetchHosts = serde_json::from_str(r#"["keys.example.com"]"#).unwrap();
        let url = hosts.allow("https://keys.example.com/jwks").unwrap();
        Key::fetched(url, SET, max_age.map(Duration::from_secs)).unwrap()
    }

    #[test]
    fn a_key_set_is_kept_for_its_max_age_within_bounds() {
        let hour = Duration::from_secs(3600);
        assert_eq!(lifetime(Some(&key_set(Some(7200)))), 2 * hour);
        assert_eq!(lifetime(Some(&key_set(None))), KEY_SET_TTL);
        assert_eq!(lifetime(Some(&key_set(Some(0)))), KEY_REFRESH_INTERVAL);
        assert_eq!(lifetime(Some(&key_set(Some(30 * 86400)))), CERTIFICATE_TTL);
        assert_eq!(lifetime(None), CERTIFICATE_TTL);
    }

    #[test]
    fn a_key_set_lacking_a_key_is_fetched_again_once_per_interval() {
        let cache = Cache::new();
        let key = key_set(None);
        assert!(key.lacks_key_id("k2") && !key.lacks_key_id("k1"));
        let hosts: FetchHosts = serde_json::from_str(r#"["keys.example.com"]"#).unwrap();
        let url = hosts.allow("https://keys.example.com/jwks").unwrap();
        let cell = cache.cell("p", &url, false).unwrap();
        assert!(cache.refresh(&url, &cell), "the first time");
        let again = cache.cell("p", &url, false).unwrap();
        assert!(!Arc::ptr_eq(&cell, &again), "forgotten, so fetched anew");
        assert!(
            !cache.refresh(&url, &again),
            "not again within the interval"
        );
        assert!(Arc::ptr_eq(&again, &cache.cell("p", &url, false).unwrap()));
    }

    #[test]
    fn credentialed_fetches_have_a_smaller_budget_per_tenant_and_remember_404s() {
        let cache = Cache::new();
        let hosts: FetchHosts = serde_json::from_str(r#"["api.circle.com"]"#).unwrap();
        let url = |i: usize| {
            (hosts.allow(&format!(
                "https://api.circle.com/v2/notifications/publicKey/{i}"
            )))
            .unwrap()
        };
        for i in 0..CREDENTIALED_FETCH_BURST as usize {
            assert!(cache.cell("circle\nacme", &url(i), true).is_ok());
        }
        let spent = cache.cell("circle\nacme", &url(99), true);
        assert_eq!(spent.err(), Some(Refused::TooManyNew));
        assert!(
            cache.cell("circle\nother", &url(99), true).is_ok(),
            "each tenant its own"
        );
        // A key the API does not have: remembered as such, not fetched.
        let cell = cache.cell("circle\nthird", &url(200), true).unwrap();
        cache.failed(&url(200), &cell, true);
        assert_eq!(
            cache.cell("circle\nthird", &url(200), true).err(),
            Some(Refused::NotFound)
        );
        let cell = cache.cell("circle\nthird", &url(201), true).unwrap();
        cache.failed(&url(201), &cell, false);
        let again = cache.cell("circle\nthird", &url(201), true);
        assert_eq!(again.err(), Some(Refused::FailedRecently));
        // A tenant's credential refused: that tenant only.
        let cell = cache.cell("circle\nfourth", &url(300), true).unwrap();
        cache.refuse("circle\nfourth", &url(300), &cell);
        let again = cache.cell("circle\nfourth", &url(300), true);
        assert_eq!(again.err(), Some(Refused::CredentialDenied));
        assert!(cache.cell("circle\nfifth", &url(300), true).is_ok());
    }
}
