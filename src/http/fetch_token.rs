//! Application tokens for key endpoints that want one (`ebay`): obtained
//! with a tenant's client ID and secret (OAuth client-credentials grant),
//! then sent as `Authorization: Bearer` with the key fetch.
//!
//! - a token is obtained only for a key fetch, which the fetch cache has
//!   already bounded (the credentialed budget per provider and tenant, the
//!   process's fetch slots), so forged requests cannot make hookline call
//!   the token endpoint more often than the key endpoint;
//! - it is reused, per provider, tenant, token URL and client ID, until its
//!   `expires_in` less [`TOKEN_MARGIN`] (at least half of it is used);
//!   requests waiting on the same token share one call;
//! - a token call that failed is not made again for that tenant for
//!   [`TOKEN_FAILURE_TTL`]: requests needing it are answered 503 meanwhile,
//!   and the provider retries;
//! - a token the key endpoint refused (401) is dropped, so the next key
//!   fetch obtains a new one.
//!
//! The client secret goes only into the token call's `Authorization:
//! Basic` header, the token only into the key call's `Authorization:
//! Bearer` (both marked sensitive by the client): neither is in a log, an
//! error or a `Debug` output. Nothing is kept across restarts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde::Deserialize;

use crate::delivery::destination::http as outbound;
use crate::provider::{Bearer, ClientCredentials, FetchUrl};

/// How long before its `expires_in` a token is no longer used.
pub const TOKEN_MARGIN: Duration = Duration::from_secs(300);
/// The longest a token is used, whatever its `expires_in`.
pub const MAX_TOKEN_LIFETIME: Duration = Duration::from_secs(24 * 3600);
/// How long a failed token call is not made again for the same tenant.
pub const TOKEN_FAILURE_TTL: Duration = Duration::from_secs(60);
/// The longest token answer read.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct TokenKey {
    budget: String,
    token_url: FetchUrl,
    client_id: String,
}

#[derive(Default)]
enum State {
    #[default]
    None,
    Valid {
        token: Bearer,
        until: Instant,
    },
    Failed {
        at: Instant,
    },
}

/// The tokens, one per provider, tenant, token URL and client ID (all
/// from the configuration, so bounded).
#[derive(Default)]
pub(super) struct Tokens {
    states: Mutex<HashMap<TokenKey, Arc<tokio::sync::Mutex<State>>>>,
}

/// What a token endpoint answers; other members are not read.
#[derive(Deserialize)]
struct Answer {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// How long a token that `expires_in` is used.
fn lifetime(expires_in: Duration) -> Duration {
    expires_in
        .saturating_sub(TOKEN_MARGIN)
        .max(expires_in / 2)
        .min(MAX_TOKEN_LIFETIME)
}

impl Tokens {
    fn state(&self, budget: &str, grant: &ClientCredentials) -> Arc<tokio::sync::Mutex<State>> {
        let key = TokenKey {
            budget: budget.to_owned(),
            token_url: grant.token_url.clone(),
            client_id: grant.client_id.clone(),
        };
        let mut states = self.states.lock().expect("token lock");
        states.entry(key).or_default().clone()
    }

    /// A token for `grant`, for a fetch on `budget`'s (the provider's and
    /// tenant's) behalf: the one held, or obtained now.
    pub(super) async fn token(
        &self,
        client: &reqwest::Client,
        budget: &str,
        grant: &ClientCredentials,
    ) -> Result<Bearer, TokenError> {
        let state = self.state(budget, grant);
        let mut state = state.lock().await;
        let host = || grant.token_url.host().to_owned();
        match &*state {
            State::Valid { token, until } if Instant::now() < *until => return Ok(token.clone()),
            State::Failed { at } if at.elapsed() < TOKEN_FAILURE_TTL => {
                return Err(TokenError {
                    host: host(),
                    reason: "its last token call failed less than a minute ago".into(),
                })
            }
            _ => {}
        }
        match obtain(client, grant).await {
            Ok((token, expires_in)) => {
                tracing::info!(
                    host = grant.token_url.host(),
                    "obtained an application token"
                );
                *state = State::Valid {
                    token: token.clone(),
                    until: Instant::now() + lifetime(expires_in),
                };
                Ok(token)
            }
            Err(e) => {
                *state = State::Failed { at: Instant::now() };
                Err(e)
            }
        }
    }

    /// The key endpoint refused `grant`'s token: drop it.
    pub(super) fn forget(&self, budget: &str, grant: &ClientCredentials) {
        let state = self.state(budget, grant);
        // Held by the fetch that is dropping it? Then it obtains anew.
        if let Ok(mut held) = state.try_lock() {
            *held = State::None;
        };
    }
}

/// No token from `host`, and why (never a credential): the fetch that
/// needed it fails with it (`FetchError::Token`).
#[derive(Debug)]
pub(super) struct TokenError {
    pub host: String,
    pub reason: String,
}

/// `POST token_url` with the client credentials: the token and its
/// `expires_in` (zero when the answer gives none: used once).
async fn obtain(
    client: &reqwest::Client,
    grant: &ClientCredentials,
) -> Result<(Bearer, Duration), TokenError> {
    let host = || grant.token_url.host().to_owned();
    let failed = |reason: String| TokenError {
        host: host(),
        reason,
    };
    let form = form_urlencoded::Serializer::new(String::new())
        .append_pair("grant_type", "client_credentials")
        .append_pair("scope", &grant.scope)
        .finish();
    let res = client
        .post(grant.token_url.as_str())
        .basic_auth(&grant.client_id, Some(grant.client_secret.expose()))
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(reqwest::header::ACCEPT, "application/json")
        .body(form)
        .send()
        .await
        .map_err(|e| failed(outbound::describe(&e)))?;
    let status = res.status();
    if !status.is_success() {
        // The answer's body is not quoted: it is the provider's, and says
        // nothing a log needs.
        let hint = if matches!(status.as_u16(), 400 | 401) {
            ": check the tenant's client ID and secret"
        } else {
            ""
        };
        return Err(failed(format!("answered {}{hint}", status.as_u16())));
    }
    let mut body = Vec::new();
    let mut stream = res.bytes_stream();
    while let Some(chunk) = stream.next().await {
        body.extend_from_slice(&chunk.map_err(|e| failed(outbound::describe(&e)))?);
        if body.len() > MAX_TOKEN_BYTES {
            return Err(failed(format!(
                "answered more than {MAX_TOKEN_BYTES} bytes"
            )));
        }
    }
    // The parse error is not quoted either: it could hold the token.
    let answer: Answer =
        serde_json::from_slice(&body).map_err(|_| failed("answered no access_token".into()))?;
    if answer.access_token.is_empty() {
        return Err(failed("answered an empty access_token".into()));
    }
    let expires_in = Duration::from_secs(answer.expires_in.unwrap_or(0));
    Ok((Bearer::new(&answer.access_token), expires_in))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_used_until_its_expiry_less_a_margin() {
        let hours = |h: u64| Duration::from_secs(h * 3600);
        // eBay's application tokens: 7200 s.
        assert_eq!(lifetime(hours(2)), hours(2) - TOKEN_MARGIN);
        assert_eq!(lifetime(Duration::from_secs(60)), Duration::from_secs(30));
        assert_eq!(lifetime(Duration::ZERO), Duration::ZERO);
        assert_eq!(lifetime(hours(100)), MAX_TOKEN_LIFETIME);
    }
}
