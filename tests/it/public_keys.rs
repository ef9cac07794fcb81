//! The public-key families through the HTTP server and the CLI: Discord
//! (Ed25519) with its signed PING handshake, and `hookline sign
//! --private-key`, whose output the server accepts.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::sink::Sink;
use common::{now, spawn_app_with, AppOptions, Backend, Webhook};
use hookline::provider::{sender_headers, Definitions, Key};

/// A throwaway Ed25519 key (`openssl genpkey -algorithm ed25519`).
const PRIVATE: &str = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIMvN6re8LDrJVwkIsXUOfVv045ibFKZ0U4JnDIntCc20\n-----END PRIVATE KEY-----\n";
/// Another, whose signatures the tenant must refuse.
const OTHER: &str = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIB+TTT+BlM5BCitJcC4eQyqKwq5DV/hnOfCDICYzzRsl\n-----END PRIVATE KEY-----\n";

fn discord_key(pem: &str) -> (Key, String) {
    let defs = Definitions::load(None).unwrap();
    let def = defs.get("discord").unwrap();
    let key = def.decode_private_key(pem).unwrap();
    let public = def.public_secret(&key).unwrap();
    (key, public)
}

fn discord(pem: &str, body: &str) -> Webhook {
    let defs = Definitions::load(None).unwrap();
    let (key, _) = discord_key(pem);
    let headers = sender_headers(
        defs.get("discord").unwrap(),
        &key,
        body.as_bytes(),
        "",
        None,
        now(),
        "",
    )
    .unwrap();
    Webhook {
        path: "/webhooks/discord/acme".into(),
        headers,
        body: body.as_bytes().to_vec(),
    }
}

async fn discord_pings_are_answered_after_the_signature_and_events_delivered(backend: Backend) {
    let sink = Sink::start(vec![]);
    let (_, public) = discord_key(PRIVATE);
    let mut opts = AppOptions::new(backend);
    opts.extra = format!(
        "[providers.discord]\nkind = \"discord\"\ncritical = [\"*\"]\n\
         [providers.discord.tenants.acme]\nsecrets = [\"{public}\"]\n\
         [handlers.everything]\nurl = \"{}\"\nevents = [\"discord:*\"]\n\
         signing_secret = \"whsec_aGFuZHNoYWtlLXRlc3Qta2V5\"\n[delivery]\npoll_interval = \"20ms\"\n",
        sink.url
    );
    let app = spawn_app_with(opts).await;

    // Interactions endpoint PING: {"type":1} back, as JSON.
    let res = app
        .send(&discord(
            PRIVATE,
            r#"{"type":1,"id":"1","application_id":"2"}"#,
        ))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<serde_json::Value>().await.unwrap()["type"], 1);
    // Webhook events PING: 204, no body.
    let res = app
        .send(&discord(
            PRIVATE,
            r#"{"version":1,"application_id":"2","type":0}"#,
        ))
        .await;
    assert_eq!(res.status(), 204);
    assert!(res.bytes().await.unwrap().is_empty());
    // Discord's deliberately bad signatures: refused, never answered.
    let res = app
        .send(&discord(
            OTHER,
            r#"{"version":1,"application_id":"2","type":0}"#,
        ))
        .await;
    assert_eq!(res.status(), 401);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        app.inventory().await,
        Default::default(),
        "a PING is never an event"
    );

    // An event is an event, delivered.
    let event = r#"{"version":1,"application_id":"2","type":1,"event":{"type":"ENTITLEMENT_CREATE","timestamp":"2024-01-01T00:00:00Z","data":{}}}"#;
    let (status, body) = app.send_json(&discord(PRIVATE, event)).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    let got = sink.wait_for(1, Duration::from_secs(5)).await;
    assert_eq!(got.len(), 1);
    assert_eq!(app.inventory().await.dedup_keys, 1);
}

backend_tests!(discord_pings_are_answered_after_the_signature_and_events_delivered);

/// `hookline sign --private-key` prints the public key to configure and
/// headers the verify function accepts, with `HOOKLINE_SIGN_SECRET` set
/// for other commands in the environment (the key given signs).
#[test]
fn sign_with_a_private_key_makes_requests_the_tenant_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let pem = dir.path().join("discord.pem");
    std::fs::write(&pem, PRIVATE).unwrap();
    let body = br#"{"version":1,"type":1,"event":{"type":"X"}}"#;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["sign", "--provider", "discord", "--private-key"])
        .arg(&pem)
        .env("HOOKLINE_SIGN_SECRET", "a-secret-for-other-commands")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(body).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, public) = discord_key(PRIVATE);
    assert!(String::from_utf8_lossy(&out.stderr).contains(&public));
    let headers: Vec<(String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let (settings, _dir) = common::provider::configure("discord", None, &[&public]).unwrap();
    let req = common::provider::Req::post(headers.clone(), body, now());
    assert!(common::provider::verify(&settings, &req).is_ok());
    let (other, _dir) =
        common::provider::configure("discord", None, &[&discord_key(OTHER).1]).unwrap();
    assert!(common::provider::verify(&other, &req).is_err());

    // A shared-secret scheme has no private key; a public-key scheme no
    // shared secret: both say so.
    let wrong = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args(["sign", "--provider", "github", "--private-key"])
        .arg(&pem)
        .env_remove("HOOKLINE_SIGN_SECRET")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("--secret"));
    // Both on the command line: which one signs is not guessed.
    let both = Command::new(env!("CARGO_BIN_EXE_hookline"))
        .args([
            "sign",
            "--provider",
            "discord",
            "--secret",
            "s",
            "--private-key",
        ])
        .arg(&pem)
        .env_remove("HOOKLINE_SIGN_SECRET")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("not both"));
}
