//! A handshake that hands the signing secret over (Asana's `X-Hook-Secret`,
//! issue 11), through the real server on every backend: the first one is
//! stored and echoed, later events verify against it, a second one is
//! refused until an operator re-arms the tenant (admin API or CLI).

use crate::common;

use common::{spawn_app_with, AppOptions, Backend, TestApp};
use hmac::{Hmac, Mac};
use sha2::Sha256;

const TOKEN: &str = "admin-token-for-tests-0123456789";
const BODY: &str = r#"{"events":[{"user":{"gid":"1123"},"created_at":"2023-11-14T22:13:18.612Z","action":"changed","resource":{"gid":"1237"}}]}"#;

async fn app(backend: Backend) -> TestApp {
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[providers.asana]\nkind = \"asana\"\n[providers.asana.tenants.acme]\n\n[admin]\ntoken = \"{TOKEN}\"\n"
    );
    spawn_app_with(opts).await
}

async fn handshake(app: &TestApp, secret: &str) -> (u16, Option<String>) {
    let res = app
        .client
        .post(format!("{}/webhooks/asana/acme", app.address))
        .header("X-Hook-Secret", secret)
        .send()
        .await
        .unwrap();
    let echoed = res
        .headers()
        .get("x-hook-secret")
        .map(|v| v.to_str().unwrap().to_owned());
    (res.status().as_u16(), echoed)
}

/// An event signed with `secret` as Asana signs; its status and `status`.
async fn event(app: &TestApp, secret: &str, salt: &str) -> (u16, String) {
    let body = BODY.replace("1237", salt);
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    let res = app
        .client
        .post(format!("{}/webhooks/asana/acme", app.address))
        .header("Content-Type", "application/json")
        .header("X-Hook-Signature", hex::encode(mac.finalize().into_bytes()))
        .body(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let json: serde_json::Value = res.json().await.unwrap_or_default();
    let what = json["status"].as_str().or(json["code"].as_str());
    (status, what.unwrap_or_default().to_owned())
}

async fn admin_reset(app: &TestApp) -> u16 {
    app.client
        .post(format!("{}/admin/handshakes/asana/acme/reset", app.address))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn cli_reset(app: &TestApp) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, &app.config_text).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["handshake", "reset", "asana", "acme", "--config"])
        .arg(&config)
        .output()
        .unwrap()
}

async fn the_handed_over_secret_is_kept_until_an_operator_resets_it(backend: Backend) {
    let app = app(backend).await;
    // Before any handshake nothing verifies.
    assert_eq!(event(&app, "s1", "a").await.0, 401);
    assert_eq!(handshake(&app, "s1").await, (200, Some("s1".to_owned())));
    assert_eq!(event(&app, "s1", "a").await, (200, "accepted".into()));
    assert_eq!(event(&app, "forged", "b").await.0, 401);
    // An unproven second handshake cannot take the tenant over.
    assert_eq!(handshake(&app, "s2").await, (403, None));
    assert_eq!(event(&app, "s2", "b").await.0, 401);
    assert_eq!(event(&app, "s1", "b").await, (200, "accepted".into()));
    assert_eq!(
        app.metric(
            r#"hookline_handshakes_total{kind="hook-secret",outcome="refused",provider="asana"}"#
        )
        .await,
        1.0
    );

    // The operator re-arms it through the admin API.
    assert_eq!(admin_reset(&app).await, 204);
    assert_eq!(admin_reset(&app).await, 404);
    assert_eq!(event(&app, "s1", "c").await.0, 401);
    assert_eq!(handshake(&app, "s2").await, (200, Some("s2".to_owned())));
    assert_eq!(event(&app, "s2", "c").await, (200, "accepted".into()));

    // Or through the CLI.
    let out = cli_reset(&app);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        cli_reset(&app).status.code(),
        Some(1),
        "nothing left to reset"
    );
    assert_eq!(handshake(&app, "s3").await.0, 200);
    assert_eq!(event(&app, "s3", "d").await, (200, "accepted".into()));
    assert_eq!(event(&app, "s2", "e").await.0, 401);
}

backend_tests!(the_handed_over_secret_is_kept_until_an_operator_resets_it);
