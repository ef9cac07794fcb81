//! Servers of a test's own, for fault injection: a `redis-server`, a Redis
//! Cluster, a PostgreSQL cluster, a TCP black hole. Each is a guard that
//! stops its processes when dropped, so a failing test leaves nothing
//! running. The shared Redis and PostgreSQL are never stopped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{providers_toml, Backend, TestApp, TestDatabase};

/// A port nobody listens on right now (bind port 0, read it, let it go).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A free port for a Redis Cluster node: its cluster bus listens 10,000
/// ports higher, so the port must be at most 55535 (redis-server refuses to
/// start otherwise) and the bus's port free too. Ephemeral ports reach
/// 60999, so a fifth of `free_port`'s answers would not do.
pub fn cluster_node_port() -> u16 {
    loop {
        let port = free_port();
        if port <= 55535 && TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return port;
        }
    }
}

fn wait_until(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "{what} not ready after {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn redis_cli(port: u16, args: &[&str]) -> Option<String> {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Send a signal by number to a child (no libc in the dev-dependencies).
fn signal(child: &Child, sig: &str) {
    let _ = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status();
}

/// One `redis-server` without persistence: stopping and starting it again
/// on the same port is "Redis restarted empty".
pub struct RedisServer {
    pub port: u16,
    dir: tempfile::TempDir,
    extra: Vec<String>,
    child: Option<Child>,
}

impl RedisServer {
    pub fn start() -> Self {
        Self::start_with(free_port(), &[])
    }

    pub fn start_with(port: u16, extra: &[&str]) -> Self {
        let mut s = RedisServer {
            port,
            dir: tempfile::tempdir().unwrap(),
            extra: extra.iter().map(|s| s.to_string()).collect(),
            child: None,
        };
        s.restart();
        s
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Start (again) on the same port, empty.
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        self.child = Some(child);
        let port = self.port;
        wait_until("redis-server", Duration::from_secs(10), || {
            redis_cli(port, &["PING"]).is_some_and(|o| o.trim() == "PONG")
        });
    }

    /// Kill it (SIGKILL: no shutdown save, like a crash).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freeze it: connections stay open and new ones are accepted by the
    /// kernel, but nothing answers (a hung server).
    pub fn pause(&self) {
        if let Some(c) = &self.child {
            signal(c, "-STOP");
        }
    }

    pub fn resume(&self) {
        if let Some(c) = &self.child {
            signal(c, "-CONT");
        }
    }

    /// Run a command with redis-cli.
    pub fn cli(&self, args: &[&str]) -> String {
        redis_cli(self.port, args).expect("redis-cli")
    }

    /// Run a command over a connection: binary-safe (dedup keys are
    /// binary), unlike `cli`.
    #[allow(dead_code)]
    pub async fn cmd<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> T {
        let mut conn = redis::Client::open(self.url())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap();
        cmd.query_async(&mut conn).await.unwrap()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        // SIGKILL also ends a stopped (paused) process.
        self.stop();
    }
}

/// A 3-master Redis Cluster on free ports.
pub struct RedisCluster {
    pub nodes: Vec<RedisServer>,
}

impl RedisCluster {
    pub fn start() -> Self {
        let nodes: Vec<RedisServer> = (0..3)
            .map(|_| {
                let port = cluster_node_port();
                RedisServer::start_with(
                    port,
                    &[
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        // Relative to --dir, which is the node's own temp dir.
                        "nodes.conf",
                        "--cluster-node-timeout",
                        "2000",
                    ],
                )
            })
            .collect();
        let addrs: Vec<String> = nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        let status = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addrs)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("redis-cli --cluster create");
        assert!(status.success(), "cluster create failed");
        for n in &nodes {
            wait_until("cluster_state:ok", Duration::from_secs(15), || {
                redis_cli(n.port, &["CLUSTER", "INFO"])
                    .is_some_and(|o| o.contains("cluster_state:ok"))
            });
        }
        RedisCluster { nodes }
    }

    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }
}

/// A PostgreSQL cluster of the test's own (initdb + pg_ctl), run as the
/// `postgres` OS user because PostgreSQL refuses to run as root.
pub struct PgServer {
    pub port: u16,
    dir: tempfile::TempDir,
    running: bool,
    /// Extra `postgres -c` settings, e.g. `ssl=on`.
    settings: Vec<String>,
}

fn as_postgres(program: &str) -> Command {
    let bin = Path::new("/usr/lib/postgresql/15/bin").join(program);
    let bin = if bin.exists() {
        bin
    } else {
        PathBuf::from(program)
    };
    let mut cmd = Command::new("runuser");
    cmd.args(["-u", "postgres", "--"]).arg(bin);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    cmd
}

impl PgServer {
    pub fn start() -> Self {
        Self::start_with(|_| Vec::new())
    }

    /// Start with extra `-c name=value` settings, made by `settings` from
    /// the cluster's directory (where it may first write files it needs,
    /// such as certificates; they are handed to the server's user).
    pub fn start_with(settings: impl FnOnce(&Path) -> Vec<String>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        // The data directory must belong to the server's user.
        let status = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "chown");
        let status = as_postgres("initdb")
            .arg("-D")
            .arg(dir.path().join("data"))
            // No fsync: this cluster lives for one test.
            .args(["--auth=trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
            .status()
            .expect("initdb");
        assert!(status.success(), "initdb failed");
        let mut s = PgServer {
            port: free_port(),
            dir,
            running: false,
            settings,
        };
        s.restart();
        s
    }

    /// Admin URL of the `postgres` database on this cluster.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Start (again) on the same port, keeping the data.
    pub fn restart(&mut self) {
        self.stop();
        let mut opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        for setting in &self.settings {
            opts.push_str(&format!(" -c {setting}"));
        }
        let status = as_postgres("pg_ctl")
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .arg("-l")
            .arg(self.dir.path().join("log"))
            .args(["-o", &opts, "-w", "-t", "30", "start"])
            .status()
            .expect("pg_ctl start");
        assert!(status.success(), "pg_ctl start failed");
        self.running = true;
    }

    /// Stop now (`immediate`: like a crash, no checkpoint).
    pub fn stop(&mut self) {
        if !self.running {
            return;
        }
        let _ = as_postgres("pg_ctl")
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .status();
        self.running = false;
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A TCP listener that accepts connections and never answers: a hung
/// server, as seen from a client.
pub struct BlackHole {
    pub port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl BlackHole {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            // Keep every socket open: a closed one would be an answer.
            let mut held = Vec::new();
            while let Ok((sock, _)) = listener.accept().await {
                held.push(sock);
            }
        });
        BlackHole { port, task }
    }
}

impl Drop for BlackHole {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Config text with the given `[store]` section and `critical` globs for
/// every route (the shared suite makes everything critical).
pub fn config_text(store: &str, critical: &str, in_progress_ttl: &str) -> String {
    let providers =
        providers_toml().replace("critical = [\"*\"]", &format!("critical = {critical}"));
    super::render_config(store, 64 * 1024, in_progress_ttl, &providers, "")
}

/// A `[store]` section for the redis kind. `redis` is either
/// `redis_url = "..."` or `redis_cluster = [...]`.
pub fn redis_store_section(redis: &str, database_url: &str, prefix: &str, timeout: &str) -> String {
    format!(
        "[store]\nkind = \"redis\"\n{redis}\ndatabase_url = \"{database_url}\"\nkey_prefix = \"{prefix}\"\ntimeout = \"{timeout}\"\n"
    )
}

/// A fresh key prefix.
pub fn prefix() -> String {
    format!("t{}", uuid::Uuid::new_v4().simple())
}

/// Migrate, connect and serve `text` (a redis-store config) on a random port.
pub async fn spawn_from_text(text: &str, db: Option<TestDatabase>) -> TestApp {
    let guard = super::StoreGuard { db, cluster: None };
    super::spawn_text(
        text.to_owned(),
        Backend::Redis,
        guard,
        tempfile::tempdir().unwrap(),
    )
    .await
}
