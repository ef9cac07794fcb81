//! A store of a test's own, without the HTTP server: for the tests that
//! drive the store's traits directly, and the requests they feed it.

use std::sync::Arc;

use bytes::Bytes;
use hookline::config::{self, Settings};
use hookline::provider::{verify_request, TenantState, UntrustedRequest, Verdict, VerifiedWebhook};
use hookline::store::Store;

use super::{drop_keys, now, test_config, AppOptions, Backend, StoreGuard, Webhook};

/// Event types the contract suite's providers record in `processed_event`;
/// every other type is deduplicated within the window only.
pub const CRITICAL_TYPE: &str = "payment_intent.succeeded";
pub const PLAIN_TYPE: &str = "customer.created";

pub struct TestStore {
    pub store: Store,
    pub settings: Arc<Settings>,
    pub backend: Backend,
    _dir: tempfile::TempDir,
    _guard: StoreGuard,
}

/// A fresh, migrated store on `backend` whose providers record
/// `payment_intent.*` events only.
pub async fn open_store(backend: Backend) -> TestStore {
    let dir = tempfile::tempdir().expect("temp dir");
    let (text, guard) = test_config(&AppOptions::new(backend), dir.path()).await;
    let text = text.replace("critical = [\"*\"]", "critical = [\"payment_intent.*\"]");
    let settings = config::from_toml_str("test.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    Store::migrate(&settings.store).await.expect("migrate");
    let store = Store::connect(&settings.store).await.expect("connect");
    TestStore {
        store,
        settings: Arc::new(settings),
        backend,
        _dir: dir,
        _guard: guard,
    }
}

impl Drop for TestStore {
    fn drop(&mut self) {
        drop_keys(&self.settings, self.backend);
    }
}

impl TestStore {
    /// A signed request, verified the way the server does.
    pub fn verified(&self, w: &Webhook) -> VerifiedWebhook {
        verified(&self.settings, w)
    }

    /// `event_id` on stripe/acme, of `event_type`, its body made distinct
    /// by `salt`.
    pub fn event(&self, event_id: &str, event_type: &str, salt: &str) -> VerifiedWebhook {
        self.verified(&Webhook::new("stripe", "acme", event_id, event_type, salt))
    }
}

/// Verify `w` against `settings`, as the server does.
pub fn verified(settings: &Settings, w: &Webhook) -> VerifiedWebhook {
    let mut parts = w.path.trim_start_matches("/webhooks/").split('/');
    let provider = &settings.providers[parts.next().expect("provider")];
    let tenant = &provider.tenants[parts.next().unwrap_or("default")];
    let req = UntrustedRequest {
        method: "POST",
        url: "",
        query: "",
        headers: &w.headers,
        body: Bytes::from(w.body.clone()),
        received_at: now(),
    };
    match verify_request(provider, tenant, &req, &TenantState::default()) {
        Ok(Verdict::Event(ev)) => ev,
        other => panic!("expected an event, got {other:?}"),
    }
}

impl super::TestApp {
    /// Nothing was recorded: no dedup key, no row, no delivery (what a
    /// handshake or a refused request leaves), after a moment for anything
    /// in flight.
    pub async fn assert_nothing_recorded(&self) {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert_eq!(self.inventory().await, Default::default());
        let deliveries = self
            .store
            .records()
            .list(&hookline::store::delivery::DeliveryFilter::default())
            .await
            .unwrap();
        assert!(deliveries.is_empty(), "{deliveries:?}");
    }
}
