//! The process's Redis connections, single server or cluster, behind one
//! type that the scripts run on.
//!
//! The connection is made lazily and re-made on demand: the receiver starts
//! (and answers 503 + `Retry-After`, `/readyz` says unavailable) while Redis
//! is unreachable, and recovers by itself when Redis is back.
//!
//! A connection's I/O runs as a task on the runtime that made it. The
//! HTTP workers each run a single-threaded runtime of their own, so a
//! request that used the process's connection would hand every command to
//! another thread and be woken back from it: two thread switches a round
//! trip. On a single server, a thread whose runtime is single-threaded
//! therefore gets its own connection, made and driven there; every other
//! caller shares one. (A cluster connection keeps one: it holds a socket
//! per node and re-routes by itself.)

use std::cell::{Cell, RefCell};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, Pipeline, RedisFuture, Value};
use secrecy::ExposeSecret;
use tokio::runtime::{Handle, RuntimeFlavor};
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
    Single(Box<Single>),
    Cluster(ClusterConnection),
}

/// A single server's connection, and its handle's count of connections
/// found broken (see [`RedisConn::get`]).
#[derive(Clone)]
pub struct Single {
    conn: ConnectionManager,
    broken: Arc<AtomicU64>,
}

/// `reply`, counting a broken connection (an error after which the
/// manager reconnects) in `broken`.
fn counted<'a, T: Send + 'a>(
    broken: &'a AtomicU64,
    reply: RedisFuture<'a, T>,
) -> RedisFuture<'a, T> {
    Box::pin(async move {
        let reply = reply.await;
        if reply
            .as_ref()
            .is_err_and(redis::RedisError::is_unrecoverable_error)
        {
            broken.fetch_add(1, Ordering::Relaxed);
        }
        reply
    })
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => {
                let Single { conn, broken } = &mut **c;
                counted(broken, conn.req_packed_command(cmd))
            }
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
            Conn::Single(c) => {
                let Single { conn, broken } = &mut **c;
                counted(broken, conn.req_packed_commands(cmd, offset, count))
            }
            Conn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.conn.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// The process's Redis handle: made once, connected on first use.
#[derive(Clone)]
pub struct RedisConn {
    target: Arc<Target>,
    /// The process's connection, and the count of broken ones when its
    /// cell was made.
    shared: Arc<Mutex<(u64, Arc<OnceCell<Conn>>)>>,
    /// How many times a connection of this handle was found broken.
    broken: Arc<AtomicU64>,
    /// This handle's number among the process's: its key in [`LOCAL`].
    id: u64,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A thread's own connection of one handle: the handle's number, its count
/// of broken connections when it was made, the connection.
type Local = (u64, u64, Conn);

thread_local! {
    /// The connections made on this thread's single-threaded runtime; they
    /// go with the thread.
    static LOCAL: RefCell<Vec<Local>> = const { RefCell::new(Vec::new()) };
    /// Whether one of them is being made: one attempt per thread at a time,
    /// so an unreachable Redis sees no more attempts than before.
    static CONNECTING: Cell<bool> = const { Cell::new(false) };
}

fn on_single_threaded_runtime() -> bool {
    Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::CurrentThread)
}

/// Clears [`CONNECTING`] however the attempt ends (a cancelled request too).
struct Connecting;

impl Drop for Connecting {
    fn drop(&mut self) {
        CONNECTING.with(|c| c.set(false));
    }
}

impl fmt::Debug for RedisConn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the URL: it may carry a password.
        let kind = match *self.target {
            Target::Single(..) => "single",
            Target::Cluster(_) => "cluster",
        };
        let connected = match self.shared.lock() {
            Ok(shared) => shared.1.initialized(),
            Err(_) => false,
        };
        f.debug_struct("RedisConn")
            .field("kind", &kind)
            .field("connected", &connected)
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
            shared: Arc::new(Mutex::new((0, Arc::new(OnceCell::new())))),
            broken: Arc::new(AtomicU64::new(0)),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The connection, connecting first if needed: on a single server,
    /// this thread's own on a single-threaded runtime (the module's note),
    /// else the process's. A failed or cancelled attempt leaves nothing
    /// behind, so the next call tries again.
    ///
    /// When one connection is found broken (Redis restarted, say), every
    /// connection of the handle made before it is replaced on its next
    /// use, without being tried: a restart costs the one request that
    /// found it, not one per thread.
    pub async fn get(&self) -> Result<Conn, StoreError> {
        if !matches!(*self.target, Target::Single(..)) || !on_single_threaded_runtime() {
            return self.shared().await;
        }
        let broken = self.broken.load(Ordering::Relaxed);
        let mine = LOCAL.with(|l| {
            let mut l = l.borrow_mut();
            let at = l.iter().position(|e| e.0 == self.id)?;
            if l[at].1 == broken {
                return Some(l[at].2.clone());
            }
            l.swap_remove(at);
            None
        });
        if let Some(conn) = mine {
            return Ok(conn);
        }
        // Another request on this thread is connecting: share the
        // process's connection meanwhile.
        if CONNECTING.with(|c| c.replace(true)) {
            return self.shared().await;
        }
        let connecting = Connecting;
        let conn = self.connect().await.map_err(StoreError::redis("connect"))?;
        drop(connecting);
        LOCAL.with(|l| l.borrow_mut().push((self.id, broken, conn.clone())));
        Ok(conn)
    }

    /// The process's connection. Concurrent callers share one attempt.
    async fn shared(&self) -> Result<Conn, StoreError> {
        let cell = self.shared_cell();
        let conn = cell
            .get_or_try_init(|| self.connect())
            .await
            .map_err(StoreError::redis("connect"))?;
        Ok(conn.clone())
    }

    /// The process's connection's cell: a new, empty one if a connection
    /// was found broken since it was made.
    fn shared_cell(&self) -> Arc<OnceCell<Conn>> {
        let broken = self.broken.load(Ordering::Relaxed);
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        if shared.0 != broken {
            *shared = (broken, Arc::new(OnceCell::new()));
        }
        shared.1.clone()
    }

    /// A new connection; its I/O task runs on the calling runtime.
    async fn connect(&self) -> redis::RedisResult<Conn> {
        match &*self.target {
            Target::Single(client, config) => {
                ConnectionManager::new_with_config(client.clone(), config.clone())
                    .await
                    .map(|conn| {
                        let broken = self.broken.clone();
                        Conn::Single(Box::new(Single { conn, broken }))
                    })
            }
            Target::Cluster(client) => client.get_async_connection().await.map(Conn::Cluster),
        }
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
