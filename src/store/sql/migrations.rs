//! Applying a backend's embedded migrations, and saying which ones were
//! applied now (`hookline migrate` prints them, on either store).

use sqlx::migrate::{Migrate, Migrator};
use sqlx::{Database, Pool};

use crate::store::OpenError;

/// Run `migrator` on `pool`; the migrations applied now, as `VERSION
/// description` (four digits), in order.
pub(crate) async fn apply<DB>(
    migrator: &Migrator,
    pool: &Pool<DB>,
) -> Result<Vec<String>, OpenError>
where
    DB: Database,
    DB::Connection: Migrate,
{
    // Under the migrator's lock, as its own run takes it: two processes
    // migrating a new database at once must not both create the table.
    let before: Vec<i64> = {
        let mut conn = pool
            .acquire()
            .await
            .map_err(OpenError::connect("database for its migrations"))?;
        conn.lock().await?;
        let listed = match conn.ensure_migrations_table().await {
            Ok(()) => conn.list_applied_migrations().await,
            Err(e) => Err(e),
        };
        conn.unlock().await?;
        listed?.into_iter().map(|m| m.version).collect()
    };
    migrator.run(pool).await?;
    Ok(migrator
        .iter()
        .filter(|m| m.migration_type.is_up_migration() && !before.contains(&m.version))
        .map(|m| format!("{:04} {}", m.version, m.description))
        .collect())
}
