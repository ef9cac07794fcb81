//! Choosing and opening the backend from the configuration: the one place
//! that reads [`StoreSettings`]. Each backend takes options of its own.

use std::sync::Arc;

use super::delivery::StreamLane;
use super::{
    EmbeddedOptions, EmbeddedStore, OpenError, PgOptions, PgStore, RedisDedup, RedisOptions,
    RedisPg, Store, StreamQueue,
};
use crate::config::{
    DeliveryHome, EmbeddedStoreSettings, RedisStoreSettings, Settings, StoreSettings,
};

fn embedded(s: &EmbeddedStoreSettings) -> EmbeddedOptions {
    EmbeddedOptions {
        path: s.path.clone(),
        timeout: s.timeout,
    }
}

fn postgres(s: &RedisStoreSettings) -> PgOptions {
    PgOptions {
        url: Some(s.database_url.clone()),
        pool_size: s.pool_size,
        write_concurrency: s.write_concurrency,
        timeout: s.timeout,
        ca_file: s.ca_file.clone(),
    }
}

fn redis(s: &RedisStoreSettings) -> RedisOptions {
    RedisOptions {
        url: s.redis_url.clone(),
        cluster: s.redis_cluster.clone(),
        key_prefix: s.key_prefix.to_string(),
        timeout: s.timeout,
        ca_file: s.ca_file.clone(),
    }
}

impl Store {
    /// Connect to the configured stores. The embedded store creates and
    /// migrates its file; the redis store refuses a PostgreSQL schema that
    /// is behind (`hookline migrate` applies it), and starts while Redis is
    /// down (it reconnects on demand).
    pub async fn connect(settings: &StoreSettings) -> Result<Store, OpenError> {
        match settings {
            StoreSettings::Embedded(s) => {
                let store = Arc::new(EmbeddedStore::open(&embedded(s)).await?);
                Ok(Store::new(store.clone(), store, s.timeout).with_database("SQLite"))
            }
            StoreSettings::Redis(s) => {
                let pg = PgStore::open(&postgres(s)).await?;
                pg.check_schema().await?;
                pg.keep_statistics();
                let dedup = RedisDedup::new(&redis(s))?;
                dedup.try_connect(s.timeout).await;
                let streams = s.non_critical_deliveries == DeliveryHome::Redis;
                let queue = StreamQueue::new(dedup.clone(), pg.clone());
                let wake = streams.then(|| queue.waker());
                let ingest = Arc::new(RedisPg::new(dedup, pg.clone()).streaming(wake));
                let store = Store::new(ingest, Arc::new(pg), s.timeout).with_database("PostgreSQL");
                Ok(match streams {
                    true => store.with_streams(queue),
                    false => store,
                })
            }
        }
    }

    /// Apply pending migrations to the configured stores (Redis has no
    /// schema; opening the embedded file migrates it), creating a missing
    /// PostgreSQL database when the role may. Returns what was done, one
    /// line each.
    pub async fn migrate(settings: &StoreSettings) -> Result<Vec<String>, OpenError> {
        match settings {
            StoreSettings::Embedded(s) => {
                let store = EmbeddedStore::open(&embedded(s)).await?;
                let applied = store.migrated().iter().map(|m| format!("applied {m}"));
                Ok(applied.collect())
            }
            StoreSettings::Redis(s) => {
                let mut done = Vec::new();
                if let Some(name) =
                    PgStore::ensure_database(&s.database_url, s.ca_file.as_deref()).await?
                {
                    done.push(format!("created database {name}"));
                }
                let applied = PgStore::open(&postgres(s)).await?.migrate().await?;
                done.extend(applied.into_iter().map(|m| format!("applied {m}")));
                Ok(done)
            }
        }
    }
}

/// Every stream a non-critical delivery may wait in: each configured
/// tenant of each provider, with each handler that takes that tenant's
/// events (its `events` may still refuse them all: such a stream stays
/// empty, and leasing from it costs one short script).
pub fn stream_lanes(settings: &Settings) -> Vec<StreamLane> {
    let mut lanes = Vec::new();
    for (provider, p) in &settings.providers {
        for tenant in p.tenants.keys() {
            for (handler, h) in &settings.handlers {
                if h.tenants.is_match(tenant) {
                    lanes.push(StreamLane {
                        provider: provider.clone(),
                        tenant: tenant.clone(),
                        handler: handler.clone(),
                    });
                }
            }
        }
    }
    lanes
}
