//! `/webhooks/{provider}[/{tenant}]`, every method. Checks run in this
//! order, and the first that fails answers:
//!
//! 1. the provider, then the tenant, is configured (404);
//! 2. the provider+tenant's rate limit (429 + `Retry-After`), before any
//!    body is read;
//! 3. `POST` only: the body, capped in size (413), in memory across all
//!    requests (503 + `Retry-After`) and in time (408), see [`super::body`];
//!    a gzip body is decoded under the same caps ([`super::content_encoding`]);
//! 4. for a family that verifies with a certificate fetched by URL, every
//!    check that needs none, then the certificate ([`super::fetch`]; 503
//!    if it cannot be fetched);
//! 5. [`verify_request`]: a handshake answer ([`super::handshake`]; one
//!    that confirms by fetching a URL, after that fetch), a rejection
//!    (401, 400, or 405 with `Allow` for a method no handshake of the
//!    definition answers), or an event ([`super::receive`]).
//!
//! Every answer is counted and logged here, once.

use std::sync::Arc;

use actix_web::http::Method;
use actix_web::{web, HttpRequest, HttpResponse};
use bytes::Bytes;
use secrecy::ExposeSecret;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::body::{self, Body};
use super::content_encoding::{self, Decoded};
use super::external_url::external_url;
use super::problem::ApiError;
use super::receive::{self, Received};
use super::{fetch, handshake, AppState};
use crate::config::{Provider, Tenant, DEFAULT_TENANT};
use crate::ids::TenantName;
use crate::provider::{
    verify_request, HandshakeAnswer, Rejection, TenantState, UntrustedRequest, Verdict,
};

/// What a request that was not refused gets.
enum Answer {
    /// An event or a batch, recorded (or a duplicate of one, or held).
    Event(Received),
    /// A provider handshake: answered, never recorded.
    Handshake(HandshakeAnswer),
}

/// What follows `/webhooks`: `/{provider}` or `/{provider}/{tenant}`, each
/// a non-empty segment (as the router decodes them). The router matches
/// `/webhooks` as a plain prefix: a pattern route with `{segments}` is a
/// regular expression run on every request, which cost the Redis-only
/// path about 3% of its CPU (bench/NOTES.md, "The webhook route").
fn provider_and_tenant(rest: &str) -> Option<(&str, &str)> {
    let mut segments = rest.strip_prefix('/')?.split('/');
    let provider = segments.next().filter(|p| !p.is_empty())?;
    let tenant = match segments.next() {
        None => DEFAULT_TENANT,
        Some(tenant) if !tenant.is_empty() => tenant,
        Some(_) => return None,
    };
    segments.next().is_none().then_some((provider, tenant))
}

/// The route's handler.
pub(super) async fn handle(
    req: HttpRequest,
    mut payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let Some((provider, tenant)) = provider_and_tenant(req.match_info().unprocessed()) else {
        return HttpResponse::from_error(super::ops::no_route(&req));
    };
    // The path's provider and tenant are the request's: recorded as
    // strings, which the text log quotes, so that a space in one cannot
    // pass for another field of the line.
    // Also the trace's root span (`webhook.receive`): its fields are the
    // span's attributes.
    let span = tracing::info_span!(
        "webhook.receive",
        provider,
        tenant,
        method = %req.method(),
        client = %super::peer::Peer::of(&req, &state.settings.server),
        event_id = tracing::field::Empty,
        event_type = tracing::field::Empty,
        body_bytes = tracing::field::Empty,
        outcome = tracing::field::Empty,
        status = tracing::field::Empty,
    );
    if state.settings.telemetry.trust_inbound_trace {
        if let Some(parent) = crate::telemetry::inbound(req.headers()) {
            // Only fails once the span was entered, and it was not yet.
            let _ = span.set_parent(parent);
        }
    }
    let result = serve(&req, &mut payload, &state, provider, tenant)
        .instrument(span.clone())
        .await;
    // The event ID is on the span already (`receive::one`, `receive::batch`).
    let outcome = match &result {
        Ok(Answer::Event(a)) => a.status().as_str(),
        Ok(Answer::Handshake(_)) => "handshake",
        Err(e) => e.code(),
    };
    span.record("outcome", outcome);
    span.in_scope(|| count(&state, &result, provider, tenant, outcome));
    // A provider that resends unless the body is exactly its word.
    let ack_body = state
        .settings
        .providers
        .get(provider)
        .and_then(|p| p.def.ack_body.as_deref());
    let res = result
        .and_then(|answer| match answer {
            Answer::Event(a) => Ok(a.response(ack_body)),
            Answer::Handshake(answer) => handshake::respond(answer),
        })
        .unwrap_or_else(HttpResponse::from_error);
    span.record("status", res.status().as_u16());
    span.in_scope(|| tracing::info!("answered"));
    body::hold_until_sent(res, payload)
}

/// Metrics, and the log line of a store failure.
fn count(
    state: &AppState,
    result: &Result<Answer, ApiError>,
    provider: &str,
    tenant: &str,
    outcome: &str,
) {
    let metrics = &state.metrics;
    // Labels come from configured names only: an attacker's path must not
    // create new time series.
    let (p, t) = match result {
        Err(ApiError::UnknownProvider(_)) => ("_unknown", "_unknown"),
        Err(ApiError::UnknownTenant { .. }) => (provider, "_unknown"),
        _ => (provider, tenant),
    };
    metrics.requests.with_label_values(&[p, t, outcome]).inc();
    metrics.recent.request(p, t, outcome);
    let Err(e) = result else { return };
    if let Some(store) = e.store_failure() {
        state.store_failed(store);
    }
    match e {
        ApiError::Rejected(Rejection::Verify(_)) => {
            metrics
                .verification_failures
                .with_label_values(&[p, outcome])
                .inc();
        }
        ApiError::RateLimited { .. } | ApiError::BodyTimeout(_) | ApiError::BufferFull { .. } => {
            metrics.requests_refused.with_label_values(&[outcome]).inc();
        }
        _ => {}
    }
}

/// The key a handshake stored for this tenant (Asana's `X-Hook-Secret`),
/// for the providers whose handshake stores one.
async fn stored_key(
    state: &AppState,
    provider: &Provider,
    tenant: &TenantName,
) -> Result<Option<crate::provider::Key>, ApiError> {
    if !provider
        .def
        .handshake
        .as_ref()
        .is_some_and(|h| h.stores_secret())
    {
        return Ok(None);
    }
    let Some(secret) = state
        .store
        .with_records("handshake", |r| r.handshake_secret(&provider.name, tenant))
        .await?
    else {
        return Ok(None);
    };
    match provider.def.decode_secret(secret.expose_secret()) {
        Ok(key) => Ok(Some(key)),
        Err(e) => {
            tracing::warn!(error = %e, "the stored handshake secret does not decode; ignored");
            Ok(None)
        }
    }
}

/// The provider and tenant a request names, if both are configured.
fn resolve<'a>(
    state: &'a AppState,
    provider: &str,
    tenant: &str,
) -> Result<(&'a Arc<Provider>, &'a Tenant), ApiError> {
    let p = state
        .settings
        .providers
        .get(provider)
        .ok_or_else(|| ApiError::UnknownProvider(provider.to_owned()))?;
    let t = p
        .tenants
        .get(tenant)
        .ok_or_else(|| ApiError::UnknownTenant {
            provider: provider.to_owned(),
            tenant: tenant.to_owned(),
        })?;
    Ok((p, t))
}

async fn serve(
    req: &HttpRequest,
    payload: &mut web::Payload,
    state: &AppState,
    provider_name: &str,
    tenant_name: &str,
) -> Result<Answer, ApiError> {
    let (provider, tenant) = resolve(state, provider_name, tenant_name)?;
    state
        .rates
        .check(provider_name, tenant_name)
        .map_err(|retry_after| ApiError::RateLimited { retry_after })?;
    // Only a POST carries an event; a GET or HEAD handshake is answered
    // from its query and headers, and its body (if any) is never read.
    // The body's reservation is held until this request is answered.
    let body: Option<Body> = if req.method() == Method::POST {
        Some(body::read(req, payload, &state.settings.server, &state.budget).await?)
    } else {
        None
    };
    // A gzip body is verified decoded (Stream signs the uncompressed JSON);
    // the decoded bytes are held against the same caps.
    let server = &state.settings.server;
    let body: Option<(Body, Decoded)> = match body {
        Some(b) => {
            let d = content_encoding::decode(
                req.headers(),
                super::peer::Peer::of(req, server),
                b.bytes.clone(),
                server.max_body_bytes,
                &state.budget,
                server.body_timeout,
            )?;
            Some((b, d))
        }
        None => None,
    };
    // Only URL-signing schemes read the external URL: don't build it
    // otherwise.
    let url = if provider.def.needs_url() {
        external_url(req, &state.settings.server)
    } else {
        String::new()
    };
    let untrusted = UntrustedRequest {
        method: req.method().as_str(),
        url: &url,
        query: req.query_string(),
        headers: req.headers(),
        body: body
            .as_ref()
            .map_or_else(Bytes::new, |(_, d)| d.bytes.clone()),
        received_at: chrono::Utc::now().timestamp(),
    };
    let stored_key = stored_key(state, provider, &tenant.name).await?;
    // A family that verifies with a fetched certificate: every cheaper
    // check first, then the fetch (cached).
    let certificates =
        fetch::certificates_for(&state.fetcher, provider, tenant, &untrusted).await?;
    let certificates: Vec<&crate::provider::Key> = certificates.iter().map(|k| &**k).collect();
    let tenant_state = TenantState {
        verify_token: tenant.verify_token.as_ref(),
        stored_key: stored_key.as_ref(),
        certificates: &certificates,
    };
    let verdict = tracing::info_span!("webhook.verify")
        .in_scope(|| verify_request(provider, tenant, &untrusted, &tenant_state));
    let count_handshake = |outcome: &str| {
        if let Some(h) = &provider.def.handshake {
            state
                .metrics
                .handshakes
                .with_label_values(&[provider.name.as_str(), h.name(), outcome])
                .inc();
        }
    };
    let verdict = verdict.map_err(|r| match r {
        Rejection::MethodNotAllowed => handshake::method_not_allowed(&provider.def),
        Rejection::HandshakeRefused => {
            count_handshake("refused");
            r.into()
        }
        r => r.into(),
    })?;
    match verdict {
        // A handshake is never an event: no capture, dedup key, row or
        // delivery.
        Verdict::Handshake(answer) => {
            if let Some(secret) = &answer.store_secret {
                // Kept before the answer confirms it; first come: a second
                // handshake racing this one is refused.
                let kept = state
                    .store
                    .with_records("handshake", |r| {
                        r.keep_handshake_secret(
                            &provider.name,
                            &tenant.name,
                            secret.expose_secret(),
                        )
                    })
                    .await?;
                if !kept {
                    count_handshake("refused");
                    return Err(Rejection::HandshakeRefused.into());
                }
                tracing::info!("handshake secret stored for this provider and tenant");
            }
            if let Some(url) = &answer.confirm {
                if let Err(e) = state.fetcher.confirm(url).await {
                    tracing::warn!(error = %e, "cannot confirm the subscription");
                    count_handshake("failed");
                    return Err(ApiError::FetchFailed);
                }
                tracing::info!(host = url.host(), "confirmed a subscription");
            }
            count_handshake("answered");
            Ok(Answer::Handshake(answer))
        }
        Verdict::Event(ev) => {
            let received = receive::one(req, state, ev).await?;
            crate::failpoint::crash_after_answer();
            // Only now is the body no longer held.
            drop(body);
            Ok(Answer::Event(received))
        }
        Verdict::Batch(events) => {
            let received = receive::batch(
                req,
                state,
                provider_name,
                tenant_name,
                &untrusted.body,
                events,
            )
            .await?;
            crate::failpoint::crash_after_answer();
            drop(body);
            Ok(Answer::Event(received))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::provider_and_tenant;

    #[test]
    fn the_path_names_a_provider_and_maybe_a_tenant() {
        assert_eq!(provider_and_tenant("/stripe"), Some(("stripe", "default")));
        assert_eq!(
            provider_and_tenant("/stripe/acme"),
            Some(("stripe", "acme"))
        );
        for refused in [
            "",
            "/",
            "//",
            "/stripe/",
            "//acme",
            "/stripe/acme/",
            "/a/b/c",
            "stripe",
        ] {
            assert_eq!(provider_and_tenant(refused), None, "{refused:?}");
        }
    }
}
