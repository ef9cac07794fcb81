//! Issue 29: providers whose keys are published at a URL (`scheme =
//! "jwks"`). A local HTTPS server with a test CA stands in for the key
//! endpoint; on every backend:
//!
//! - Kinde: the keys are fetched from the tenant's own domain once and
//!   reused; a token naming a key the cached set lacks makes hookline fetch
//!   again (the business rotated its key) and is accepted, while another
//!   unknown key within the interval causes no fetch; a domain off the
//!   provider's `fetch_hosts` is never fetched.
//! - Google Cloud Pub/Sub, against the real binary: its outbound HTTPS goes
//!   through a local `CONNECT` proxy to the stand-in, which holds a test
//!   certificate for `www.googleapis.com`, so the built-in definition's own
//!   URL and host list are what is exercised. A push with an ID token for
//!   the configured service account and audience is delivered; one for
//!   another audience is refused and not delivered.

use crate::common;

use std::time::Duration;

use common::cert_host::{base, fetches, vectors_file};
use common::connect_proxy::ConnectProxy;
use common::pki::Pki;
use common::procs::{config_with, free_port, post, serve_with, wait_ready};
use common::sink::{Reply, Sink};
use common::{now, spawn_app_with, AppOptions, Backend, Webhook, HANDLER_SECRET};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

const KINDE_JWKS: &str = "https://acme.kinde.com/.well-known/jwks.json";
const KINDE_ROTATED_JWKS: &str = "https://globex.kinde.com/.well-known/jwks.json";
/// The key ID of `test-key-other.pem` in Kinde's vectors.
const KINDE_NEW_KID: &str = "51:8f:e2:0a:c7:36:9d:b4:12:6c:f0:a5:3e:87:d9:2b";

/// What the vectors of `kind` say `url` answers.
fn served(kind: &str, url: &str) -> String {
    let file: Value = serde_json::from_str(&vectors_file(kind, "vectors.json")).unwrap();
    file["certs"][url].as_str().unwrap().to_owned()
}

/// A compact RS256 JWT over `claims` with `kind`'s test key `file`.
fn signed(kind: &str, file: &str, kid: &str, claims: &Value) -> String {
    let key = EncodingKey::from_rsa_pem(vectors_file(kind, file).as_bytes()).unwrap();
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &key).unwrap()
}

fn kinde_event(route: &str, webhook_id: &str, token: String) -> Webhook {
    Webhook {
        path: format!("/webhooks/{route}/acme"),
        headers: vec![
            ("Content-Type".into(), "application/jwt".into()),
            ("webhook-id".into(), webhook_id.into()),
        ],
        body: token.into_bytes(),
    }
}

fn kinde_claims(ty: &str) -> Value {
    json!({"type": ty, "event_id": "event_1", "source": "admin",
           "data": {"user": {"id": "kp_1"}}, "timestamp": "2026-11-25T18:00:00Z"})
}

async fn kinde_keys_are_fetched_once_and_again_for_a_new_key(backend: Backend) {
    let pki = Pki::new();
    let keys = Sink::start_tls(pki.server_config(false));
    keys.always(Reply::Body(200, served("kinde", KINDE_JWKS)));
    let domain = base(&keys);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[tls]\nca_file = \"{}\"\n\
         [providers.kinde]\nkind = \"kinde\"\nfetch_hosts = [\"localhost\"]\n\
         [providers.kinde.tenants.acme]\nsecrets = [\"{domain}\"]\n\
         [providers.kinde-elsewhere]\nkind = \"kinde\"\n\
         [providers.kinde-elsewhere.tenants.acme]\nsecrets = [\"{domain}\"]\n",
        pki.path("ca.pem")
    );
    let app = spawn_app_with(opts).await;
    let answer = |status: u16, body: &Value| {
        (
            status,
            body["status"]
                .as_str()
                .or(body["code"].as_str())
                .unwrap_or_default()
                .to_owned(),
        )
    };
    let send = |w: Webhook| {
        let app = &app;
        async move {
            let (status, body) = app.send_json(&w).await;
            answer(status, &body)
        }
    };

    // The documented vectors' token, signed with the current key, and
    // one signed with the older key the set still lists: one fetch.
    let vectors: Value = serde_json::from_str(&vectors_file("kinde", "vectors.json")).unwrap();
    let body = |i: usize| vectors["cases"][i]["body"].as_str().unwrap().to_owned();
    let current = kinde_event("kinde", "msg_1", body(0));
    assert_eq!(send(current).await, (200, "accepted".into()));
    let older = kinde_event("kinde", "msg_2", body(1));
    assert_eq!(send(older).await, (200, "accepted".into()));
    let jwks = "/.well-known/jwks.json";
    assert_eq!(fetches(&keys, jwks).len(), 1, "the set is cached");

    // Kinde rotates: the set now lists a new key, which a token names.
    keys.always(Reply::Body(200, served("kinde", KINDE_ROTATED_JWKS)));
    let rotated = signed(
        "kinde",
        "test-key-other.pem",
        KINDE_NEW_KID,
        &kinde_claims("user.updated"),
    );
    let rotated = kinde_event("kinde", "msg_3", rotated);
    assert_eq!(send(rotated).await, (200, "accepted".into()));
    assert_eq!(
        fetches(&keys, jwks).len(),
        2,
        "fetched again for the new kid"
    );

    // Another unknown key within the interval: refused, nothing fetched.
    let unknown = signed(
        "kinde",
        "test-key-other.pem",
        "no-such-key",
        &kinde_claims("user.deleted"),
    );
    for i in 0..5 {
        let w = kinde_event("kinde", &format!("msg_u{i}"), unknown.clone());
        assert_eq!(send(w).await, (401, "invalid_signature".into()));
    }
    assert_eq!(fetches(&keys, jwks).len(), 2, "at most once per interval");

    // The definition's own hosts (*.kinde.com) do not include this
    // domain: refused, never fetched.
    let off_list = kinde_event("kinde-elsewhere", "msg_4", body(0));
    assert_eq!(send(off_list).await, (401, "invalid_signature".into()));
    assert_eq!(fetches(&keys, jwks).len(), 2);
}

const GOOGLE_CERTS: &str = "https://www.googleapis.com/oauth2/v1/certs";
const GOOGLE_HOST: &str = "www.googleapis.com";
/// The key ID of `test-key.pem` in Google Pub/Sub's vectors.
const GOOGLE_KID: &str = "7c309e3a1c1999cb0404ab7125ee40b7cdbcaf7d";
const PUSH_ACCOUNT: &str = "pubsub-push@acme-project.iam.gserviceaccount.com";
const AUDIENCE: &str = "https://hooks.example.com/webhooks/google-pubsub/acme";

fn pubsub_push(message_id: &str, audience: &str) -> Webhook {
    let t = now();
    let token = signed(
        "google-pubsub",
        "test-key.pem",
        GOOGLE_KID,
        &json!({"aud": audience, "email": PUSH_ACCOUNT, "email_verified": true,
                "iat": t - 5, "exp": t + 3595, "iss": "https://accounts.google.com",
                "sub": "113774264463038321964"}),
    );
    let body = json!({"message": {"data": "eyJvcmRlciI6MX0=", "messageId": message_id,
                      "publishTime": "2026-11-25T18:00:00Z"},
                      "subscription": "projects/acme-project/subscriptions/orders-push"});
    Webhook {
        path: "/webhooks/google-pubsub/acme".into(),
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Authorization".into(), format!("Bearer {token}")),
        ],
        body: serde_json::to_vec(&body).unwrap(),
    }
}

async fn google_pubsub_push_is_verified_with_googles_keys(backend: Backend) {
    let pki = Pki::new();
    let google = Sink::start_tls(pki.server_config_for(&[GOOGLE_HOST]));
    google.always(Reply::Body(200, served("google-pubsub", GOOGLE_CERTS)));
    let port = url::Url::parse(&google.url).unwrap().port().unwrap();
    let proxy = ConnectProxy::start(([127, 0, 0, 1], port).into()).await;

    let handler = Sink::start(vec![]);
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "[tls]\nca_file = \"{}\"\n\
         [providers.google-pubsub]\nkind = \"google-pubsub\"\n\
         [providers.google-pubsub.tenants.acme]\nsecrets = [\"{PUSH_ACCOUNT} {AUDIENCE}\"]\n\
         [handlers.pubsub]\nurl = \"{}\"\nevents = [\"google-pubsub:*\"]\nsigning_secret = \"{HANDLER_SECRET}\"\n\
         [delivery]\npoll_interval = \"20ms\"\n",
        pki.path("ca.pem"),
        handler.url
    );
    let (config, _db, _keys) =
        config_with(AppOptions::new(backend), dir.path(), &handler, &extra).await;
    let port = free_port();
    let _hookline = serve_with(
        &config,
        "all",
        port,
        &[("HTTPS_PROXY", proxy.url.as_str()), ("NO_PROXY", "")],
    );
    wait_ready(port).await;

    let (status, body) = post(port, &pubsub_push("m-1", AUDIENCE)).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("accepted")),
        "{body}"
    );
    let elsewhere = pubsub_push("m-2", "https://other.example.com/push");
    let (status, body) = post(port, &elsewhere).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("invalid_signature")),
        "{body}"
    );

    assert_eq!(proxy.asked(), [format!("{GOOGLE_HOST}:443")]);
    assert_eq!(fetches(&google, "/oauth2/v1/certs").len(), 1);
    let got = handler.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(got[0].header("x-hookline-event-id"), Some("m-1"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        handler.received().len(),
        1,
        "only the push for this audience"
    );
}

backend_tests!(
    kinde_keys_are_fetched_once_and_again_for_a_new_key,
    google_pubsub_push_is_verified_with_googles_keys,
);
