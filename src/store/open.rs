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
                Ok(Store::new(store.clone(), store, s.timeout).with_database("SQLite"))
            }
            StoreSettings::Redis(s) => {
                let pg = PgStore::open(&postgres(s)).await?;
                pg.check_schema().await?;
                pg.keep_statistics();
                let dedup = RedisDedup::new(&redis(s))?;
                dedup.try_connect(s.timeout).await;
                let ingest = Arc::new(RedisPg::new(dedup, pg.clone()));
                Ok(Store::new(ingest, Arc::new(pg), s.timeout).with_database("PostgreSQL"))
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
                EmbeddedStore::open(&embedded(s)).await?;
                Ok(vec![format!(
                    "embedded store {} is up to date",
                    s.path.display()
                )])
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
