//! A provider's acknowledgement body (`ack_body`): Alipay resends a
//! notification for about 25 hours unless the answer's body is exactly
//! `success` (https://opendocs.alipay.com/open/270/105902), so an accepted
//! notification and its duplicate are both answered with that body alone,
//! and a refused one is not. Other providers keep their JSON answer.

use crate::common;

use common::{spawn_app_with, AppOptions, Backend, Webhook};

/// The first (valid, SDK-signed) case of Alipay's vectors: its secret and
/// its body.
fn alipay_case() -> (String, Vec<u8>) {
    let file: serde_json::Value =
        serde_json::from_str(include_str!("../vectors/alipay/vectors.json")).unwrap();
    let case = &file["cases"][0];
    assert_eq!(case["expect"], "valid");
    (
        case["secrets"][0].as_str().unwrap().to_owned(),
        case["body"].as_str().unwrap().as_bytes().to_vec(),
    )
}

fn post(body: Vec<u8>) -> Webhook {
    Webhook {
        path: "/webhooks/alipay/acme".into(),
        headers: vec![(
            "Content-Type".into(),
            "application/x-www-form-urlencoded; charset=utf-8".into(),
        )],
        body,
    }
}

async fn alipay_is_answered_exactly_success(backend: Backend) {
    let (secret, body) = alipay_case();
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[providers.alipay]\nkind = \"alipay\"\n\
         [providers.alipay.tenants.acme]\nsecrets = [\"{secret}\"]\n"
    );
    let app = spawn_app_with(opts).await;

    let res = app.send(&post(body.clone())).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("Webhook-Duplicate").is_none());
    assert!(res.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert_eq!(res.bytes().await.unwrap().as_ref(), b"success");

    // Alipay's resend of the same notification: a duplicate, also `success`.
    let res = app.send(&post(body.clone())).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["Webhook-Duplicate"], "true");
    assert_eq!(res.bytes().await.unwrap().as_ref(), b"success");

    // A forged one is refused with a problem document, never `success`.
    let forged = String::from_utf8(body)
        .unwrap()
        .replace("total_amount=0.01", "total_amount=0.02");
    let res = app.send(&post(forged.into_bytes())).await;
    assert_eq!(res.status(), 401);
    assert_ne!(res.bytes().await.unwrap().as_ref(), b"success");

    // Another provider on the same server keeps its JSON answer.
    let res = app
        .send(&Webhook::new(
            "stripe",
            "acme",
            "evt_ack",
            "charge.succeeded",
            "{}",
        ))
        .await;
    assert_eq!(res.status(), 200);
    let json: serde_json::Value = res.json().await.unwrap();
    assert_eq!(json["status"], "accepted");
}

backend_tests!(alipay_is_answered_exactly_success);
