//! `[capture]`: keep every verified request as a capture file.

use std::path::PathBuf;

use serde::Deserialize;

/// `[capture]`; absent, nothing is captured.
#[derive(Debug, Clone, Deserialize)]
pub struct CaptureSettings {
    /// Directory verified requests are written to, one JSON file each under
    /// `PROVIDER/TENANT/`. Required in the section.
    pub dir: PathBuf,
}
