//! The test process's own log lines, for tests that assert what an
//! operator reads in the log.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Everything the process logs, from the moment [`capture_logs`] runs.
#[derive(Clone, Default)]
pub struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Send every log line of this test process (each test runs in its own
/// under nextest) to a buffer. The test first checks that the buffer does
/// receive lines, so an empty log cannot pass for a clean one.
pub fn capture_logs() -> Logs {
    let logs = Logs::default();
    let writer = logs.clone();
    let _ = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .try_init();
    logs
}
