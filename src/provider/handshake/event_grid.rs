//! `kind = "event-grid-validation"`: Azure Event Grid proves a webhook
//! endpoint before it delivers to it
//! (<https://learn.microsoft.com/azure/event-grid/webhook-event-delivery>):
//!
//! - Event Grid schema: a `POST` whose body is an array holding a
//!   `Microsoft.EventGrid.SubscriptionValidationEvent` with
//!   `data.validationCode` C, answered `{"validationResponse": C}`;
//! - CloudEvents 1.0 schema (abuse protection): an `OPTIONS` with
//!   `WebHook-Request-Origin: O`, answered `200` with
//!   `WebHook-Allowed-Origin: O`.
//!
//! Both are answered only once the request's credential verified (the
//! `?code=` token of the registered URL), so nobody else can make the
//! endpoint approve a subscription.

use std::borrow::Cow;

use serde::Deserialize;

use super::{echoable, Credentials, HandshakeAnswer, HandshakeKind, SampleRequest, Stage};
use crate::provider::request::{Rejection, UntrustedRequest};

/// The `eventType` of the validation event.
pub(crate) const VALIDATION_EVENT: &str = "Microsoft.EventGrid.SubscriptionValidationEvent";
/// The CloudEvents abuse-protection request and answer headers.
pub(crate) const ORIGIN_HEADER: &str = "WebHook-Request-Origin";
const ALLOWED_ORIGIN_HEADER: &str = "WebHook-Allowed-Origin";

/// No parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventGridValidation {}

/// The first event's type and data; the rest is skipped unread.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "eventType", borrow)]
    event_type: Option<Cow<'a, str>>,
    #[serde(borrow)]
    data: Option<Data<'a>>,
}

#[derive(Deserialize)]
struct Data<'a> {
    #[serde(rename = "validationCode", borrow)]
    validation_code: Option<Cow<'a, str>>,
}

impl HandshakeKind for EventGridValidation {
    fn name(&self) -> &'static str {
        "event-grid-validation"
    }

    fn stage(&self) -> Stage {
        Stage::Signed
    }

    fn methods(&self) -> &'static [&'static str] {
        &["OPTIONS"]
    }

    /// The Event Grid schema's validation event; the CloudEvents `OPTIONS`
    /// is the same check without a code.
    fn sample(&self, challenge: &str, _verify_token: Option<&str>) -> Option<SampleRequest> {
        let body = serde_json::json!([{
            "id": "2d1781af-3a4c-4d7c-bd0c-e34b19da4e66",
            "topic": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg",
            "subject": "",
            "data": { "validationCode": challenge },
            "eventType": VALIDATION_EVENT,
            "eventTime": "2023-11-14T22:13:18.000Z",
            "metadataVersion": "1",
            "dataVersion": "1",
        }]);
        Some(SampleRequest::json(&body).with_header("aeg-event-type", "SubscriptionValidation"))
    }

    fn answer(
        &self,
        req: &UntrustedRequest<'_>,
        _tenant: &Credentials<'_>,
    ) -> Option<Result<HandshakeAnswer, Rejection>> {
        if req.method == "OPTIONS" {
            let origin = req.headers.header(ORIGIN_HEADER);
            return Some(match origin {
                Some(o) => echoable(o).map(|o| HandshakeAnswer {
                    headers: vec![(ALLOWED_ORIGIN_HEADER.to_owned(), o.to_owned())],
                    ..HandshakeAnswer::empty()
                }),
                None => Err(Rejection::MalformedPayload),
            });
        }
        // Events are arrays of objects; one whose first event is not the
        // validation event is an ordinary delivery.
        let events: Vec<Event<'_>> = serde_json::from_slice(&req.body).ok()?;
        let first = events.into_iter().next()?;
        if first.event_type.as_deref() != Some(VALIDATION_EVENT) {
            return None;
        }
        let code = first.data.and_then(|d| d.validation_code);
        Some(match code.as_deref() {
            Some(c) => echoable(c)
                .map(|c| HandshakeAnswer::json(&serde_json::json!({ "validationResponse": c }))),
            None => Err(Rejection::MalformedPayload),
        })
    }
}
