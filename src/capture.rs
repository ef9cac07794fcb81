//! Capture files: one JSON document per verified request, the format
//! `hookline replay` reads back.

use std::path::{Path, PathBuf};

use actix_web::HttpRequest;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
        self.keep(&capture_of(req, ev, body), ev.event_id()).await
    }

    /// [`write`](Self::write), unless a capture of `ev`'s event with the
    /// same body is there already (a held or conflicting request that its
    /// provider resends). Told by the files' names, which carry the body's
    /// digest: no capture is read.
    pub async fn write_first(&self, req: &HttpRequest, ev: &VerifiedWebhook, body: &[u8]) {
        let capture = capture_of(req, ev, body);
        let id = file_name_part(ev.event_id(), 80);
        let digest = digest(&capture, ev.event_id());
        let kept = self
            .names(&capture.provider, &capture.tenant)
            .await
            .is_ok_and(|names| {
                names
                    .iter()
                    .any(|n| name_parts(n) == Some((id.as_str(), digest.as_str())))
            });
        // Unreadable: written, as a capture too many is better than none.
        if !kept {
            self.keep(&capture, ev.event_id()).await
        }
    }

    async fn keep(&self, capture: &Capture, event_id: &str) {
        if let Err(e) = self.save(capture, event_id).await {
            tracing::warn!(error = %e, dir = %self.dir.display(), "could not write capture");
        }
    }

    /// `dir/PROVIDER/TENANT/`, each part a plain file name.
    fn tenant_dir(&self, provider: &str, tenant: &str) -> PathBuf {
        self.dir
            .join(file_name_part(provider, 64))
            .join(file_name_part(tenant, 64))
    }

    /// The file names under `dir/PROVIDER/TENANT/`; none if it is not there.
    async fn names(&self, provider: &str, tenant: &str) -> std::io::Result<Vec<String>> {
        let mut entries = match tokio::fs::read_dir(self.tenant_dir(provider, tenant)).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut names = Vec::new();
        while let Some(entry) = entries.next_entry().await? {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    /// Write `capture` to its own new file under `dir/PROVIDER/TENANT/`,
    /// named after the time, `event_id` and a digest of the ID and body;
    /// returns the file's path.
    ///
    /// Every part of the path is made a plain file name first, whatever
    /// the provider, tenant or event ID: the file lands inside `dir` even if
    /// a hostile name got past the configuration's checks.
    pub async fn save(&self, capture: &Capture, event_id: &str) -> std::io::Result<PathBuf> {
        let dir = self.tenant_dir(&capture.provider, &capture.tenant);
        let file = dir.join(format!(
            "{}-{}-{}.json",
            chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            // The time prefix already keeps a leading dot away.
            file_name_part(event_id, 80),
            digest(capture, event_id)
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
        let dir = self.tenant_dir(provider, tenant);
        let wanted = file_name_part(event_id, 80);
        let mut names: Vec<String> = self
            .names(provider, tenant)
            .await?
            .into_iter()
            .filter(|n| name_parts(n).is_some_and(|(id, _)| id == wanted))
            .collect();
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

/// A capture as written for `ev`, secrets redacted: the request's headers
/// and query, and `body`, the request's whole body.
fn capture_of(req: &HttpRequest, ev: &VerifiedWebhook, body: &[u8]) -> Capture {
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
    Capture {
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
    }
}

/// The last part of a capture's file name: 16 hex digits of the SHA-256 of
/// the event ID and the body as kept, so that a copy of a request already
/// captured is told by its name, even where two IDs share the name's part.
fn digest(capture: &Capture, event_id: &str) -> String {
    let mut sha = Sha256::new();
    sha.update(event_id.as_bytes());
    sha.update([0]);
    sha.update(capture.body_base64.as_bytes());
    hex::encode(&sha.finalize()[..8])
}

/// The event ID part and the digest of a capture's file name
/// (`TIME-EVENTID-DIGEST.json`; the time holds no `-`).
fn name_parts(name: &str) -> Option<(&str, &str)> {
    let (rest, digest) = name.strip_suffix(".json")?.rsplit_once('-')?;
    let (_, id) = rest.split_once('-')?;
    Some((id, digest))
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
