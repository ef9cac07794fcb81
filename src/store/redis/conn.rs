//! One Redis connection for the whole process, single server or cluster,
//! behind one type that the scripts run on.
//!
//! The connection is made lazily and re-made on demand: the receiver starts
//! (and answers 503 + `Retry-After`, `/readyz` says unavailable) while Redis
//! is unreachable, and recovers by itself when Redis is back.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, Pipeline, RedisFuture, Value};
use secrecy::ExposeSecret;
use tokio::sync::OnceCell;

use super::RedisOptions;
use crate::store::{OpenError, StoreError};

/// The scheme that selects Redis Cluster from `store.redis_url`.
const CLUSTER_SCHEME: &str = "redis+cluster://";

/// How to reach Redis; holds the (secret-bearing) URLs, so no `Debug`.
enum Target {
    Single(redis::Client, ConnectionManagerConfig),
    Cluster(ClusterClient),
}

/// A live connection. Both kinds multiplex every request over shared
/// sockets and are cheap to clone.
#[derive(Clone)]
pub enum Conn {
    // Boxed: the manager is ~240 bytes, the cluster handle 16.
    Single(Box<ConnectionManager>),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        cmd: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(cmd, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// The process's Redis handle: made once, connected on first use.
#[derive(Clone)]
pub struct RedisConn {
    target: Arc<Target>,
    conn: Arc<OnceCell<Conn>>,
}

impl fmt::Debug for RedisConn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the URL: it may carry a password.
        let kind = match *self.target {
            Target::Single(..) => "single",
            Target::Cluster(_) => "cluster",
        };
        f.debug_struct("RedisConn")
            .field("kind", &kind)
            .field("connected", &self.conn.initialized())
            .finish()
    }
}

fn bad_url() -> OpenError {
    // The parser's message could quote the URL; say which key is wrong only.
    OpenError::Setting {
        key: "store.redis_url / store.redis_cluster",
        reason: "not a valid Redis URL",
    }
}

/// `redis+cluster://` is our spelling; the client only knows `redis://`.
fn client_url(url: &str) -> (String, bool) {
    match url.strip_prefix(CLUSTER_SCHEME) {
        Some(rest) => (format!("redis://{rest}"), true),
        None => (url.to_owned(), false),
    }
}

impl RedisConn {
    /// Build the client from the settings; does not connect.
    pub fn new(opts: &RedisOptions) -> Result<Self, OpenError> {
        let timeout = opts.timeout;
        let roots = root_certificates(opts)?;
        let target = if !opts.cluster.is_empty() {
            let nodes: Vec<String> = opts
                .cluster
                .iter()
                .map(|u| client_url(u.expose_secret()).0)
                .collect();
            Target::Cluster(cluster_client(nodes, timeout, &roots)?)
        } else {
            let url = opts.url.as_ref().ok_or_else(bad_url)?;
            match client_url(url.expose_secret()) {
                (url, true) => Target::Cluster(cluster_client(vec![url], timeout, &roots)?),
                (url, false) => {
                    let client = match &roots {
                        // `rediss://` then trusts these roots as well as
                        // the platform's.
                        Some(root) if url.starts_with("rediss://") => {
                            redis::Client::build_with_tls(url, tls_certificates(root))
                        }
                        _ => redis::Client::open(url),
                    }
                    .map_err(|_| bad_url())?;
                    let config = ConnectionManagerConfig::new()
                        // A hung server answers nothing: time both the
                        // connect and every reply out.
                        .set_connection_timeout(timeout)
                        .set_response_timeout(timeout)
                        // One attempt per (re)connect, no backoff sleeps:
                        // the next request triggers the next attempt, so
                        // the receiver notices a restarted Redis at once.
                        .set_number_of_retries(0);
                    Target::Single(client, config)
                }
            }
        };
        Ok(RedisConn {
            target: Arc::new(target),
            conn: Arc::new(OnceCell::new()),
        })
    }

    /// The connection, connecting first if needed. Concurrent callers share
    /// one attempt; a failed or cancelled attempt leaves the cell empty so
    /// the next call tries again.
    pub async fn get(&self) -> Result<Conn, StoreError> {
        let conn = self
            .conn
            .get_or_try_init(|| async {
                match &*self.target {
                    Target::Single(client, config) => {
                        ConnectionManager::new_with_config(client.clone(), config.clone())
                            .await
                            .map(|c| Conn::Single(Box::new(c)))
                    }
                    Target::Cluster(client) => {
                        client.get_async_connection().await.map(Conn::Cluster)
                    }
                }
            })
            .await
            .map_err(StoreError::redis("connect"))?;
        Ok(conn.clone())
    }
}

/// `[tls] ca_file` as PEM, for `rediss://` connections.
fn root_certificates(opts: &RedisOptions) -> Result<Option<Vec<u8>>, OpenError> {
    opts.ca_file
        .as_ref()
        .map(|path| {
            std::fs::read(path).map_err(|_| OpenError::Setting {
                key: "tls.ca_file",
                reason: "cannot be read",
            })
        })
        .transpose()
}

fn tls_certificates(root: &[u8]) -> redis::TlsCertificates {
    redis::TlsCertificates {
        client_tls: None,
        root_cert: Some(root.to_vec()),
    }
}

fn cluster_client(
    nodes: Vec<String>,
    timeout: Duration,
    roots: &Option<Vec<u8>>,
) -> Result<ClusterClient, OpenError> {
    // Only TLS nodes take certificates: `certs` turns TLS on.
    let tls = nodes.iter().any(|n| n.starts_with("rediss://"));
    let mut builder = ClusterClient::builder(nodes);
    if let (Some(root), true) = (roots, tls) {
        builder = builder.certs(tls_certificates(root));
    }
    builder
        .connection_timeout(timeout)
        .response_timeout(timeout)
        // Redirections and failovers are retried inside the client; keep
        // that short so a dead node costs a 503, not the whole timeout.
        .retries(2)
        .build()
        .map_err(|_| bad_url())
}
