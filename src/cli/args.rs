//! What several commands take: the configuration file.

use std::path::PathBuf;

use crate::config::{self, Settings};

#[derive(clap::Args)]
pub(super) struct ConfigArg {
    /// Configuration file (TOML).
    #[arg(long, env = "HOOKLINE_CONFIG")]
    pub config: PathBuf,
}

impl ConfigArg {
    /// The validated settings; every problem in the error.
    pub fn load(&self) -> anyhow::Result<Settings> {
        config::load(&self.config).map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The configured store, connected, reading the Redis Streams lanes
    /// the configuration gives (`store.non_critical_deliveries = "redis"`).
    pub async fn store(&self) -> anyhow::Result<crate::store::Store> {
        let settings = self.load()?;
        let store = crate::store::Store::connect(&settings.store).await?;
        Ok(store.with_lanes(|| crate::store::stream_lanes(&settings)))
    }
}
