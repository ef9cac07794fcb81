//! CPU time and memory of a process, from `/proc` (Linux), read at the two
//! edges of a measured window.

/// A process at one moment.
#[derive(Clone, Copy)]
pub struct Sample {
    /// User + system CPU time, in clock ticks.
    pub ticks: u64,
    pub rss_kib: u64,
    pub peak_rss_kib: u64,
}

pub fn sample(pid: u32) -> Option<Sample> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may
    // itself hold spaces.
    let after = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 here.
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Some(Sample {
        ticks,
        rss_kib: kib("VmRSS:"),
        peak_rss_kib: kib("VmHWM:"),
    })
}

/// Clock ticks per second. sysconf(_SC_CLK_TCK) is 100 on every Linux this
/// runs on; `getconf` confirms it without libc bindings.
pub fn clock_ticks() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// What a process used over a window of `seconds`, as the report shows it.
pub fn usage(
    pid: u32,
    before: Option<Sample>,
    after: Option<Sample>,
    seconds: f64,
) -> serde_json::Value {
    match (before, after) {
        (Some(b), Some(a)) => {
            let cpu = a.ticks.saturating_sub(b.ticks) as f64 / clock_ticks();
            serde_json::json!({
                "pid": pid,
                "cpu_seconds": cpu,
                "cores": cpu / seconds,
                "rss_kib_before": b.rss_kib,
                "rss_kib_after": a.rss_kib,
                "rss_kib_peak": a.peak_rss_kib,
            })
        }
        _ => serde_json::json!({"pid": pid, "error": "process not readable"}),
    }
}

/// The whole machine's CPU time at one moment, from `/proc/stat`, in
/// clock ticks summed over every CPU.
#[derive(Clone, Copy)]
pub struct Machine {
    /// Every field of the `cpu` line but guest time (already counted in
    /// user time).
    pub total: u64,
    /// Idle and waiting for I/O.
    pub idle: u64,
    /// Taken by the hypervisor for other guests while this one wanted to
    /// run: the noise of a shared host, which no process here shows.
    pub steal: u64,
}

pub fn machine() -> Option<Machine> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    // user nice system idle iowait irq softirq steal guest guest_nice
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    let field = |i: usize| f.get(i).copied().unwrap_or(0);
    Some(Machine {
        total: (0..8).map(field).sum(),
        idle: field(3) + field(4),
        steal: field(7),
    })
}

/// What the machine did over a window of `seconds`: cores busy (steal
/// left out) and the share of CPU time stolen.
pub fn machine_usage(
    before: Option<Machine>,
    after: Option<Machine>,
    seconds: f64,
) -> serde_json::Value {
    match (before, after) {
        (Some(b), Some(a)) => {
            let total = a.total.saturating_sub(b.total) as f64;
            let idle = a.idle.saturating_sub(b.idle) as f64;
            let steal = a.steal.saturating_sub(b.steal) as f64;
            let share = |x: f64| if total > 0.0 { x / total } else { 0.0 };
            serde_json::json!({
                "busy_cores": (total - idle - steal) / clock_ticks() / seconds,
                "steal_share": share(steal),
            })
        }
        _ => serde_json::json!({"error": "/proc/stat not readable"}),
    }
}
