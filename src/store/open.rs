//! Choosing and opening the backend from the configuration: the one place
//! that reads [`StoreSettings`]. Each backend takes options of its own.

use std::sync::Arc;

use super::{
    EmbeddedOptions, EmbeddedStore, OpenError, PgOptions, PgStore, RedisDedup, RedisOptions,
    RedisPg, Store,
};
use crate::config::{StoreKind, StoreSettings};

fn embedded(s: &StoreSettings) -> EmbeddedOptions {
    EmbeddedOptions {
        path: s.path.clone(),
        timeout: s.timeout,
    }
}

fn postgres(s: &StoreSettings) -> PgOptions {
    PgOptions {
        url: s.database_url.clone(),
        pool_size: s.pool_size,
        write_concurrency: s.write_concurrency,
        timeout: s.timeout,
    }
}

fn redis(s: &StoreSettings) -> RedisOptions {
    RedisOptions {
        url: s.redis_url.clone(),
        cluster: s.redis_cluster.clone(),
        key_prefix: s.key_prefix.clone(),
        timeout: s.timeout,
    }
}

impl Store {
    /// Connect to the configured stores. The embedded store creates and
    /// migrates its file; the redis store refuses a PostgreSQL schema that
    /// is behind (`hookline migrate` applies it), and starts while Redis is
    /// down (it reconnects on demand).
    pub async fn connect(settings: &StoreSettings) -> Result<Store, OpenError> {
        match settings.kind {
            StoreKind::Embedded => {
                let store = Arc::new(EmbeddedStore::open(&embedded(settings)).await?);
                Ok(Store::new(store.clone(), store, settings.timeout))
            }
            StoreKind::Redis => {
                let pg = PgStore::open(&postgres(settings)).await?;
                pg.check_schema().await?;
                let dedup = RedisDedup::new(&redis(settings))?;
                dedup.try_connect(settings.timeout).await;
                let ingest = Arc::new(RedisPg::new(dedup, pg.clone()));
                Ok(Store::new(ingest, Arc::new(pg), settings.timeout))
            }
        }
    }

    /// Apply pending migrations to the configured stores (Redis has no
    /// schema; opening the embedded file migrates it).
    pub async fn migrate(settings: &StoreSettings) -> Result<(), OpenError> {
        match settings.kind {
            StoreKind::Embedded => EmbeddedStore::open(&embedded(settings)).await.map(|_| ()),
            StoreKind::Redis => PgStore::open(&postgres(settings)).await?.migrate().await,
        }
    }
}
