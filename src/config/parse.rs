//! Reading the merged configuration tree into [`Settings`] without stopping
//! at the first problem.
//!
//! serde stops at the first error. So: deserialize; on an error, record it
//! with its key path, drop the value at fault from the tree (its default
//! applies, or the table that needed it goes), and deserialize again, until
//! it succeeds. Keys nothing reads are reported from the last, successful
//! pass. The semantic checks then run over what parsed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::issues::{is_within, key, ConfigIssue};
use super::Settings;

/// Enough for any real file: every round drops one value.
const MAX_ROUNDS: usize = 1000;

/// Keys whose values are secrets: a parse error there must not quote them.
const SECRET_KEYS: &[&str] = &[
    "secrets",
    "signing_secret",
    "token",
    "verify_token",
    "redis_url",
    "redis_cluster",
    "database_url",
];

/// Turn `[store] kind = "redis", ...` into `store = { redis = {...} }`:
/// serde's externally tagged form of [`super::StoreSettings`], which, unlike
/// the internally tagged one, keeps the key path of errors inside the
/// section. A store section that cannot be read this way is reported and
/// replaced by a stand-in, so every other section is still checked (the
/// result is an error anyway).
pub(super) fn tag_store_kind(tree: &mut Value) -> Vec<ConfigIssue> {
    let Some(root) = tree.as_object_mut() else {
        return Vec::new();
    };
    let problem = match root.get_mut("store") {
        None => ConfigIssue::new("store", "missing section (set store.kind)"),
        Some(Value::Object(table)) => match table.remove("kind") {
            Some(Value::String(kind)) if kind == "embedded" || kind == "redis" => {
                let rest = std::mem::take(table);
                root.insert("store".into(), json!({ kind: rest }));
                return Vec::new();
            }
            None => ConfigIssue::new("store.kind", "missing: set \"embedded\" or \"redis\""),
            Some(_) => ConfigIssue::new("store.kind", "must be \"embedded\" or \"redis\""),
        },
        Some(_) => ConfigIssue::new("store", "must be a table"),
    };
    root.insert("store".into(), store_stand_in());
    vec![problem]
}

/// The store kind of a tree [`tag_store_kind`] has tagged.
fn store_kind(tree: &Value) -> Option<&str> {
    let table = tree.get("store")?.as_object()?;
    table.keys().next().map(String::as_str)
}

fn store_stand_in() -> Value {
    json!({ "embedded": {} })
}

/// One step of a key path.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
    /// An enum variant: a table key in the tree, not shown in the key path.
    Variant(String),
}

/// Deserialize `tree`, collecting every problem. `None` only if the tree
/// could not be brought to parse at all. `overrides` holds the
/// `HOOKLINE__...` variables' values as written, by key (`admin.token`):
/// the `config` crate reads one that looks like a number or a boolean as
/// such, and a key that takes text gets it back as written (a token of
/// digits, `007`, stays `007`).
pub(super) fn parse(
    mut tree: Value,
    overrides: &BTreeMap<String, String>,
) -> (Option<Settings>, Vec<ConfigIssue>) {
    let mut issues = Vec::new();
    let mut as_written = BTreeSet::new();
    // Indices, as written, of list elements already dropped, by list: the
    // key of a later error in the same list must still count from the file.
    let mut dropped: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut stood_in = BTreeSet::new();
    for _ in 0..MAX_ROUNDS {
        let mut unknown = Vec::new();
        let result = {
            let mut note = |path: serde_ignored::Path<'_>| unknown.push(ignored_key(&path));
            serde_path_to_error::deserialize::<_, Settings>(serde_ignored::Deserializer::new(
                &tree, &mut note,
            ))
        };
        let err = match result {
            Ok(settings) => {
                let kind = store_kind(&tree);
                issues.extend(unknown.into_iter().map(|k| {
                    // Each store kind takes only its own keys.
                    let reason = match (k.starts_with("store."), kind) {
                        (true, Some(kind)) => format!("unknown key for store kind {kind:?}"),
                        _ => "unknown key".to_owned(),
                    };
                    ConfigIssue::new(k, reason)
                }));
                return (Some(settings), issues);
            }
            Err(err) => err,
        };
        let mut steps = Vec::new();
        for segment in err.path().iter() {
            use serde_path_to_error::Segment;
            steps.push(match segment {
                Segment::Map { key } => Step::Key(key.clone()),
                Segment::Seq { index } => Step::Index(*index),
                Segment::Enum { variant } => Step::Variant(variant.clone()),
                Segment::Unknown => break,
            });
        }
        let message = err.into_inner().to_string();
        if message.starts_with("invalid type") {
            let shown = show(&steps, &dropped).to_lowercase();
            if let (Some(text), Some(at)) = (overrides.get(&shown), locate(&mut tree, &steps)) {
                if !at.is_string() && as_written.insert(shown) {
                    *at = Value::String(text.clone());
                    continue;
                }
            }
        }
        let missing = missing_field(&message);
        let (shown, reason) = match missing {
            // The key that is missing is inside the table the path names.
            Some(field) => (
                key(&show(&steps, &dropped), field),
                "required, but not set".into(),
            ),
            None => (show(&steps, &dropped), message.clone()),
        };
        // A value dropped earlier can leave its table without a required
        // key: that is the same problem, already reported.
        let explained = issues.iter().any(|i: &ConfigIssue| {
            i.key == shown || (missing.is_some() && is_within(&i.key, &shown))
        });
        if !explained {
            let secret = steps
                .iter()
                .any(|s| matches!(s, Step::Key(k) if SECRET_KEYS.contains(&k.as_str())));
            let reason = if secret { redact(&reason) } else { reason };
            issues.push(ConfigIssue::new(shown.clone(), reason));
        }
        if let Some(field) = missing {
            // Keep the table, so its other keys are still checked, if the
            // missing key has a stand-in (once: a stand-in that does not
            // parse either is dropped with its table).
            if stood_in.insert(shown) && put_stand_in(&mut tree, &steps, field) {
                continue;
            }
        }
        if !drop_value(&mut tree, &steps, &mut dropped) {
            break;
        }
    }
    (None, issues)
}

/// Values that parse for required keys, put in place of a missing one so
/// the rest of its table is still checked. They never reach a running
/// service: a missing key is an issue, and any issue fails the load.
fn stand_in(field: &str) -> Option<Value> {
    Some(match field {
        "kind" | "dir" | "cert_file" | "key_file" => json!(""),
        "database_url" => json!("postgres://stand-in.invalid/"),
        "url" => json!("http://stand-in.invalid/"),
        "events" => json!([]),
        // Base64 of "stand-in": a key must not be empty.
        "signing_secret" => json!("whsec_c3RhbmQtaW4="),
        _ => return None,
    })
}

/// Put the stand-in for `field` into the table `steps` lead to.
fn put_stand_in(tree: &mut Value, steps: &[Step], field: &str) -> bool {
    let Some(value) = stand_in(field) else {
        return false;
    };
    let Some(Value::Object(table)) = locate(tree, steps) else {
        return false;
    };
    table.insert(field.to_owned(), value);
    true
}

/// The value `steps` lead to.
fn locate<'t>(tree: &'t mut Value, steps: &[Step]) -> Option<&'t mut Value> {
    let mut at = tree;
    for step in steps {
        at = match (step, at) {
            (Step::Key(k) | Step::Variant(k), Value::Object(m)) => m.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(at)
}

/// The field of serde's "missing field `x`".
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.strip_suffix('`')
}

/// The key path of `steps`, list indices counted as written.
fn show(steps: &[Step], dropped: &BTreeMap<String, Vec<usize>>) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(k) => out = key(&out, k),
            Step::Index(i) => {
                let written = as_written(*i, dropped.get(&out));
                out = format!("{out}[{written}]");
            }
            Step::Variant(_) => {}
        }
    }
    out
}

/// The index, as written, of what is now element `index` of a list from
/// which the elements `dropped` (as written) were removed.
fn as_written(index: usize, dropped: Option<&Vec<usize>>) -> usize {
    let mut sorted = dropped.cloned().unwrap_or_default();
    sorted.sort_unstable();
    let mut i = index;
    for d in sorted {
        if d <= i {
            i += 1;
        }
    }
    i
}

/// serde's "invalid type: string \"...\", expected ..." quotes the value;
/// for a secret keep only what was expected.
fn redact(reason: &str) -> String {
    if !reason.starts_with("invalid ") {
        return reason.to_owned();
    }
    let what = reason.split(':').next().unwrap_or("invalid value");
    match reason.split_once(", expected ") {
        Some((_, expected)) => format!("{what} (not shown: a secret), expected {expected}"),
        None => format!("{what} (not shown: a secret)"),
    }
}

/// Remove the value `steps` lead to (the store section gets its stand-in
/// instead). False if there is nothing left to remove.
fn drop_value(
    tree: &mut Value,
    steps: &[Step],
    dropped: &mut BTreeMap<String, Vec<usize>>,
) -> bool {
    if matches!(steps, [Step::Key(k)] | [Step::Key(k), Step::Variant(_)] if k == "store") {
        let stand_in = store_stand_in();
        if tree.get("store") == Some(&stand_in) {
            return false;
        }
        tree["store"] = stand_in;
        return true;
    }
    let Some((last, parents)) = steps.split_last() else {
        return false;
    };
    let Some(at) = locate(tree, parents) else {
        return false;
    };
    match (last, at) {
        (Step::Key(k) | Step::Variant(k), Value::Object(m)) => m.remove(k).is_some(),
        (Step::Index(i), Value::Array(a)) if *i < a.len() => {
            let list = show(parents, dropped);
            let written = as_written(*i, dropped.get(&list));
            dropped.entry(list).or_default().push(written);
            a.remove(*i);
            true
        }
        _ => false,
    }
}

/// The key path of a key nothing read.
fn ignored_key(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", ignored_key(parent)),
        Path::Map { parent, key: k } => key(&ignored_key(parent), k),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => ignored_key(parent),
    }
}

#[cfg(test)]
mod tests {
    use secrecy::ExposeSecret;

    use super::*;

    /// The tree the `config` crate makes of a file and
    /// `HOOKLINE__ADMIN__TOKEN=0012345678901234567`,
    /// `HOOKLINE__SERVER__MAX_BODY_BYTES=2048`: both read as numbers.
    #[test]
    fn an_override_that_looks_like_a_number_is_text_where_the_key_takes_text() {
        let mut tree = json!({
            "server": { "max_body_bytes": 2048 },
            "store": { "kind": "embedded", "path": "/tmp/h.db" },
            "admin": { "token": 12345678901234567_u64 },
        });
        assert!(tag_store_kind(&mut tree).is_empty());
        let overrides = BTreeMap::from([
            ("admin.token".to_owned(), "0012345678901234567".to_owned()),
            ("server.max_body_bytes".to_owned(), "2048".to_owned()),
        ]);
        let (settings, issues) = parse(tree.clone(), &overrides);
        assert!(issues.is_empty(), "{issues:?}");
        let settings = settings.unwrap();
        let token = settings.admin.token.as_ref().unwrap();
        assert_eq!(token.expose_secret(), "0012345678901234567", "as written");
        assert_eq!(settings.server.max_body_bytes, 2048);
        // Written as a number in the file, it is refused as before.
        let (_, issues) = parse(tree, &BTreeMap::new());
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].key, "admin.token");
    }
}
