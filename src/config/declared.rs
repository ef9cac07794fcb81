//! What the file declared, read from the merged tree before parsing drops
//! anything: a check about a key that is set but broken must not call it
//! missing or empty (the key's own issue says what is wrong with it).

use std::collections::BTreeSet;

use serde_json::Value;

use super::issues::key;

#[derive(Debug, Default)]
pub(super) struct Declared {
    /// Every table key set, as [`key`] writes it.
    keys: BTreeSet<String>,
    /// The keys among them whose value is a table or list with something in it.
    filled: BTreeSet<String>,
    /// The names of the `[providers.NAME]` tables.
    providers: BTreeSet<String>,
}

impl Declared {
    pub(super) fn from_tree(tree: &Value) -> Self {
        let mut d = Declared::default();
        d.walk("", tree);
        d
    }

    fn walk(&mut self, at: &str, value: &Value) {
        let Value::Object(m) = value else { return };
        for (k, v) in m {
            if at == "providers" {
                self.providers.insert(k.clone());
            }
            let path = key(at, k);
            let filled = match v {
                Value::Object(t) => !t.is_empty(),
                Value::Array(a) => !a.is_empty(),
                _ => false,
            };
            if filled {
                self.filled.insert(path.clone());
            }
            self.walk(&path, v);
            self.keys.insert(path);
        }
    }

    /// Whether the file sets `key`.
    pub(super) fn has(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    /// Whether the file gives `key` a table or list with something in it.
    pub(super) fn filled(&self, key: &str) -> bool {
        self.filled.contains(key)
    }

    /// The names of the `[providers.NAME]` tables.
    pub(super) fn providers(&self) -> impl Iterator<Item = &str> {
        self.providers.iter().map(String::as_str)
    }
}
