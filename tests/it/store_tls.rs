//! The stores over TLS, against servers the test starts with certificates
//! from a CA it made: PostgreSQL with `ssl = on` reached with
//! `sslmode=verify-full` (roots from `sslrootcert` or from `[tls] ca_file`,
//! refused without either), and Redis on `--tls-port` reached with
//! `rediss://` and `[tls] ca_file`.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::backing::{redis_url, StoreGuard, TestDatabase};
use common::pki::Pki;
use common::servers::{cluster_node_port, free_port, PgServer, RedisServer};
use common::{providers_toml, render_config, spawn_text, Backend, Webhook};
use hookline::store::Store;
use sqlx::Connection;

/// A PostgreSQL cluster serving TLS with `pki`'s `localhost` certificate.
fn tls_postgres(pki: &Pki) -> PgServer {
    PgServer::start_with(|dir| {
        let (cert, key) = (dir.join("server.pem"), dir.join("server.key"));
        std::fs::copy(pki.path("server.pem"), &cert).unwrap();
        std::fs::copy(pki.path("server.key"), &key).unwrap();
        // PostgreSQL refuses a key others can read.
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        vec![
            "ssl=on".into(),
            format!("ssl_cert_file={}", cert.display()),
            format!("ssl_key_file={}", key.display()),
        ]
    })
}

/// A redis-server's arguments for TLS on `tls_port` with `pki`'s
/// `localhost` certificate (clients need none), then `extra`.
fn tls_args(pki: &Pki, tls_port: u16, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "--tls-port".to_owned(),
        tls_port.to_string(),
        "--tls-cert-file".to_owned(),
        pki.path("server.pem"),
        "--tls-key-file".to_owned(),
        pki.path("server.key"),
        "--tls-ca-cert-file".to_owned(),
        pki.path("ca.pem"),
        "--tls-auth-clients".to_owned(),
        "no".to_owned(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

fn config(store: &str, tls: &str) -> String {
    format!(
        "{}\n{tls}\n",
        render_config(store, 65536, "5s", &providers_toml(), "")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_over_verified_tls() {
    let pki = Pki::new();
    let pg = tls_postgres(&pki);
    let base = format!(
        "postgres://postgres@localhost:{}/postgres?sslmode=verify-full",
        pg.port
    );

    // The connection really is TLS, as sqlx makes it.
    let with_root = format!("{base}&sslrootcert={}", pki.path("ca.pem"));
    let mut conn = sqlx::PgConnection::connect(&with_root).await.unwrap();
    let ssl: bool = sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(ssl);

    let store = |url: &str| {
        format!(
            "[store]\nkind = \"redis\"\nredis_url = \"{}\"\ndatabase_url = \"{url}\"\nkey_prefix = \"t{}\"\n",
            redis_url(),
            uuid::Uuid::new_v4().simple()
        )
    };
    // No root to verify the server with: refused, never downgraded.
    let settings = hookline::config::from_toml_str("t.toml", &config(&store(&base), "")).unwrap();
    let err = Store::migrate(&settings.store)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("PostgreSQL"), "{err}");

    // `[tls] ca_file` is the root when the URL names none: hookline
    // migrates, serves and records a critical event over TLS.
    let tls = format!("[tls]\nca_file = \"{}\"", pki.path("ca.pem"));
    let text = config(&store(&base), &tls);
    let app = spawn_text(
        text,
        Backend::Redis,
        StoreGuard::default(),
        tempfile::tempdir().unwrap(),
    )
    .await;
    let (status, body) = app
        .send_json(&Webhook::new("github", "acme", "d-pg-tls", "push", "a"))
        .await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM processed_event")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows, 1);
    common::backing::drop_keys(&app.settings, Backend::Redis);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_over_tls_with_the_ca_file() {
    let pki = Pki::new();
    let tls_port = free_port();
    let args = tls_args(&pki, tls_port, &[]);
    let _redis = RedisServer::start_with(
        free_port(),
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let db = TestDatabase::create().await;
    let store = format!(
        "[store]\nkind = \"redis\"\nredis_url = \"rediss://localhost:{tls_port}/0\"\ndatabase_url = \"{}\"\n",
        db.url
    );
    let tls = format!("[tls]\nca_file = \"{}\"", pki.path("ca.pem"));
    let app = spawn_text(
        config(&store, &tls),
        Backend::Redis,
        StoreGuard {
            db: Some(db),
            cluster: None,
        },
        tempfile::tempdir().unwrap(),
    )
    .await;
    let w = Webhook::new("github", "acme", "d-redis-tls", "push", "a");
    let (status, body) = app.send_json(&w).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("accepted")));
    let (status, body) = app.send_json(&w).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("duplicate")));
    assert_eq!(
        app.inventory().await.dedup_keys,
        1,
        "the key is in the TLS Redis"
    );
}

/// A Redis Cluster whose nodes speak TLS only to clients and to each other
/// (`--tls-cluster yes`), reached with `rediss://` node URLs and
/// `[tls] ca_file`: the redirections the client follows stay on TLS.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_cluster_over_tls_with_the_ca_file() {
    let pki = Pki::new();
    // With `--tls-cluster`, the bus listens 10,000 above the TLS port.
    let tls_ports: Vec<u16> = (0..3).map(|_| cluster_node_port()).collect();
    let _nodes: Vec<RedisServer> = tls_ports
        .iter()
        .map(|tls_port| {
            let args = tls_args(
                &pki,
                *tls_port,
                &[
                    "--tls-cluster",
                    "yes",
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "2000",
                ],
            );
            RedisServer::start_with(
                free_port(),
                &args.iter().map(String::as_str).collect::<Vec<_>>(),
            )
        })
        .collect();
    let addrs: Vec<String> = tls_ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    let status = std::process::Command::new("redis-cli")
        .args([
            "--tls",
            "--cacert",
            &pki.path("ca.pem"),
            "--cluster",
            "create",
        ])
        .args(&addrs)
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "cluster create over TLS");
    for port in &tls_ports {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(15);
        loop {
            let out = std::process::Command::new("redis-cli")
                .args([
                    "--tls",
                    "--cacert",
                    &pki.path("ca.pem"),
                    "-p",
                    &port.to_string(),
                ])
                .args(["CLUSTER", "INFO"])
                .output()
                .unwrap();
            if String::from_utf8_lossy(&out.stdout).contains("cluster_state:ok") {
                break;
            }
            assert!(
                std::time::Instant::now() < until,
                "cluster not ok on {port}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    let db = TestDatabase::create().await;
    let nodes: Vec<String> = addrs.iter().map(|a| format!("\"rediss://{a}\"")).collect();
    let store = format!(
        "[store]\nkind = \"redis\"\nredis_cluster = [{}]\ndatabase_url = \"{}\"\n",
        nodes.join(", "),
        db.url
    );
    let tls = format!("[tls]\nca_file = \"{}\"", pki.path("ca.pem"));
    let app = spawn_text(
        config(&store, &tls),
        Backend::Redis,
        StoreGuard {
            db: Some(db),
            cluster: None,
        },
        tempfile::tempdir().unwrap(),
    )
    .await;
    // Events of many tenants' keys land on every node's slots.
    for (i, tenant) in ["acme", "globex", "default"].iter().enumerate() {
        let w = Webhook::new("github", tenant, &format!("d-cluster-tls-{i}"), "push", "a");
        let (status, body) = app.send_json(&w).await;
        assert_eq!(
            (status, body["status"].as_str()),
            (200, Some("accepted")),
            "{body}"
        );
        let (status, body) = app.send_json(&w).await;
        assert_eq!((status, body["status"].as_str()), (200, Some("duplicate")));
    }
    assert_eq!(
        app.inventory().await.dedup_keys,
        3,
        "the keys are in the TLS cluster"
    );
}
