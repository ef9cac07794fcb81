//! What a provider's host serves, for the `rsa-cert-url` tests
//! (tests/it/cert_url.rs): a local HTTPS sink with a throwaway CA standing in
//! for the certificate host and the `SubscribeURL`, an app that trusts it
//! and fetches from it, the committed vectors re-pointed at it, and SNS
//! messages signed now with the vectors' test key.

use base64::Engine as _;
use rsa::pkcs8::DecodePrivateKey;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::pki::Pki;
use super::sink::{Reply, Sink};
use super::{spawn_app_with, AppOptions, Backend, TestApp, Webhook};

pub const TOPIC: &str = "arn:aws:sns:us-east-1:123456789012:hookline-orders";
pub const WEBHOOK_ID: &str = "1JE4291016473214C";
/// The first case of the SNS vectors.
pub const V2_NOTIFICATION: &str = "SignatureVersion 2 (RSA-SHA256) notification";

pub fn vectors_file(kind: &str, file: &str) -> String {
    let path = format!("{}/tests/vectors/{kind}/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// An HTTPS sink that answers every request with `kind`'s test
/// certificate, and an app whose `aws-sns` and `paypal` routes fetch from
/// it. The vectors were signed in 2023: the routes' tolerance reaches back
/// that far, so that they verify as they are.
pub async fn app_and_certificate_host(backend: Backend, cert_of: &str) -> (TestApp, Sink, Pki) {
    app_and_certificate_host_with(backend, cert_of, "").await
}

/// [`app_and_certificate_host`] with `extra` TOML in the config (a
/// handler, a `[capture]`).
pub async fn app_and_certificate_host_with(
    backend: Backend,
    cert_of: &str,
    extra: &str,
) -> (TestApp, Sink, Pki) {
    let pki = Pki::new();
    let sink = Sink::start_tls(pki.server_config(false));
    sink.always(Reply::Body(200, vectors_file(cert_of, "test-cert.pem")));
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[tls]\nca_file = \"{}\"\n\
         [providers.aws-sns]\nkind = \"aws-sns\"\nfetch_hosts = [\"localhost\"]\n\
         [providers.aws-sns.tenants.acme]\nsecrets = [\"{TOPIC}\"]\n\
         [providers.old-sns]\nkind = \"aws-sns\"\nfetch_hosts = [\"localhost\"]\ntolerance = \"100000d\"\n\
         [providers.old-sns.tenants.acme]\nsecrets = [\"{TOPIC}\"]\n\
         [providers.old-sns.tenants.v1]\nsecrets = [\"{TOPIC}\"]\n\
         [providers.paypal]\nkind = \"paypal\"\nfetch_hosts = [\"localhost\"]\ntolerance = \"100000d\"\n\
         [providers.paypal.tenants.acme]\nsecrets = [\"{WEBHOOK_ID}\"]\n\
         [providers.paypal.tenants.other]\nsecrets = [\"8PT597110X687430LKGECATA\"]\n{extra}",
        pki.path("ca.pem")
    );
    (spawn_app_with(opts).await, sink, pki)
}

/// The sink's base URL (`https://localhost:PORT`).
pub fn base(sink: &Sink) -> String {
    sink.url.trim_end_matches("/hook").to_owned()
}

/// The requests the sink received for `path_prefix`.
pub fn fetches(sink: &Sink, path_prefix: &str) -> Vec<String> {
    sink.received()
        .into_iter()
        .filter(|r| r.uri.starts_with(path_prefix))
        .map(|r| format!("{} {}", r.method, r.uri))
        .collect()
}

/// A case of `kind`'s vectors as a request to `route`, its certificate URL
/// replaced by `cert_url`.
pub fn vector(kind: &str, name: &str, route: &str, cert_url: &str) -> Webhook {
    let file: Value = serde_json::from_str(&vectors_file(kind, "vectors.json")).unwrap();
    let case = file["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name:?}"));
    let mut headers: Vec<(String, String)> =
        serde_json::from_value(case["headers"].clone()).unwrap();
    let mut body = case["body"].as_str().unwrap().to_owned();
    if kind == "paypal" {
        for (k, v) in &mut headers {
            if k.eq_ignore_ascii_case("PAYPAL-CERT-URL") {
                *v = cert_url.to_owned();
            }
        }
    } else {
        let mut msg: Map<String, Value> = serde_json::from_str(&body).unwrap();
        msg.insert("SigningCertURL".into(), cert_url.into());
        body = serde_json::to_string(&msg).unwrap();
    }
    Webhook {
        path: format!("/webhooks/{route}/acme"),
        headers,
        body: body.into_bytes(),
    }
}

/// An SNS message signed now with the vectors' test key, as SNS signs it
/// (SignatureVersion 2, SHA256withRSA): `Key\nvalue\n` for each signed key
/// the message has, in the order of sns-validator's list (a notification
/// has no `SubscribeURL` or `Token`, a confirmation no `Subject`).
pub fn sns_signed(mut msg: Map<String, Value>, cert_url: &str) -> Webhook {
    let text: String = [
        "Message",
        "MessageId",
        "Subject",
        "SubscribeURL",
        "Timestamp",
        "Token",
        "TopicArn",
        "Type",
    ]
    .iter()
    .filter_map(|k| Some(format!("{k}\n{}\n", msg.get(*k)?.as_str()?)))
    .collect();
    let key = rsa::RsaPrivateKey::from_pkcs8_pem(&vectors_file("aws-sns", "test-key.pem")).unwrap();
    let signature = key
        .sign(
            rsa::Pkcs1v15Sign::new::<Sha256>(),
            &Sha256::digest(text.as_bytes()),
        )
        .unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    msg.insert("SignatureVersion".into(), "2".into());
    msg.insert("Signature".into(), b64.encode(signature).into());
    msg.insert("SigningCertURL".into(), cert_url.into());
    Webhook {
        path: "/webhooks/aws-sns/acme".into(),
        headers: vec![("Content-Type".into(), "text/plain; charset=UTF-8".into())],
        body: serde_json::to_vec(&msg).unwrap(),
    }
}

pub fn sns_fields(fields: Value) -> Map<String, Value> {
    fields.as_object().unwrap().clone()
}

pub fn rfc3339(unix: i64) -> String {
    chrono::DateTime::from_timestamp(unix, 0)
        .unwrap()
        .to_rfc3339()
}

/// Send `w`, which must be accepted as a new event; the answer.
pub async fn accepted(app: &TestApp, w: &Webhook) -> Value {
    let (status, body) = app.send_json(w).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("accepted")),
        "{body}"
    );
    body
}

pub async fn status_and_code(app: &TestApp, w: &Webhook) -> (u16, String) {
    let (status, body) = app.send_json(w).await;
    (status, body["code"].as_str().unwrap_or_default().to_owned())
}
