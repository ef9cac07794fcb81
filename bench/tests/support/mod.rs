//! Helpers of the benchmark tools' tests: start this package's binaries (and
//! hookline's) as real processes on free ports, and stop them when dropped.

#![allow(dead_code)] // each test file uses its own share of these

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A port nobody listens on right now (bind port 0, read it, let it go).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind port 0")
        .port()
}

/// A child process, killed when dropped (a failed test leaves nothing behind).
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Wait until something accepts TCP connections on `port`.
pub fn wait_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Start the sink on a free port; its base URL.
pub fn sink(extra: &[&str]) -> (Proc, String) {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_bench-sink"))
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start bench-sink");
    let p = Proc(child);
    wait_port(port);
    (p, format!("http://127.0.0.1:{port}"))
}

/// Run `bench-load` with these arguments (split at spaces) to the end; its
/// JSON report.
pub fn load(args: &str) -> serde_json::Value {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_bench-load"))
        .args(args.split_whitespace())
        .output()
        .expect("run bench-load");
    assert!(
        out.status.success(),
        "bench-load failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("bench-load prints JSON")
}

/// The `hookline` binary, built now if it is missing or stale: the bench
/// package cannot name another package's binary (`CARGO_BIN_EXE_*` is only
/// set for its own), and a stale one would test old code. It asks cargo for
/// exactly what the test suite builds (`scripts/test`, nextest: the whole
/// workspace, all targets), so under the suite this is a no-op; any other
/// selection would unify features differently and compile every
/// dependency a second time.
pub fn hookline_binary() -> String {
    // The test harness runs from target/<profile>/deps/; a workspace test
    // run (`--all-targets`) built the hookline binary beside it.
    if let Some(bin) = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("hookline")))
        .filter(|bin| bin.is_file())
    {
        return bin.display().to_string();
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["test", "--no-run", "--workspace", "--all-targets"])
        .arg("--message-format=json")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo test --no-run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| {
            // The binary itself, not the test harness built from main.rs.
            m["target"]["name"] == "hookline"
                && m["target"]["kind"] == serde_json::json!(["bin"])
                && m["profile"]["test"] == false
        })
        .and_then(|m| m["executable"].as_str().map(str::to_owned))
        .expect("cargo reports the hookline executable")
}

/// A runtime for the async client in a plain test.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f)
}
