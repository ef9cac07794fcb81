//! Choosing and opening the backend from the configuration: the one place
//! that reads [`StoreSettings`]. Each backend takes options of its own.

use std::sync::Arc;

use super::{
    EmbeddedOptions, EmbeddedStore, OpenError, PgOptions, PgStore, RedisDedup, RedisOptions,
    RedisPg, Store,
};
use crate::config::{EmbeddedStoreSettings, RedisStoreSettings, StoreSettings};

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
                Ok(Store::new(store.clone(), store, s.timeout))
            }
            StoreSettings::Redis(s) => {
                let pg = PgStore::open(&postgres(s)).await?;
                pg.check_schema().await?;
                let dedup = RedisDedup::new(&redis(s))?;
                dedup.try_connect(s.timeout).await;
                let ingest = Arc::new(RedisPg::new(dedup, pg.clone()));
                Ok(Store::new(ingest, Arc::new(pg), s.timeout))
            }
        }
    }

    /// Apply pending migrations to the configured stores (Redis has no
    /// schema; opening the embedded file migrates it).
    pub async fn migrate(settings: &StoreSettings) -> Result<(), OpenError> {
        match settings {
            StoreSettings::Embedded(s) => EmbeddedStore::open(&embedded(s)).await.map(|_| ()),
            StoreSettings::Redis(s) => PgStore::open(&postgres(s)).await?.migrate().await,
        }
    }
}
