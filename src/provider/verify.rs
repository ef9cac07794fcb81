//! The one verify function: an untrusted request in; an event, a handshake
//! answer or a rejection out.

use std::sync::Arc;

use bytes::Bytes;

use super::batch;
use super::handshake::{Credentials, Stage, TenantState};
use super::identity;
use super::key::Key;
use super::request::{redact_query, Rejection, UntrustedRequest, Verdict};
use super::scheme::{CertificateNeeded, VerifyError};
use super::webhook::VerifiedWebhook;
use crate::config::{Provider, Tenant};

/// Verify `req` for `tenant` of `provider`, in this order:
///
/// 1. a handshake that carries no signature ([`Stage::Unsigned`]);
/// 2. any other method than `POST`, unless a signed handshake answers it
///    (Okta's `GET`), is [`Rejection::MethodNotAllowed`];
/// 3. the signature, against any of the tenant's keys;
/// 4. the signed timestamp, if the scheme signs one, within the provider's
///    tolerance in both directions: after the signature, so a forged
///    request is reported as forged whatever its timestamp says;
/// 5. a handshake answered only once signed ([`Stage::Signed`]);
/// 6. only a `POST` is an event: the event ID and type, of each item when
///    the definition declares a `batch`.
///
/// This is the only place a [`VerifiedWebhook`] is made.
pub fn verify_request(
    provider: &Arc<Provider>,
    tenant: &Tenant,
    req: &UntrustedRequest<'_>,
    state: &TenantState<'_>,
) -> Result<Verdict, Rejection> {
    let def = &provider.def;
    let keys = keys_of(tenant, state);
    let credentials = Credentials {
        keys: &keys,
        verify_token: state.verify_token,
        fetch_hosts: &provider.fetch_hosts,
    };
    let handshake = def.handshake.as_ref().map(|h| h.kind());
    let answer = |stage| {
        handshake
            .filter(|h| h.stage() == stage)
            .and_then(|h| h.answer(req, &credentials))
            .map(|answer| answer.map(Verdict::Handshake))
    };
    if let Some(verdict) = answer(Stage::Unsigned) {
        return verdict;
    }
    let signed_method = handshake
        .filter(|h| h.stage() == Stage::Signed)
        .is_some_and(|h| h.methods().contains(&req.method));
    if req.method != "POST" && !signed_method {
        return Err(Rejection::MethodNotAllowed);
    }
    if let Some(t) = def.signature.family().verify(req, &keys)? {
        within_tolerance(provider, req, t)?;
    }
    if let Some(verdict) = answer(Stage::Signed) {
        return verdict;
    }
    if req.method != "POST" {
        return Err(Rejection::MethodNotAllowed);
    }
    let forwarded: Arc<[(String, String)]> = provider
        .forwarded_headers
        .iter()
        .filter_map(|name| {
            let value = req.headers.header(name)?;
            Some((name.clone(), value.to_owned()))
        })
        .collect();
    // An item of a CloudEvents batch is delivered on its own, as the one
    // event of CloudEvents' structured mode.
    let content_type = match req.content_type() {
        Some(t)
            if provider.batch.is_some() && t.starts_with("application/cloudevents-batch+json") =>
        {
            Some(Arc::from("application/cloudevents+json"))
        }
        t => t.map(Arc::from),
    };
    // The query string as the event keeps it (filters and transforms read
    // it): a `query-token` scheme's token is redacted, never stored.
    let query: Arc<str> = redact_query(req.query, def.secret_query_params()).into();
    let event = |body: Bytes| -> Result<VerifiedWebhook, Rejection> {
        // The content digest: the conflict check's, and the event ID of a
        // definition whose ID is the body's hash (it follows the
        // fingerprint: a retry that rewrites only the envelope keeps it).
        let digest = provider.fingerprint.digest(&body);
        let (event_id, event_type) = identity::extract(
            &def.event_id,
            def.event_type.as_ref(),
            req.headers,
            &body,
            &digest,
        )?;
        Ok(VerifiedWebhook {
            provider: provider.clone(),
            tenant: (*tenant.name).clone(),
            event_id,
            event_type,
            body_sha256: digest,
            body,
            content_type: content_type.clone(),
            forwarded: forwarded.clone(),
            query: query.clone(),
            replay_guard: provider.guards_body(),
            trace_parent: None,
        })
    };
    match &provider.batch {
        None => Ok(Verdict::Event(event(req.body.clone())?)),
        Some(pointer) => {
            let events = batch::items(&req.body, pointer)?
                .into_iter()
                .map(event)
                .collect::<Result<_, _>>()?;
            Ok(Verdict::Batch(events))
        }
    }
}

/// Every key a request of `tenant` may verify with: its configured
/// secrets, a secret a handshake stored, and what was fetched for it.
fn keys_of<'a>(tenant: &'a Tenant, state: &TenantState<'a>) -> Vec<&'a Key> {
    tenant
        .keys
        .iter()
        .chain(state.stored_key)
        .chain(state.certificates.iter().copied())
        .collect()
}

/// Only steps 3 and 4 of [`verify_request`]: whether `req`'s signature
/// verifies against any of the tenant's keys and its signed time is within
/// the tolerance, whatever its method. For the known-answer vectors of a
/// provider that signs requests hookline does not take as events
/// (MessageBird signs GET, PUT, PATCH and DELETE too): hookline itself
/// decides every request with [`verify_request`].
pub fn verify_signature(
    provider: &Provider,
    tenant: &Tenant,
    req: &UntrustedRequest<'_>,
    state: &TenantState<'_>,
) -> Result<(), VerifyError> {
    let keys = keys_of(tenant, state);
    if let Some(t) = provider.def.signature.family().verify(req, &keys)? {
        within_tolerance(provider, req, t)?;
    }
    Ok(())
}

/// The certificate or published keys `req` needs before
/// [`verify_request`] can decide it, for a family that fetches them
/// (`rsa-cert-url`, `jwks`); `None` for every other family, and for a
/// request that is not a `POST`.
///
/// It runs every check that needs no certificate: the signature is there
/// and reads, its certificate URL is `https` on a host of the provider's
/// `fetch_hosts`, the tenant's identifiers match, and the signed time is
/// within the tolerance. A request that fails one is refused here, so it
/// never causes a fetch. The caller fetches the URLs and hands what they
/// answered to [`verify_request`] in [`TenantState::certificates`].
pub fn certificate_to_fetch(
    provider: &Provider,
    tenant: &Tenant,
    req: &UntrustedRequest<'_>,
) -> Result<Option<CertificateNeeded>, Rejection> {
    let family = provider.def.signature.family();
    if req.method != "POST" || !family.fetches() {
        return Ok(None);
    }
    let keys: Vec<&Key> = tenant.keys.iter().collect();
    let needed = family.certificate(req, &keys, &provider.fetch_hosts)?;
    let Some(needed) = needed else {
        return Ok(None);
    };
    if let Some(t) = needed.signed_at {
        within_tolerance(provider, req, t)?;
    }
    Ok(Some(needed))
}

/// The signed time `t` against the provider's tolerance, both directions.
fn within_tolerance(
    provider: &Provider,
    req: &UntrustedRequest<'_>,
    t: i64,
) -> Result<(), VerifyError> {
    if req.received_at.abs_diff(t) > provider.tolerance.as_secs() {
        return Err(VerifyError::TimestampOutOfTolerance);
    }
    Ok(())
}
