//! Loading: the file and `HOOKLINE__SECTION__KEY` environment overrides,
//! merged by the `config` crate, then parsed and validated in one run that
//! lists every problem.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::declared::Declared;
use super::issues::{is_within, ConfigError, ConfigIssue};
use super::parse;
use super::Settings;

/// Load `path`, apply `HOOKLINE__...` overrides, and validate.
pub fn load(path: &Path) -> Result<Settings, ConfigError> {
    let file = path.display().to_string();
    if !path.is_file() {
        return Err(ConfigError {
            file,
            issues: vec![ConfigIssue::new("-", "no such file")],
        });
    }
    build(
        file,
        config::File::from(path).format(config::FileFormat::Toml),
    )
}

/// Validate configuration text (tests, embedded examples); `name` stands in
/// for the file name in errors. Environment overrides apply as for a file.
pub fn from_toml_str(name: &str, text: &str) -> Result<Settings, ConfigError> {
    build(
        name.to_owned(),
        config::File::from_str(text, config::FileFormat::Toml),
    )
}

/// The `HOOKLINE__SECTION__KEY` variables' values as written, by key
/// (`section.key`, lower case, as the `config` crate makes it).
fn overrides() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(name, value)| {
            let name = name.into_string().ok()?;
            // The `config` crate takes the prefix in any case.
            let prefix = name.get(.."HOOKLINE__".len())?;
            if !prefix.eq_ignore_ascii_case("HOOKLINE__") {
                return None;
            }
            let path = &name[prefix.len()..];
            let key = path.split("__").collect::<Vec<_>>().join(".");
            Some((key.to_lowercase(), value.into_string().ok()?))
        })
        .collect()
}

fn build<S>(file: String, source: S) -> Result<Settings, ConfigError>
where
    S: config::Source + Send + Sync + 'static,
{
    let fail = |reason: String| ConfigError {
        file: file.clone(),
        issues: vec![ConfigIssue::new("-", reason)],
    };
    let merged = config::Config::builder()
        .add_source(source)
        .add_source(
            config::Environment::with_prefix("HOOKLINE")
                .prefix_separator("__")
                .separator("__")
                .try_parsing(true),
        )
        .build()
        .map_err(|e| fail(without_quoted_lines(&e.to_string())))?;
    let mut tree: Value = merged.try_deserialize().map_err(|e| fail(e.to_string()))?;

    let declared = Declared::from_tree(&tree);
    let mut issues = parse::tag_store_kind(&mut tree);
    let (settings, parse_issues) = parse::parse(tree, &overrides());
    issues.extend(parse_issues);
    let Some(mut settings) = settings else {
        return Err(ConfigError { file, issues });
    };
    settings.source = file.clone();
    // A value that did not parse is not judged again: its default, or the
    // stand-in that replaced it, would only add misleading problems.
    let found = settings.validate(&declared);
    let unjudged = |f: &ConfigIssue| issues.iter().any(|p| is_within(&f.key, &p.key));
    let found: Vec<_> = found.into_iter().filter(|f| !unjudged(f)).collect();
    issues.extend(found);
    if issues.is_empty() {
        Ok(settings)
    } else {
        // By key, so each section's problems read together.
        issues.sort_by(|a, b| a.key.cmp(&b.key));
        Err(ConfigError { file, issues })
    }
}

/// A TOML syntax error quotes the offending line of the file, which may
/// hold a secret: keep the position and the reason, not the line.
fn without_quoted_lines(message: &str) -> String {
    message
        .lines()
        .filter(|l| !l.trim_start().starts_with('|') && !l.contains(" | "))
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}
