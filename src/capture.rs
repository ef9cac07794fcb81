//! Capture files: one JSON document per verified request, the format
//! `hookline replay` reads back.

use std::path::{Path, PathBuf};

use actix_web::HttpRequest;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::provider::VerifiedWebhook;

/// Stands in for a value that is itself a secret (a shared token in a
/// header, the query or the body).
pub use crate::provider::scheme::REDACTED;

/// A captured request.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Capture {
    /// The route name (`[providers.NAME]`).
    pub provider: String,
    /// The provider definition kind, so `replay --resign` knows the scheme.
    /// Absent in hand-written captures, where `provider` is taken as the kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub tenant: String,
    pub method: String,
    pub path: String,
    #[serde(default)]
    pub query: String,
    /// In the order received.
    pub headers: Vec<(String, String)>,
    pub body_base64: String,
    pub received_at: String,
}

impl Capture {
    pub fn body(&self) -> Result<Vec<u8>, base64::DecodeError> {
        BASE64.decode(&self.body_base64)
    }

    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or(&self.provider)
    }

    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        serde_json::from_slice(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a capture file: {e}", path.display()))
    }
}

/// Writes captures under `dir/provider/tenant/`.
#[derive(Debug, Clone)]
pub struct CaptureWriter {
    dir: PathBuf,
}

impl CaptureWriter {
    pub fn new(dir: PathBuf) -> Self {
        CaptureWriter { dir }
    }

    /// Write one capture. A failure is logged, never fails the request: the
    /// capture is a diagnostic, the event is what matters.
    /// `body` is the request's whole body (a batch's, when `ev` is one of
    /// its items).
    pub async fn write(&self, req: &HttpRequest, ev: &VerifiedWebhook, body: &[u8]) {
        let def = &ev.provider().def;
        let secret_headers = def.secret_headers();
        let headers = req
            .headers()
            .iter()
            .map(|(name, value)| {
                let name = name.as_str().to_owned();
                let value = if secret_headers.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
                    REDACTED.to_owned()
                } else {
                    String::from_utf8_lossy(value.as_bytes()).into_owned()
                };
                (name, value)
            })
            .collect();
        let capture = Capture {
            provider: ev.provider_name().to_owned(),
            kind: Some(def.kind.clone()),
            tenant: ev.tenant().to_string(),
            method: req.method().to_string(),
            path: req.path().to_owned(),
            query: crate::provider::redact_query(req.query_string(), def.secret_query_params()),
            headers,
            // A secret inside the body (Microsoft Graph's `clientState`)
            // is redacted like a header token: a capture is a diagnostic
            // file, kept and copied about.
            body_base64: BASE64.encode(def.signature.redacted_body(body)),
            received_at: chrono::Utc::now().to_rfc3339(),
        };
        if let Err(e) = self.save(&capture, ev.event_id()).await {
            tracing::warn!(error = %e, dir = %self.dir.display(), "could not write capture");
        }
    }

    /// [`write`](Self::write), unless a capture of `ev`'s event with the
    /// same body is there already (a held or conflicting request that its
    /// provider resends). It reads the tenant's directory: done only for
    /// those requests, rare, each of which would otherwise add a file.
    pub async fn write_first(&self, req: &HttpRequest, ev: &VerifiedWebhook, body: &[u8]) {
        let def = &ev.provider().def;
        let body_base64 = BASE64.encode(def.signature.redacted_body(body));
        let kept = self
            .find(
                ev.provider_name(),
                ev.tenant().as_str(),
                ev.event_id(),
                usize::MAX,
            )
            .await;
        match kept {
            Ok(kept) if kept.iter().any(|c| c.body_base64 == body_base64) => {}
            // Unreadable: written, as before there was a check.
            _ => self.write(req, ev, body).await,
        }
    }

    /// Write `capture` to its own new file under `dir/PROVIDER/TENANT/`,
    /// named after the time and `event_id`; returns the file's path.
    ///
    /// Every part of the path is made a plain file name first, whatever
    /// the provider, tenant or event ID: the file lands inside `dir` even if
    /// a hostile name got past the configuration's checks.
    pub async fn save(&self, capture: &Capture, event_id: &str) -> std::io::Result<PathBuf> {
        let dir = self
            .dir
            .join(file_name_part(&capture.provider, 64))
            .join(file_name_part(&capture.tenant, 64));
        let file = dir.join(format!(
            "{}-{}-{:08x}.json",
            chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            // The time prefix already keeps a leading dot away.
            file_name_part(event_id, 80),
            rand::random::<u32>()
        ));
        tokio::fs::create_dir_all(&dir).await?;
        let json = serde_json::to_vec_pretty(capture)?;
        tokio::fs::write(&file, json).await?;
        Ok(file)
    }
}

impl CaptureWriter {
    /// The captures of one event, oldest first, at most `limit`: the
    /// files under `dir/PROVIDER/TENANT/` named after its event ID (as
    /// [`CaptureWriter::save`] names them). Two IDs that differ only in
    /// characters a file name cannot hold share their files.
    pub async fn find(
        &self,
        provider: &str,
        tenant: &str,
        event_id: &str,
        limit: usize,
    ) -> std::io::Result<Vec<Capture>> {
        let dir = self
            .dir
            .join(file_name_part(provider, 64))
            .join(file_name_part(tenant, 64));
        let wanted = file_name_part(event_id, 80);
        let mut names = Vec::new();
        let mut entries = match tokio::fs::read_dir(&dir).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        while let Some(entry) = entries.next_entry().await? {
            let name = entry.file_name().to_string_lossy().into_owned();
            // TIME-EVENTID-RANDOM.json; the time holds no '-'.
            let id_part = name
                .strip_suffix(".json")
                .and_then(|n| n.rsplit_once('-'))
                .and_then(|(n, _)| n.split_once('-'))
                .map(|(_, id)| id);
            if id_part == Some(wanted.as_str()) {
                names.push(name);
            }
        }
        // The time prefix sorts them oldest first.
        names.sort();
        let mut out = Vec::new();
        for name in names.into_iter().take(limit) {
            let bytes = tokio::fs::read(dir.join(name)).await?;
            out.push(serde_json::from_slice(&bytes).map_err(std::io::Error::other)?);
        }
        Ok(out)
    }
}

/// `name` as one plain path component: letters, digits, `-`, `_`, and dots
/// only after the first character, so neither `.`, `..`, a hidden name nor a
/// separator can come out; anything else becomes `_`, and an empty name `_`.
pub(crate) fn file_name_part(name: &str, max_chars: usize) -> String {
    let part: String = name
        .chars()
        .take(max_chars)
        .enumerate()
        .map(|(i, c)| match c {
            c if c.is_ascii_alphanumeric() || c == '-' || c == '_' => c,
            '.' if i > 0 => '.',
            _ => '_',
        })
        .collect();
    if part.is_empty() {
        "_".to_owned()
    } else {
        part
    }
}

/// Every `*.json` file under the given files and directories, sorted.
pub fn collect_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
        if p.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(p)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            for e in entries {
                if e.is_dir() || e.extension().is_some_and(|x| x == "json") {
                    walk(&e, out)?;
                }
            }
        } else if p.exists() {
            out.push(p.to_owned());
        } else {
            anyhow::bail!("{}: no such file or directory", p.display());
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out)?;
    }
    Ok(out)
}
