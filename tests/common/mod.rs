//! Black-box test harness: a receiver on a random port over a fresh store,
//! and helpers that sign requests the way each provider does.
//!
//! Every test gets its own store: a temp SQLite file for `embedded`; for
//! `redis`, its own key prefix and its own PostgreSQL database, created here
//! and dropped when the test ends.

#![allow(dead_code)]

pub mod backing;
pub mod brokers;
pub mod cert_host;
pub mod connect_proxy;
pub mod console;
pub mod logs;
pub mod otlp;
pub mod pki;
pub mod private_brokers;
pub mod procs;
pub mod provider;
pub mod raw;
pub mod servers;
pub mod signed;
pub mod sink;
pub mod store;

use std::sync::Arc;

use hookline::app::Application;
use hookline::config::{self, Settings};
use hookline::store::{Inventory, Store};
use tokio_util::sync::CancellationToken;

pub use backing::{cluster_urls, drop_keys, redis_url, StoreGuard, TestDatabase};
pub use signed::*;

/// The backends the suite runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Embedded,
    Redis,
    /// Redis Cluster (3 masters) + PostgreSQL.
    Cluster,
    /// Redis + PostgreSQL, non-critical deliveries in Redis Streams
    /// (`non_critical_deliveries = "redis"`), and only `payment_intent.*`
    /// critical: the suite's other events are delivered from streams.
    /// Only the tests that name it run on it (`stream_tests!`).
    Streams,
}

/// Run each named test function on [`Backend::Streams`]:
/// `stream_tests!(delivers, ...)` in a file that has `backend_tests!`
/// for them too.
#[macro_export]
macro_rules! stream_tests {
    ($($name:ident),* $(,)?) => {
        mod streams {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Streams).await
                }
            )*
        }
    };
}

/// Run each named test function once per backend:
/// `backend_tests!(accepts_then_duplicate, ...)` expects
/// `async fn accepts_then_duplicate(backend: Backend)` in the same file.
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod embedded {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Embedded).await
                }
            )*
        }
        mod redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Redis).await
                }
            )*
        }
        mod cluster {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Cluster).await
                }
            )*
        }
    };
}

/// Test secrets, per provider route and tenant.
/// One event's key, from names a test knows are valid.
pub fn key(provider: &str, tenant: &str, event_id: &str) -> hookline::store::EventKey {
    hookline::store::EventKey::parse(provider, tenant, event_id).expect("a valid event key")
}

/// Handler names as the stores take them (`commit`, `record_pending`),
/// from names a test knows are valid. Leaked: a test's few names live as
/// long as it does.
pub fn handlers(names: &[&str]) -> &'static [&'static hookline::ids::HandlerName] {
    let names: Vec<&'static hookline::ids::HandlerName> = names
        .iter()
        .map(|n| {
            &*Box::leak(Box::new(
                hookline::lookup::handler(n).expect("a valid handler name"),
            ))
        })
        .collect();
    Box::leak(names.into_boxed_slice())
}

pub struct TestApp {
    pub address: String,
    pub port: u16,
    pub store: Store,
    pub settings: Arc<Settings>,
    pub client: reqwest::Client,
    pub backend: Backend,
    /// The configuration the app runs with, for tests that run the CLI.
    pub config_text: String,
    /// Stops the application; cancelled when the test app is dropped.
    pub shutdown: CancellationToken,
    _dir: tempfile::TempDir,
    _guard: StoreGuard,
}

/// Options for [`spawn_app_with`].
pub struct AppOptions {
    pub backend: Backend,
    /// Extra TOML appended to the generated config (e.g. `[capture]`).
    pub extra: String,
    pub in_progress_ttl: &'static str,
    pub max_body_bytes: usize,
    /// Extra lines in every `[providers.NAME]` table (e.g. `ack = "handlers"`).
    pub provider_extra: String,
    /// Extra lines in `[server]` (e.g. `body_timeout = "2s"`).
    pub server_extra: String,
    /// The suite's routes ([`ROUTES`]); `false`: `extra` configures every
    /// provider (the capture corpus brings its own).
    pub routes: bool,
}

impl AppOptions {
    pub fn new(backend: Backend) -> Self {
        AppOptions {
            backend,
            extra: String::new(),
            in_progress_ttl: "5s",
            max_body_bytes: 64 * 1024,
            provider_extra: String::new(),
            server_extra: String::new(),
            routes: true,
        }
    }
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(AppOptions::new(backend)).await
}

/// Build the config text for a test (also used by tests that spawn the
/// binary).
pub async fn test_config(opts: &AppOptions, dir: &std::path::Path) -> (String, StoreGuard) {
    let (store, guard) = match opts.backend {
        Backend::Embedded => (
            format!(
                "[store]\nkind = \"embedded\"\npath = \"{}\"\n",
                dir.join("hookline.db").display()
            ),
            StoreGuard::default(),
        ),
        Backend::Redis | Backend::Cluster | Backend::Streams => {
            let db = TestDatabase::create().await;
            let mut cluster = None;
            let redis = match opts.backend {
                Backend::Cluster => {
                    let (urls, own) = cluster_urls();
                    cluster = own;
                    let nodes: Vec<String> = urls.iter().map(|u| format!("\"{u}\"")).collect();
                    format!("redis_cluster = [{}]", nodes.join(", "))
                }
                _ => format!("redis_url = \"{}\"", redis_url()),
            };
            let streams = match opts.backend {
                Backend::Streams => "non_critical_deliveries = \"redis\"\n",
                _ => "",
            };
            (
                format!(
                    "[store]\nkind = \"redis\"\n{redis}\ndatabase_url = \"{}\"\nkey_prefix = \"t{}\"\n{streams}",
                    db.url,
                    uuid::Uuid::new_v4().simple()
                ),
                StoreGuard { db: Some(db), cluster },
            )
        }
    };
    let providers = match opts.routes {
        true => providers_toml_with(&opts.provider_extra),
        false => String::new(),
    };
    let providers = match opts.backend {
        Backend::Streams => {
            providers.replace("critical = [\"*\"]", "critical = [\"payment_intent.*\"]")
        }
        _ => providers,
    };
    let text = render_config(
        &store,
        opts.max_body_bytes,
        opts.in_progress_ttl,
        &providers,
        &opts.extra,
    )
    // The server table opens the file: its extra keys go right after it.
    .replacen(
        "[server]\n",
        &format!("[server]\n{}\n", opts.server_extra),
        1,
    );
    (text, guard)
}

/// The whole config text: server on a random port, `store`, a one-hour
/// dedup window, `providers`, then `extra`.
pub fn render_config(
    store: &str,
    max_body_bytes: usize,
    in_progress_ttl: &str,
    providers: &str,
    extra: &str,
) -> String {
    format!(
        "[server]\nlisten = \"127.0.0.1:0\"\nmax_body_bytes = {max_body_bytes}\n\n{store}\n[dedup]\nin_progress_ttl = \"{in_progress_ttl}\"\nwindow = \"1h\"\n\n{providers}\n{extra}\n"
    )
}

pub async fn spawn_app_with(opts: AppOptions) -> TestApp {
    let dir = tempfile::tempdir().expect("temp dir");
    let (text, guard) = test_config(&opts, dir.path()).await;
    spawn_text(text, opts.backend, guard, dir).await
}

/// Migrate, connect and serve the config `text` on a random port.
pub async fn spawn_text(
    text: String,
    backend: Backend,
    guard: StoreGuard,
    dir: tempfile::TempDir,
) -> TestApp {
    let settings = config::from_toml_str("test.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    Store::migrate(&settings.store).await.expect("migrate");
    let store = Store::connect(&settings.store)
        .await
        .expect("connect store");
    let settings_for_test = Arc::new(config::from_toml_str("test.toml", &text).unwrap());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let app = Application::with_listener(settings, store.clone(), listener);
    let port = app.port().expect("a receiver");
    let shutdown = CancellationToken::new();
    tokio::spawn(app.run(shutdown.clone()));
    TestApp {
        address: format!("http://127.0.0.1:{port}"),
        port,
        store,
        settings: settings_for_test,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        backend,
        config_text: text,
        shutdown,
        _dir: dir,
        _guard: guard,
    }
}

/// The value of one series in a Prometheus text exposition (0 when absent).
pub fn series_value(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

impl TestApp {
    /// The prefix of the node's Redis keys (a redis store's node only).
    #[allow(dead_code)]
    pub fn key_prefix(&self) -> &str {
        &self
            .settings
            .store
            .redis()
            .expect("a redis store")
            .key_prefix
    }

    pub async fn send(&self, w: &Webhook) -> reqwest::Response {
        let mut req = self
            .client
            .post(format!("{}{}", self.address, w.path))
            .body(w.body.clone());
        for (k, v) in &w.headers {
            req = req.header(k, v);
        }
        req.send().await.expect("request")
    }

    /// Send and return (status, JSON body).
    pub async fn send_json(&self, w: &Webhook) -> (u16, serde_json::Value) {
        let res = self.send(w).await;
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or_default())
    }

    /// The value of one series of `/metrics` (`name{labels}` exactly as
    /// exposed); 0 when absent.
    pub async fn metric(&self, series: &str) -> f64 {
        series_value(&self.metrics_text().await, series)
    }

    /// `GET /metrics`, as served.
    pub async fn metrics_text(&self) -> String {
        self.client
            .get(format!("{}/metrics", self.address))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    pub async fn inventory(&self) -> Inventory {
        self.store.inventory().await.expect("inventory")
    }

    /// The `delivery` rows of `event_id`, every handler's.
    pub async fn deliveries(&self, event_id: &str) -> Vec<hookline::store::delivery::DeliveryView> {
        let filter = hookline::store::delivery::DeliveryFilter {
            event_id: Some(hookline::lookup::event_id(event_id).unwrap()),
            ..Default::default()
        };
        self.store.records().list(&filter).await.unwrap()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
        drop_keys(&self.settings, self.backend);
    }
}
