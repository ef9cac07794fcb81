//! Issue 24: how an SNS message's JSON members are read, on every backend.
//!
//! - One reading decides both the signature and the handshake: a signed
//!   `SubscriptionConfirmation` with a `"Type":"Notification"` written in
//!   front of it (the signature check used to take the last copy, the
//!   handshake to give up on any copy) is refused, never delivered as an
//!   event and never confirmed.
//! - SNS signs some members and not others. A member SNS never sends is
//!   refused; the ones SNS itself leaves unsigned (`MessageAttributes`,
//!   `UnsubscribeURL`) are passed on as they came, which docs/interpretations.md
//!   tells handlers.

use crate::common;

use std::time::Duration;

use common::cert_host::{
    accepted, app_and_certificate_host, app_and_certificate_host_with, base, fetches, rfc3339,
    sns_fields, sns_signed, status_and_code, TOPIC,
};
use common::sink::Sink;
use common::{now, Backend, Webhook, HANDLER_SECRET};
use serde_json::{json, Map, Value};

/// `w` with `member` written again in front of the others.
fn with_member_in_front(w: &Webhook, member: &str) -> Webhook {
    let mut body = format!("{{{member},").into_bytes();
    body.extend_from_slice(&w.body[1..]);
    Webhook { body, ..w.clone() }
}

fn set(w: &Webhook, name: &str, value: Value) -> Webhook {
    let mut msg: Map<String, Value> = serde_json::from_slice(&w.body).unwrap();
    msg.insert(name.into(), value);
    Webhook {
        body: serde_json::to_vec(&msg).unwrap(),
        ..w.clone()
    }
}

async fn a_duplicated_member_is_refused_not_read_two_ways(backend: Backend) {
    let (app, sink, _pki) = app_and_certificate_host(backend, "aws-sns").await;
    let cert = format!("{}/SimpleNotificationService-test.pem", base(&sink));
    let subscribe = format!("{}/?Action=ConfirmSubscription&Token=t1", base(&sink));
    let confirmation = sns_signed(
        sns_fields(
            json!({"Type": "SubscriptionConfirmation", "MessageId": "m-dup",
            "Token": "t1", "TopicArn": TOPIC, "SubscribeURL": subscribe,
            "Message": "You have chosen to subscribe to the topic.",
            "Timestamp": rfc3339(now())}),
        ),
        &cert,
    );
    for member in [r#""Type":"Notification""#, r#""MessageId":"m-other""#] {
        let forged = with_member_in_front(&confirmation, member);
        assert_eq!(
            status_and_code(&app, &forged).await,
            (401, "invalid_signature".into()),
            "{member}"
        );
    }
    // Refused before anything is fetched, and nothing is recorded.
    assert!(sink.received().is_empty(), "{:?}", fetches(&sink, "/"));
    app.assert_nothing_recorded().await;

    // Written once, the same confirmation is a handshake: confirmed, never
    // an event.
    let res = app.send(&confirmation).await;
    assert_eq!(res.status(), 200);
    assert_eq!(fetches(&sink, "/?").len(), 1);
    app.assert_nothing_recorded().await;
}

async fn unsigned_members_sns_never_sends_are_refused(backend: Backend) {
    let handler = Sink::start(vec![]);
    let deliveries = format!(
        "[handlers.sns]\nurl = \"{}\"\nevents = [\"aws-sns:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        handler.url
    );
    let (app, sink, _pki) = app_and_certificate_host_with(backend, "aws-sns", &deliveries).await;
    let cert = format!("{}/SimpleNotificationService-test.pem", base(&sink));
    let notification = |id: &str| {
        sns_signed(
            sns_fields(
                json!({"Type": "Notification", "MessageId": id, "TopicArn": TOPIC,
                "Message": "{\"order\":1}", "Timestamp": rfc3339(now()),
                "UnsubscribeURL": "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe"}),
            ),
            &cert,
        )
    };
    // A member added to a signed message: nothing signs it.
    for (name, value) in [
        ("Amount", json!("1000000")),
        ("message", json!("lower case is another member")),
    ] {
        let added = set(&notification("m-added"), name, value);
        assert_eq!(
            status_and_code(&app, &added).await,
            (401, "invalid_signature".into()),
            "{name}"
        );
    }
    app.assert_nothing_recorded().await;

    // The members SNS leaves unsigned itself are passed on as they came:
    // the handlers get these very bytes, and must not act on them.
    let attributes = json!({"tier": {"Type": "String", "Value": "gold"}});
    let sent = set(&notification("m-attrs"), "MessageAttributes", attributes);
    let body = accepted(&app, &sent).await;
    assert_eq!(body["event_id"], "m-attrs");
    let got = handler.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].body, sent.body, "passed on byte for byte");
    assert_eq!(got.len(), 1, "the refused ones were never delivered");
}

backend_tests!(
    a_duplicated_member_is_refused_not_read_two_ways,
    unsigned_members_sns_never_sends_are_refused,
);
