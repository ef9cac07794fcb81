//! Brokers of a test's own, for tests that stop and restart one: a
//! `nats-server -js` and a `rabbitmq-server` (its own node name, ports,
//! data and log directories) on free ports with temp stores, from the same
//! Debian packages as the shared ones, which they never touch. `kill`
//! is SIGKILL; `restart` starts the same server on the same port and data.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::procs::free_port;

fn answers(port: u16) -> bool {
    std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
}

async fn wait_until(what: &str, within: Duration, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !ok() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A private `nats-server` with JetStream.
pub struct PrivateNats {
    pub port: u16,
    dir: tempfile::TempDir,
    /// More arguments (TLS).
    extra: Vec<String>,
    child: Option<Child>,
}

impl PrivateNats {
    pub async fn start() -> PrivateNats {
        PrivateNats::start_with(Vec::new()).await
    }

    /// With more `nats-server` arguments.
    pub async fn start_with(extra: Vec<String>) -> PrivateNats {
        let mut n = PrivateNats {
            port: free_port(),
            dir: tempfile::tempdir().unwrap(),
            extra,
            child: None,
        };
        n.restart().await;
        n
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Start (again) on the same port and store directory.
    pub async fn restart(&mut self) {
        assert!(self.child.is_none(), "already running");
        let child = Command::new("nats-server")
            .args([
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-sd",
            ])
            .arg(self.dir.path())
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server (Debian package nats-server)");
        self.child = Some(child);
        let port = self.port;
        wait_until(
            "the private nats-server answers",
            Duration::from_secs(30),
            || answers(port),
        )
        .await;
    }

    /// SIGKILL: the server gets no chance to say goodbye.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for PrivateNats {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A private Mosquitto with the `mosquitto.conf` lines given (after its
/// `listener`).
pub struct PrivateMosquitto {
    pub port: u16,
    _dir: tempfile::TempDir,
    child: Child,
}

impl PrivateMosquitto {
    pub async fn start(conf: &str) -> PrivateMosquitto {
        let port = free_port();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mosquitto.conf");
        // As root it would switch to the mosquitto user, who cannot read
        // the test's files.
        std::fs::write(
            &file,
            format!("user root\nlistener {port} 127.0.0.1\nallow_anonymous true\n{conf}\n"),
        )
        .unwrap();
        let child = Command::new("mosquitto")
            .arg("-c")
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mosquitto (Debian package mosquitto)");
        wait_until(
            "the private mosquitto answers",
            Duration::from_secs(30),
            || answers(port),
        )
        .await;
        PrivateMosquitto {
            port,
            _dir: dir,
            child,
        }
    }
}

impl Drop for PrivateMosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A private RabbitMQ node: `guest` may connect from localhost.
pub struct PrivateRabbit {
    pub port: u16,
    dist_port: u16,
    node: String,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl PrivateRabbit {
    pub async fn start() -> PrivateRabbit {
        let port = free_port();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::write(
            dir.path().join("rabbitmq.conf"),
            format!("listeners.tcp.default = 127.0.0.1:{port}\nloopback_users = none\n"),
        )
        .unwrap();
        let mut r = PrivateRabbit {
            port,
            dist_port: free_port(),
            node: format!("hookline-test-{port}@localhost"),
            dir,
            child: None,
        };
        r.restart().await;
        r
    }

    pub fn url(&self) -> String {
        format!("amqp://guest:guest@127.0.0.1:{}/%2f", self.port)
    }

    /// Start (again) with the same node name, ports and data. A node that
    /// exits before it answers (on a loaded machine the name can still be
    /// registered with `epmd` for a moment) is started again, a few times,
    /// and the last failure shows the node's own log.
    pub async fn restart(&mut self) {
        assert!(self.child.is_none(), "already running");
        // A loaded machine takes its time to boot Erlang.
        let deadline = Instant::now() + Duration::from_secs(100);
        for attempt in 1.. {
            let mut child = self.spawn();
            loop {
                if answers(self.port) {
                    self.child = Some(child);
                    return;
                }
                if let Some(exit) = child.try_wait().unwrap() {
                    assert!(
                        attempt < 4 && Instant::now() < deadline,
                        "the private rabbitmq-server exited ({exit}) before it answered:\n{}",
                        self.log_tail()
                    );
                    break;
                }
                if Instant::now() >= deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "the private rabbitmq-server did not answer within 100 s:\n{}",
                        self.log_tail()
                    );
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    fn spawn(&self) -> Child {
        let d = self.dir.path();
        Command::new("/usr/lib/rabbitmq/bin/rabbitmq-server")
            // Its own Erlang cookie, so nothing of the shared node's is used.
            .env("HOME", d.join("home"))
            .env("RABBITMQ_NODENAME", &self.node)
            .env("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1")
            .env("RABBITMQ_NODE_PORT", self.port.to_string())
            .env("RABBITMQ_DIST_PORT", self.dist_port.to_string())
            .env("RABBITMQ_BASE", d)
            .env("RABBITMQ_MNESIA_BASE", d.join("mnesia"))
            .env("RABBITMQ_LOG_BASE", d.join("log"))
            .env("RABBITMQ_CONFIG_FILE", d.join("rabbitmq"))
            .env("RABBITMQ_ENABLED_PLUGINS_FILE", d.join("enabled_plugins"))
            .env("RABBITMQ_PID_FILE", d.join("pid"))
            // Exec the Erlang VM in place of the script (as under systemd),
            // so the child is the node and SIGKILL reaches it.
            .env("RUNNING_UNDER_SYSTEMD", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("rabbitmq-server (Debian package rabbitmq-server)")
    }

    /// The end of the node's log, for a failure message.
    fn log_tail(&self) -> String {
        let log = self
            .dir
            .path()
            .join("log")
            .join(format!("{}.log", self.node));
        let text =
            std::fs::read_to_string(&log).unwrap_or_else(|e| format!("{}: {e}", log.display()));
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// Whether `epmd` still lists the node's name.
    fn registered(&self) -> bool {
        let name = self.node.split('@').next().unwrap();
        Command::new("epmd")
            .arg("-names")
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .any(|l| l.starts_with(&format!("name {name} ")))
            })
            .unwrap_or(false)
    }

    /// If the node exited on its own since it answered (on a loaded
    /// machine a restarted node has been seen to stop again), start it
    /// again; what it said, for the test's report, when it had to.
    pub async fn keep_running(&mut self) -> Option<String> {
        let exit = self.child.as_mut()?.try_wait().unwrap()?;
        let said = format!("exited ({exit}) after it answered:\n{}", self.log_tail());
        self.child = None;
        self.restart().await;
        Some(said)
    }

    /// Whether the node runs, and the end of its log.
    pub fn report(&mut self) -> String {
        let state = match self.child.as_mut().map(|c| c.try_wait().unwrap()) {
            None => "not started".to_owned(),
            Some(None) => "running".to_owned(),
            Some(Some(exit)) => format!("exited ({exit})"),
        };
        format!("{state}; its log ends:\n{}", self.log_tail())
    }

    /// SIGKILL the node (the script execs down to the Erlang VM).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let port = self.port;
        let deadline = Instant::now() + Duration::from_secs(10);
        while answers(port) {
            assert!(
                Instant::now() < deadline,
                "the private RabbitMQ node outlived SIGKILL"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        // Its name is freed when epmd sees the connection close: a restart
        // before that would find the name taken.
        while self.registered() {
            assert!(
                Instant::now() < deadline,
                "epmd still lists the killed RabbitMQ node"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for PrivateRabbit {
    fn drop(&mut self) {
        self.kill();
    }
}
