//! SIGHUP re-reads `[server.tls]`, on the real binary: it serves HTTPS
//! with a certificate of one throwaway CA; the files are replaced with a
//! pair from another CA and SIGHUP sent; a new connection then gets the new
//! certificate while a connection opened before keeps working. A pair that
//! does not load is refused with an error in the log, and the one served
//! stays.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::pki::Pki;
use common::procs::{self, free_port, Proc};
use common::{test_config, AppOptions, Backend};

/// A client that trusts `pki`'s CA only; it keeps its connection open
/// between requests.
fn trusting(pki: &Pki) -> reqwest::Client {
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&pki.ca).unwrap())
        .tls_built_in_root_certs(false)
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

/// `GET /healthz`: the status, or the error's chain (a certificate that is
/// not trusted fails the handshake).
async fn health(client: &reqwest::Client, port: u16) -> Result<u16, String> {
    match client
        .get(format!("https://localhost:{port}/healthz"))
        .send()
        .await
    {
        Ok(res) => Ok(res.status().as_u16()),
        Err(e) => {
            let mut chain = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                chain.push_str(&format!(": {s}"));
                source = s.source();
            }
            Err(chain)
        }
    }
}

/// Copy `pki`'s server certificate and key over the files hookline serves.
fn install(pki: &Pki, dir: &Path) {
    std::fs::copy(pki.path("server.pem"), dir.join("cert.pem")).unwrap();
    std::fs::copy(pki.path("server.key"), dir.join("key.pem")).unwrap();
}

fn sighup(proc: &Proc) {
    let status = Command::new("kill")
        .args(["-HUP", &proc.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_serves_a_new_certificate_and_keeps_open_connections() {
    let (old, new) = (Pki::new(), Pki::new());
    let dir = tempfile::tempdir().unwrap();
    install(&old, dir.path());
    let mut opts = AppOptions::new(Backend::Embedded);
    opts.extra = format!(
        "[server.tls]\ncert_file = \"{}\"\nkey_file = \"{}\"\n",
        dir.path().join("cert.pem").display(),
        dir.path().join("key.pem").display()
    );
    let (text, _guard) = test_config(&opts, dir.path()).await;
    let config = dir.path().join("hookline.toml");
    std::fs::write(&config, text).unwrap();
    let port = free_port();
    let hookline = procs::serve(&config, "all", port);

    // A client of the old CA connects, and keeps its connection.
    let kept = trusting(&old);
    let started = Instant::now();
    while health(&kept, port).await != Ok(200) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never served HTTPS\n{}",
            procs::logs(&config)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let fresh_of_new = health(&trusting(&new), port).await;
    assert!(fresh_of_new.is_err(), "{fresh_of_new:?}");

    // The new CA's pair replaces the files; SIGHUP. The kept connection
    // is used all along (a new one would fail: that client trusts only the
    // old CA), so none is dropped; new connections get the new pair.
    install(&new, dir.path());
    sighup(&hookline);
    let started = Instant::now();
    loop {
        assert_eq!(health(&kept, port).await, Ok(200), "the open connection");
        if health(&trusting(&new), port).await == Ok(200) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the new certificate was never served\n{}",
            procs::logs(&config)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(health(&kept, port).await, Ok(200), "the open connection");
    let fresh_of_old = health(&trusting(&old), port).await;
    assert!(
        fresh_of_old
            .as_ref()
            .is_err_and(|e| e.contains("certificate")),
        "{fresh_of_old:?}"
    );
    assert!(procs::logs(&config).contains("TLS certificate reloaded"));

    // A bad pair (the old CA's key with the new certificate): logged,
    // and the served pair stays.
    std::fs::copy(old.path("server.key"), dir.path().join("key.pem")).unwrap();
    sighup(&hookline);
    let started = Instant::now();
    while !procs::logs(&config).contains("TLS certificate not reloaded") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no error was logged\n{}",
            procs::logs(&config)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let logs = procs::logs(&config);
    assert!(
        logs.contains("the private key does not match the certificate"),
        "{logs}"
    );
    assert!(!logs.contains("PRIVATE KEY"), "no key material in the log");
    assert_eq!(health(&trusting(&new), port).await, Ok(200));
    assert_eq!(health(&kept, port).await, Ok(200));
}
