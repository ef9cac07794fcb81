//! Migration 0003 on a store that already holds data, on both dialects: the
//! quarantined copies of one body fold into one counted row, and delivery
//! rows written before it (without a body digest) still guard their body.
//! `hookline migrate` says what it applied on the embedded store too (the
//! redis store's: `cli.rs`).

use crate::common;

use std::path::Path;

use crate::cli::{hookline, text};
use chrono::{DateTime, TimeZone, Utc};
use common::store::verified;
use common::{test_config, AppOptions, Backend, Webhook};
use hookline::config;
use hookline::store::{RecordOutcome, Store};
use sha2::{Digest, Sha256};
use sqlx::{Database, Encode, Executor, IntoArguments, Pool, Type};

/// Apply the migrations before 0003 from `dir` to `pool`.
async fn migrate_to_0002<DB>(dir: &str, pool: &Pool<DB>)
where
    DB: Database,
    DB::Connection: sqlx::migrate::Migrate,
{
    let before = tempfile::tempdir().unwrap();
    for name in ["0001_init.sql", "0002_deliveries.sql"] {
        std::fs::copy(Path::new(dir).join(name), before.path().join(name)).unwrap();
    }
    let migrator = sqlx::migrate::Migrator::new(before.path()).await.unwrap();
    migrator.run(pool).await.unwrap();
}

fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_790_000_000 + secs, 0).unwrap()
}

/// What an 0002 store held: three quarantined requests (two with one body)
/// and a delivery of `delivered`, all for `evt_old`.
async fn seed<DB>(pool: &Pool<DB>, delivered: &[u8])
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    for<'q> &'q [u8]: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    for<'q> DateTime<Utc>: Encode<'q, DB> + Type<DB>,
{
    for (body, seen) in [(&b"b1"[..], at(0)), (b"b2", at(5)), (b"b1", at(9))] {
        sqlx::query(
            "INSERT INTO conflict_quarantine
                 (provider, tenant, event_id, event_type, body_sha256, body, received_at)
             VALUES ('stripe', 'acme', 'evt_old', 'customer.created', $1, $2, $3)",
        )
        .bind(&Sha256::digest(body)[..])
        .bind(body)
        .bind(seen)
        .execute(pool)
        .await
        .unwrap();
    }
    sqlx::query(
        "INSERT INTO delivery (provider, tenant, event_id, handler, event_type, body, state,
                               next_attempt_ms, created_ms, updated_ms)
         VALUES ('stripe', 'acme', 'evt_old', 'billing', 'customer.created', $1, 'delivered',
                 $2, $2, $2)",
    )
    .bind(delivered)
    .bind(0i64)
    .execute(pool)
    .await
    .unwrap();
}

async fn migration_0003_folds_quarantine_and_keeps_old_deliveries_guarded(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let (text, _guard) = test_config(&AppOptions::new(backend), dir.path()).await;
    let text = text.replace("critical = [\"*\"]", "critical = []");
    let settings = config::from_toml_str("test.toml", &text).unwrap();
    let original = Webhook::new("stripe", "acme", "evt_old", "customer.created", "a");
    let other = Webhook::new("stripe", "acme", "evt_old", "customer.created", "b");
    match &settings.store {
        config::StoreSettings::Embedded(store) => {
            let url = format!("sqlite://{}?mode=rwc", store.path.display());
            let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
            migrate_to_0002("migrations/sqlite", &pool).await;
            seed(&pool, &original.body).await;
            pool.close().await;
        }
        config::StoreSettings::Redis(store) => {
            use secrecy::ExposeSecret;
            let url = &store.database_url;
            let pool = sqlx::PgPool::connect(url.expose_secret()).await.unwrap();
            migrate_to_0002("migrations/postgres", &pool).await;
            seed(&pool, &original.body).await;
            pool.close().await;
        }
    }

    Store::migrate(&settings.store).await.expect("0003 applies");
    let store = Store::connect(&settings.store).await.unwrap();
    let copies = store
        .records()
        .quarantined(&common::key("stripe", "acme", "evt_old"))
        .await
        .unwrap();
    let folded: Vec<_> = copies
        .iter()
        .map(|c| (c.body.as_slice(), c.copies, c.first_seen_at, c.last_seen_at))
        .collect();
    assert_eq!(
        folded,
        [(&b"b1"[..], 2, at(0), at(9)), (&b"b2"[..], 1, at(5), at(5))]
    );
    assert_eq!(store.inventory().await.unwrap().quarantined, 3);

    // The old delivery has no digest: it is compared by its body.
    let (original, other) = (verified(&settings, &original), verified(&settings, &other));
    assert_eq!(
        store
            .record_pending(&other, common::handlers(&["billing"]))
            .await
            .unwrap(),
        RecordOutcome::Conflict
    );
    assert_eq!(
        store
            .record_pending(&original, common::handlers(&["billing"]))
            .await
            .unwrap(),
        RecordOutcome::Recorded
    );
    // New conflicts are counted on the folded table.
    store.records().quarantine(&other).await.unwrap();
    store.records().quarantine(&other).await.unwrap();
    assert_eq!(store.inventory().await.unwrap().quarantined, 5);
}

backend_tests!(migration_0003_folds_quarantine_and_keeps_old_deliveries_guarded);

/// `hookline migrate` on a new embedded file names every migration it
/// applies; run again, it says the schema is up to date.
#[test]
fn migrate_names_what_it_applied_to_the_embedded_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hookline.toml");
    std::fs::write(
        &config,
        format!(
            "[store]\nkind = \"embedded\"\npath = \"{}\"\n[providers.stripe]\nkind = \"stripe\"\n[providers.stripe.tenants.a]\nsecrets = [\"x\"]\n",
            dir.path().join("data/hookline.db").display()
        ),
    )
    .unwrap();
    let migrate = || {
        let out = hookline(&["migrate", "--config", config.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let first = migrate();
    let shipped = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/sqlite"))
        .unwrap()
        .count();
    assert!(first.starts_with("applied 0001 "), "{first}");
    assert_eq!(first.lines().count(), shipped, "{first}");
    assert_eq!(migrate().trim(), "the schema is up to date");
}
