//! Secrets handed over by a provider's handshake (`handshake_secret`),
//! in both dialects: one per provider and tenant, kept first-come until an
//! operator resets it.

use async_trait::async_trait;
use secrecy::SecretString;
use sqlx::{Encode, Executor, FromRow, IntoArguments, Type};

use super::{Dialect, Tables};
use crate::ids::{ProviderName, TenantName};
use crate::store::records::HandshakeSecrets;
use crate::store::StoreError;

#[async_trait]
impl<DB> HandshakeSecrets for Tables<DB>
where
    DB: Dialect,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> &'q str: Encode<'q, DB> + Type<DB>,
    (String,): for<'r> FromRow<'r, DB::Row>,
{
    /// The secret stored for this provider and tenant, if any.
    async fn handshake_secret(
        &self,
        provider: &ProviderName,
        tenant: &TenantName,
    ) -> Result<Option<SecretString>, StoreError> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT secret FROM handshake_secret WHERE provider = $1 AND tenant = $2",
        )
        .bind(provider.as_str())
        .bind(tenant.as_str())
        .fetch_optional(&self.pool)
        .await
        .map_err(StoreError::sqlx("handshake"))?;
        Ok(row.map(|(s,)| SecretString::from(s)))
    }

    /// Store `secret` unless one is stored already (first come, in one
    /// statement); whether it was.
    async fn keep_handshake_secret(
        &self,
        provider: &ProviderName,
        tenant: &TenantName,
        secret: &str,
    ) -> Result<bool, StoreError> {
        let statement = format!(
            "INSERT INTO handshake_secret (provider, tenant, secret, stored_ms)
             VALUES ($1, $2, $3, {now})
             ON CONFLICT (provider, tenant) DO NOTHING",
            now = DB::NOW_MS,
        );
        let done = sqlx::query(&statement)
            .bind(provider.as_str())
            .bind(tenant.as_str())
            .bind(secret)
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("handshake"))?;
        Ok(DB::rows_affected(&done) == 1)
    }

    /// Forget the stored secret, so the next handshake is accepted;
    /// whether there was one.
    async fn reset_handshake_secret(
        &self,
        provider: &ProviderName,
        tenant: &TenantName,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM handshake_secret WHERE provider = $1 AND tenant = $2")
            .bind(provider.as_str())
            .bind(tenant.as_str())
            .execute(&self.pool)
            .await
            .map_err(StoreError::sqlx("handshake"))?;
        Ok(DB::rows_affected(&done) == 1)
    }
}
