//! A handler's filter as it runs: the compiled filter, and the file it
//! came from so SIGHUP can read it again.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use super::{Filter, Request};

/// A filter that a `filter_file` can replace while hookline runs.
#[derive(Debug)]
pub struct ReloadingFilter {
    /// The file, for `filter_file`; `None` for a `filter` in the config.
    file: Option<PathBuf>,
    current: RwLock<Arc<Filter>>,
}

impl ReloadingFilter {
    pub fn new(filter: Filter, file: Option<PathBuf>) -> ReloadingFilter {
        ReloadingFilter {
            file,
            current: RwLock::new(Arc::new(filter)),
        }
    }

    fn current(&self) -> Arc<Filter> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether the filter in force lets `request` through.
    pub fn allows(&self, request: &Request) -> bool {
        self.current().allows(request)
    }

    /// The header names the filter in force reads (lower case).
    pub fn header_names(&self) -> Vec<String> {
        self.current().header_names().to_vec()
    }

    /// Read `filter_file` again. `Ok(new)`: the header names the new filter
    /// reads that the loaded one did not (the receiver keeps only those it
    /// was started with). On an error the filter in force stays.
    pub fn reload(&self) -> Result<Vec<String>, String> {
        let Some(path) = &self.file else {
            return Ok(Vec::new());
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let filter = Filter::parse(&text).map_err(|e| e.to_string())?;
        let before = self.header_names();
        let new = filter
            .header_names()
            .iter()
            .filter(|n| !before.contains(n))
            .cloned()
            .collect();
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(filter);
        Ok(new)
    }
}
