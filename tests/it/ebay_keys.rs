//! Issue 29: eBay, whose signing key is fetched by the `kid` a
//! notification's `X-EBAY-SIGNATURE` names, from eBay's Notification API,
//! with an application token hookline first obtains with the tenant's
//! client ID and secret (`scheme = "ebay"`). Local HTTPS servers with test
//! certificates for `api.ebay.com` and `api.sandbox.ebay.com` stand in for
//! the token and key endpoints, reached through a local `CONNECT` proxy, so
//! the built-in definition's own URLs and host list are what is exercised.
//! On every backend:
//!
//! - two notifications naming the same key: one token call (`POST`,
//!   `Basic` client credentials, the client-credentials grant and eBay's
//!   scope) and one key call (`Bearer` token), both accepted and
//!   delivered; a redelivery is a duplicate;
//! - a `kid` the endpoint does not know (404) is refused 401
//!   `invalid_signature` and remembered; the token is reused;
//! - a sandbox tenant whose token call fails is answered 503 +
//!   `Retry-After`, and the failed call is not repeated at once;
//! - a flood of forged `kid`s makes at most the tenant's budget of key
//!   fetches and one token call, then 503 + `Retry-After`;
//! - a key endpoint that refuses the tenant's token (401) is answered 503
//!   + `Retry-After` (the notification may be genuine), remembered;
//! - the endpoint challenge is answered with SHA-256(code + verify_token +
//!   the URL eBay called).

use crate::common;

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use common::cert_host::{fetches, vectors_file};
use common::connect_proxy::ConnectProxy;
use common::pki::Pki;
use common::sink::{Reply, Sink};
use common::{spawn_app_with, AppOptions, Backend, Webhook, HANDLER_SECRET};
use p256::ecdsa::signature::hazmat::PrehashSigner;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey;
use serde_json::{json, Value};
use sha1::{Digest as _, Sha1};

const HOST: &str = "api.ebay.com";
const SANDBOX: &str = "api.sandbox.ebay.com";
const KEYS_PATH: &str = "/commerce/notification/v1/public_key/";
const TOKEN_PATH: &str = "/identity/v1/oauth2/token";
/// The `kid` of `test-key.pem` in eBay's vectors.
const KID: &str = "9936261a-7d7b-4621-a0f1-96ccb428af49";
/// `CREDENTIALED_FETCH_BURST` in src/http/fetch_cache.rs.
const BUDGET: usize = 5;
const VERIFY_TOKEN: &str = "hookline-test_verification-token-0123456789";

fn vectors() -> Value {
    serde_json::from_str(&vectors_file("ebay", "vectors.json")).unwrap()
}

fn notification(tenant: &str, kid: &str, id: &str) -> Webhook {
    let key = SigningKey::from_pkcs8_pem(&vectors_file("ebay", "test-key.pem")).unwrap();
    let body = serde_json::to_vec(&json!({
        "metadata": {"topic": "MARKETPLACE_ACCOUNT_DELETION", "schemaVersion": "1.0", "deprecated": false},
        "notification": {"notificationId": id, "eventDate": "2026-11-25T18:00:00.000Z",
            "publishDate": "2026-11-25T18:00:00.200Z", "publishAttemptCount": 1,
            "data": {"username": "test_user", "userId": "ma8vp1jySJC"}}}))
    .unwrap();
    let signature: Signature = key.sign_prehash(&Sha1::digest(&body)).unwrap();
    let header = json!({"alg": "ecdsa", "kid": kid,
        "signature": STANDARD.encode(signature.to_der()), "digest": "SHA1"});
    Webhook {
        path: format!("/webhooks/ebay/{tenant}"),
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            (
                "X-EBAY-SIGNATURE".into(),
                STANDARD.encode(header.to_string()),
            ),
        ],
        body,
    }
}

async fn ebay_keys_are_fetched_with_an_application_token_once_and_within_a_budget(
    backend: Backend,
) {
    let v = vectors();
    let credentials = v["client_credentials"][HOST].as_str().unwrap().to_owned();
    let (client_id, client_secret) = credentials.split_once(':').unwrap();
    let token_answer = v["tokens"][format!("https://{HOST}{TOKEN_PATH}")]
        .as_str()
        .unwrap()
        .to_owned();
    let token: Value = serde_json::from_str(&token_answer).unwrap();
    let token = token["access_token"].as_str().unwrap().to_owned();
    let key_answer = v["certs"][format!("https://{HOST}{KEYS_PATH}{KID}")]
        .as_str()
        .unwrap()
        .to_owned();

    let pki = Pki::new();
    let ebay = Sink::start_tls(pki.server_config_for(&[HOST]));
    ebay.always(Reply::Routes(vec![
        (TOKEN_PATH.into(), token_answer),
        (format!("{KEYS_PATH}{KID}"), key_answer),
    ]));
    // The sandbox answers no token (404): its tenants' token calls fail.
    let sandbox = Sink::start_tls(pki.server_config_for(&[SANDBOX]));
    sandbox.always(Reply::Routes(Vec::new()));
    let port = |s: &Sink| url::Url::parse(&s.url).unwrap().port().unwrap();
    let proxy = ConnectProxy::routed(vec![
        (HOST.into(), ([127, 0, 0, 1], port(&ebay)).into()),
        (SANDBOX.into(), ([127, 0, 0, 1], port(&sandbox)).into()),
    ])
    .await;
    // The receiver runs in this process (nextest gives each test its own).
    std::env::set_var("HTTPS_PROXY", &proxy.url);
    std::env::set_var("NO_PROXY", "127.0.0.1,localhost");

    let handler = Sink::start(vec![]);
    let mut opts = AppOptions::new(backend);
    opts.routes = false;
    opts.extra = format!(
        "[tls]\nca_file = {:?}\n\
         [providers.ebay]\nkind = \"ebay\"\n\
         [providers.ebay.tenants.acme]\nsecrets = [\"{credentials}\"]\nverify_token = \"{VERIFY_TOKEN}\"\n\
         [providers.ebay.tenants.flood]\nsecrets = [\"{credentials}\"]\n\
         [providers.ebay.tenants.sbx]\nsecrets = [\"sandbox {credentials}\"]\n\
         [handlers.all]\nurl = \"{}\"\nevents = [\"ebay:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        pki.path("ca.pem"),
        handler.url
    );
    let app = spawn_app_with(opts).await;
    let send = |w: Webhook| {
        let app = &app;
        async move {
            let (status, body) = app.send_json(&w).await;
            let what = body["status"].as_str().or(body["code"].as_str());
            (status, what.unwrap_or_default().to_owned())
        }
    };

    // Two notifications naming the same key: one token call, one key call.
    assert_eq!(
        send(notification("acme", KID, "n-1")).await,
        (200, "accepted".into())
    );
    assert_eq!(
        send(notification("acme", KID, "n-2")).await,
        (200, "accepted".into())
    );
    assert_eq!(
        send(notification("acme", KID, "n-1")).await,
        (200, "duplicate".into()),
        "a redelivery keeps its notificationId"
    );
    let calls = ebay.received();
    assert_eq!(fetches(&ebay, TOKEN_PATH), [format!("POST {TOKEN_PATH}")]);
    assert_eq!(fetches(&ebay, KEYS_PATH), [format!("GET {KEYS_PATH}{KID}")]);
    let token_call = calls.iter().find(|c| c.uri == TOKEN_PATH).unwrap();
    let basic = format!(
        "Basic {}",
        STANDARD.encode(format!("{client_id}:{client_secret}"))
    );
    assert_eq!(token_call.header("authorization"), Some(basic.as_str()));
    assert_eq!(
        token_call.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        String::from_utf8_lossy(&token_call.body),
        "grant_type=client_credentials&scope=https%3A%2F%2Fapi.ebay.com%2Foauth%2Fapi_scope"
    );
    let key_call = calls.iter().find(|c| c.uri.starts_with(KEYS_PATH)).unwrap();
    let bearer = format!("Bearer {token}");
    assert_eq!(key_call.header("authorization"), Some(bearer.as_str()));

    // An unknown kid: 404 from the endpoint, a verification failure,
    // remembered; the token is reused.
    let unknown = "00000000-0000-4000-8000-000000000000";
    for i in 0..3 {
        let w = notification("acme", unknown, &format!("u-{i}"));
        assert_eq!(send(w).await, (401, "invalid_signature".into()));
    }
    assert_eq!(fetches(&ebay, KEYS_PATH).len(), 2, "the 404 is remembered");
    assert_eq!(fetches(&ebay, TOKEN_PATH).len(), 1, "the token is reused");

    // A sandbox tenant whose token call fails: 503 + Retry-After, and the
    // failed call is not made again at once.
    for i in 0..2 {
        let answer = app.send(&notification("sbx", KID, &format!("s-{i}"))).await;
        assert_eq!(answer.status().as_u16(), 503);
        assert!(answer.headers().contains_key("retry-after"));
    }
    assert_eq!(
        fetches(&sandbox, TOKEN_PATH).len(),
        1,
        "not repeated at once"
    );
    assert!(
        fetches(&sandbox, KEYS_PATH).is_empty(),
        "no key call without a token"
    );

    // A flood of forged kids for one tenant: at most its budget of key
    // fetches and one token call, then 503 + Retry-After.
    let mut refused = 0;
    for i in 0..(BUDGET + 4) {
        let kid = format!("{i:08}-1111-4111-8111-111111111111");
        let answer = app
            .send(&notification("flood", &kid, &format!("f-{i}")))
            .await;
        let status = answer.status().as_u16();
        assert!(matches!(status, 401 | 503), "never accepted: {status}");
        if status == 503 {
            assert!(answer.headers().contains_key("retry-after"));
            let body: Value = answer.json().await.unwrap();
            assert_eq!(body["code"], "fetch_failed");
            refused += 1;
        }
    }
    assert_eq!(refused, 4, "past the budget");
    assert_eq!(fetches(&ebay, KEYS_PATH).len(), 2 + BUDGET);
    assert_eq!(
        fetches(&ebay, TOKEN_PATH).len(),
        2,
        "one more token call, for the flooded tenant"
    );
    let mut asked = proxy.asked();
    asked.sort();
    asked.dedup();
    assert_eq!(asked, [format!("{HOST}:443"), format!("{SANDBOX}:443")]);

    // The endpoint challenge, over the URL eBay called.
    let endpoint = format!("{}/webhooks/ebay/acme", app.address);
    let code = "a8628072-3d33-45ee-9004-bee86830a22d";
    let answer = app
        .client
        .get(format!("{endpoint}?challenge_code={code}"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    let body: Value = answer.json().await.unwrap();
    let want = hex::encode(sha2::Sha256::digest(format!(
        "{code}{VERIFY_TOKEN}{endpoint}"
    )));
    assert_eq!(body, json!({ "challengeResponse": want }));
    let refused = app
        .client
        .get(format!(
            "{}/webhooks/ebay/flood?challenge_code={code}",
            app.address
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403, "no verify_token: no answer");

    // The key endpoint refuses the tenant's token (revoked, or the
    // credentials changed): not the request's fault, so 503 + Retry-After
    // for eBay to retry; the refusal is remembered a minute, and the token
    // dropped (the next fetch asks for a new one).
    ebay.always(Reply::Status(401));
    let before = (
        fetches(&ebay, KEYS_PATH).len(),
        fetches(&ebay, TOKEN_PATH).len(),
    );
    let kid = "22222222-2222-4222-8222-222222222222";
    for i in 0..3 {
        let answer = app
            .send(&notification("acme", kid, &format!("r-{i}")))
            .await;
        assert_eq!(answer.status().as_u16(), 503, "a refused credential");
        assert!(answer.headers().contains_key("retry-after"));
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["code"], "fetch_failed");
    }
    assert_eq!(
        (
            fetches(&ebay, KEYS_PATH).len(),
            fetches(&ebay, TOKEN_PATH).len()
        ),
        (before.0 + 1, before.1),
        "one key call with the cached token, then the refusal is remembered"
    );

    // Only the genuine notifications are delivered.
    let got = handler.wait_for(2, Duration::from_secs(10)).await;
    let mut ids: Vec<&str> = got
        .iter()
        .filter_map(|r| r.header("x-hookline-event-id"))
        .collect();
    ids.sort();
    assert_eq!(ids, ["n-1", "n-2"]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(handler.received().len(), 2);
}

backend_tests!(ebay_keys_are_fetched_with_an_application_token_once_and_within_a_budget);
