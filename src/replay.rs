//! `hookline replay`: send capture files to a receiver and summarise the
//! answers.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use secrecy::{ExposeSecret, SecretString};
use tokio::sync::Semaphore;

use crate::capture::Capture;
use crate::provider::{Definitions, SignInput};

/// Headers a replay must not copy: the client computes them itself.
const HOP_BY_HOP: &[&str] = &[
    "host",
    "content-length",
    "connection",
    "transfer-encoding",
    "keep-alive",
];

pub struct ReplayOptions {
    /// Base URL of the receiver, e.g. `http://127.0.0.1:8080`.
    pub target: url::Url,
    /// Re-sign each capture with this secret and a fresh timestamp.
    pub resign: Option<SecretString>,
    pub concurrency: usize,
    /// Requests per second, at most.
    pub rate: Option<f64>,
    pub definitions: Definitions,
    /// Replay against this tenant instead of the one each capture names.
    pub tenant: Option<String>,
}

/// The answer to one capture.
#[derive(Debug, Clone)]
pub struct ReplayResult {
    pub file: PathBuf,
    /// HTTP status, or `None` when the request failed.
    pub status: Option<u16>,
    /// `accepted`/`duplicate` from a success body, `code` from a problem.
    pub outcome: String,
    pub latency: Duration,
}

pub struct Summary {
    pub results: Vec<ReplayResult>,
}

impl Summary {
    /// Count per `status outcome` label.
    pub fn by_outcome(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for r in &self.results {
            let label = match r.status {
                Some(s) => format!("{s} {}", r.outcome),
                None => format!("error {}", r.outcome),
            };
            *m.entry(label).or_insert(0) += 1;
        }
        m
    }

    pub fn percentile(&self, p: f64) -> Duration {
        let mut l: Vec<_> = self.results.iter().map(|r| r.latency).collect();
        if l.is_empty() {
            return Duration::ZERO;
        }
        l.sort();
        let idx = ((p / 100.0) * (l.len() as f64 - 1.0)).round() as usize;
        l[idx.min(l.len() - 1)]
    }

    /// Whether every request got an answer (whatever its status).
    pub fn all_answered(&self) -> bool {
        self.results.iter().all(|r| r.status.is_some())
    }

    pub fn render(&self) -> String {
        let mut out = format!("sent: {}\n", self.results.len());
        for (label, n) in self.by_outcome() {
            out.push_str(&format!("  {label}: {n}\n"));
        }
        out.push_str(&format!(
            "latency p50: {:.1} ms, p99: {:.1} ms\n",
            self.percentile(50.0).as_secs_f64() * 1000.0,
            self.percentile(99.0).as_secs_f64() * 1000.0
        ));
        out
    }
}

/// A capture turned into the request to send.
pub(crate) struct Prepared {
    url: url::Url,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

pub(crate) fn prepare(capture: &Capture, opts: &ReplayOptions) -> anyhow::Result<Prepared> {
    let body = capture
        .body()
        .map_err(|e| anyhow::anyhow!("body_base64: {e}"))?;
    let path = match &opts.tenant {
        Some(tenant) => format!("/webhooks/{}/{tenant}", capture.provider),
        None => capture.path.clone(),
    };
    let mut url = opts.target.join(&path)?;
    if !capture.query.is_empty() {
        url.set_query(Some(&capture.query));
    }
    let mut headers: Vec<(String, String)> = capture
        .headers
        .iter()
        .filter(|(k, _)| !HOP_BY_HOP.iter().any(|h| k.eq_ignore_ascii_case(h)))
        .cloned()
        .collect();
    if let Some(secret) = &opts.resign {
        let def = opts
            .definitions
            .get(capture.kind())
            .ok_or_else(|| anyhow::anyhow!("unknown provider kind {:?}", capture.kind()))?;
        let key = def
            .decode_secret(secret.expose_secret())
            .map_err(|e| anyhow::anyhow!("--resign: {e}"))?;
        // Keep the message id the capture had, so dedup sees the same event.
        let id = def
            .signed_id_header()
            .and_then(|names| {
                names
                    .0
                    .iter()
                    .find_map(|n| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)))
            })
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs() as i64;
        let fresh = def
            .sign(
                &key,
                &SignInput {
                    method: &capture.method,
                    url: url.as_str(),
                    headers: &headers,
                    body: &body,
                    id: &id,
                    timestamp: now,
                },
            )
            .map_err(|e| anyhow::anyhow!("--resign: {e}"))?;
        headers.retain(|(k, _)| !fresh.iter().any(|(f, _)| f.eq_ignore_ascii_case(k)));
        headers.extend(fresh);
    }
    Ok(Prepared { url, headers, body })
}

/// Replay `files` against the target.
pub async fn replay(files: Vec<PathBuf>, opts: ReplayOptions) -> anyhow::Result<Summary> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()?;
    // Read and prepare everything first: a bad file fails the run before
    // anything is sent.
    let mut prepared = Vec::with_capacity(files.len());
    for file in files {
        // A stray JSON file in a capture directory is not a reason to
        // replay nothing.
        let capture = match Capture::read(&file) {
            Ok(capture) => capture,
            Err(e) => {
                eprintln!("warning: skipped {e:#}");
                continue;
            }
        };
        let p = prepare(&capture, &opts).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        prepared.push((file, p));
    }
    if prepared.is_empty() {
        anyhow::bail!("no capture files found");
    }
    let permits = Arc::new(Semaphore::new(opts.concurrency.max(1)));
    let mut pace = opts
        .rate
        .filter(|r| *r > 0.0)
        .map(|r| tokio::time::interval(Duration::from_secs_f64(1.0 / r)));
    // Progress on stderr, once a second, for runs long enough to need it.
    let total = prepared.len();
    let answered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let progress = {
        let answered = answered.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.tick().await;
            loop {
                tick.tick().await;
                let n = answered.load(std::sync::atomic::Ordering::Relaxed);
                eprintln!("replay: {n}/{total} answered");
            }
        })
    };
    let mut tasks = tokio::task::JoinSet::new();
    for (file, p) in prepared {
        if let Some(pace) = pace.as_mut() {
            pace.tick().await;
        }
        let permit = permits.clone().acquire_owned().await?;
        let client = client.clone();
        let answered = answered.clone();
        tasks.spawn(async move {
            let _permit = permit;
            let mut req = client.post(p.url).body(p.body);
            for (k, v) in &p.headers {
                req = req.header(k, v);
            }
            let started = Instant::now();
            let (status, outcome) = match req.send().await {
                Ok(res) => {
                    let status = res.status().as_u16();
                    let body: serde_json::Value = res.json().await.unwrap_or_default();
                    let outcome = body
                        .get("code")
                        .or_else(|| body.get("status").filter(|s| s.is_string()))
                        .and_then(|v| v.as_str())
                        .unwrap_or("")
                        .to_owned();
                    (Some(status), outcome)
                }
                Err(e) => (None, e.without_url().to_string()),
            };
            let latency = started.elapsed();
            answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            ReplayResult {
                file,
                status,
                outcome,
                latency,
            }
        });
    }
    let mut results = Vec::new();
    while let Some(r) = tasks.join_next().await {
        results.push(r?);
    }
    progress.abort();
    results.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(Summary { results })
}
