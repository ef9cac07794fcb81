//! What several commands take: the configuration file, and a key to sign
//! with.

use std::path::{Path, PathBuf};

use secrecy::{ExposeSecret, SecretString};

use crate::config::{self, Settings};
use crate::provider::{Key, ProviderDef};

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

/// A usage error when `--secret` and `--private-key` are both on the
/// command line; a secret from `HOOKLINE_SIGN_SECRET` gives way to the key.
pub(super) fn both_keys(
    secret: &Option<SecretString>,
    from_env: FromEnv,
    private_key: &Option<PathBuf>,
) -> Option<&'static str> {
    (secret.is_some() && !from_env.secret && private_key.is_some())
        .then_some("give --secret or --private-key, not both")
}

/// The key `--private-key` or `--secret` gives for `def`, if any. The
/// private key's file wins: only the command line names one, where the
/// secret may be `HOOKLINE_SIGN_SECRET`'s, set for other commands (so the
/// two do not conflict, as they would if clap decided).
pub(super) fn signing_key(
    def: &ProviderDef,
    secret: Option<&SecretString>,
    private_key: Option<&Path>,
) -> anyhow::Result<Option<Key>> {
    if let Some(path) = private_key {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("--private-key {}: {e}", path.display()))?;
        let key = def
            .decode_private_key(&text)
            .map_err(|e| anyhow::anyhow!("--private-key {}: {e}", path.display()))?;
        return Ok(Some(key));
    }
    secret
        .map(|s| def.decode_secret(s.expose_secret()))
        .transpose()
        .map_err(|e| anyhow::anyhow!("--secret: {e}"))
}

/// `replay --concurrency`: at least one request in flight, and not so many
/// that the receiver's connection limit, not the test, decides.
pub(super) fn concurrency(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n @ 1..=10_000) => Ok(n),
        _ => Err("a whole number from 1 to 10000".into()),
    }
}

/// `replay --rate`: requests per second, finite and within what a pace of
/// whole nanoseconds can keep (0 would never send).
pub(super) fn rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if (0.001..=1_000_000.0).contains(&r) => Ok(r),
        _ => Err("requests per second, from 0.001 to 1000000".into()),
    }
}

/// Which of a command's values came from the environment: `--config`
/// from `HOOKLINE_CONFIG`, `--secret` from `HOOKLINE_SIGN_SECRET`.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct FromEnv {
    pub config: bool,
    pub secret: bool,
}

impl FromEnv {
    /// Read from a command's matches. An argument the command does not
    /// take is not from the environment: asked first with `try_get_raw`,
    /// since `value_source` panics (in debug builds) on an unknown ID.
    pub fn of(matches: &clap::ArgMatches) -> FromEnv {
        let env = |id: &str| {
            matches!(matches.try_get_raw(id), Ok(Some(_)))
                && matches.value_source(id) == Some(clap::parser::ValueSource::EnvVariable)
        };
        FromEnv {
            config: env("config"),
            secret: env("secret"),
        }
    }
}
