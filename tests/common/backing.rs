//! The Redis and PostgreSQL a test's store lives in: the shared servers'
//! URLs, a database of the test's own, the cluster the `cluster` variants
//! use, and the clean-up that leaves nothing behind in the shared Redis.

use hookline::config::Settings;

use super::{servers, Backend};

/// The Redis Cluster the `cluster` variants run against:
/// `HOOKLINE_TEST_REDIS_CLUSTER` (comma-separated node URLs, started once
/// for the whole run by scripts/test), or else one of the test's own, whose
/// guard the caller keeps alive for the test.
pub fn cluster_urls() -> (Vec<String>, Option<servers::RedisCluster>) {
    if let Ok(v) = std::env::var("HOOKLINE_TEST_REDIS_CLUSTER") {
        return (v.split(',').map(str::to_owned).collect(), None);
    }
    let own = servers::RedisCluster::start();
    (own.urls(), Some(own))
}

/// What a test's store needs kept alive, and cleaned up after it.
#[derive(Default)]
pub struct StoreGuard {
    pub db: Option<TestDatabase>,
    pub cluster: Option<servers::RedisCluster>,
}

pub fn redis_url() -> String {
    std::env::var("HOOKLINE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/0".into())
}

/// A connection to the shared Redis ([`redis_url`]), for looking at what a
/// test's node wrote there.
#[allow(dead_code)]
pub async fn redis_conn() -> redis::aio::MultiplexedConnection {
    redis::Client::open(redis_url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// PostgreSQL server the tests create their databases on.
pub fn postgres_admin_url() -> String {
    std::env::var("HOOKLINE_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A database created for one test and dropped after it.
pub struct TestDatabase {
    pub name: String,
    pub url: String,
}

impl TestDatabase {
    pub async fn create() -> Self {
        use sqlx::Connection;
        let admin = postgres_admin_url();
        let name = format!("hookline_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::PgConnection::connect(&admin)
            .await
            .expect("connect to PostgreSQL");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut conn)
            .await
            .expect("create test database");
        let mut url = url::Url::parse(&admin).unwrap();
        url.set_path(&name);
        TestDatabase {
            name,
            url: url.to_string(),
        }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop runs outside any runtime guarantee: use a thread of its own.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                use sqlx::Connection;
                if let Ok(mut conn) = sqlx::PgConnection::connect(&postgres_admin_url()).await {
                    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&mut conn)
                        .await;
                }
            })
        })
        .join();
    }
}

/// Delete a test's keys from a single Redis (they would otherwise linger
/// for the test window; a cluster lives for one run only). Best effort and
/// bounded: the server may be stopped, frozen or a black hole by now.
pub fn drop_keys(settings: &Settings, backend: Backend) {
    use secrecy::ExposeSecret;
    let Some(store) = settings.store.redis() else {
        return;
    };
    let Some(url) = store
        .redis_url
        .as_ref()
        .map(|u| u.expose_secret().to_owned())
    else {
        return;
    };
    if !matches!(backend, Backend::Redis | Backend::Streams) || url.starts_with("redis+cluster://")
    {
        return;
    }
    let pattern = format!("{}:*", store.key_prefix);
    let limit = std::time::Duration::from_millis(300);
    let clean = move || -> redis::RedisResult<()> {
        let mut conn = redis::Client::open(url.as_str())?.get_connection_with_timeout(limit)?;
        conn.set_read_timeout(Some(limit))?;
        conn.set_write_timeout(Some(limit))?;
        // KEYS, not SCAN: a test Redis with a small keyspace.
        // Bytes: body keys end in a binary digest.
        let keys: Vec<Vec<u8>> = redis::cmd("KEYS").arg(&pattern).query(&mut conn)?;
        if !keys.is_empty() {
            redis::cmd("DEL").arg(keys).exec(&mut conn)?;
        }
        Ok(())
    };
    // On a thread of its own, waited for at most a second: the client's
    // connection handshake has no timeout, and a black hole never answers
    // it. A thread left hanging ends with the test process.
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(clean());
    });
    let _ = wait.recv_timeout(std::time::Duration::from_secs(1));
}
