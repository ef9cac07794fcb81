//! Names the configuration gives things: providers, tenants, handlers, and
//! the store's key prefix. A name becomes a URL path segment
//! (`/webhooks/{provider}/{tenant}`), part of a Redis key, a directory of
//! capture files and a metrics label, so only plain names are accepted:
//! never `.`, `..`, a hidden name, a separator or an escape.

use std::borrow::Borrow;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

/// Longest name accepted.
const MAX_LEN: usize = 64;

/// Why `s` is not a plain name, if it is not.
fn check(s: &str) -> Result<(), String> {
    if s.is_empty() {
        return Err("a name must not be empty".into());
    }
    if s.len() > MAX_LEN {
        return Err(format!("a name is at most {MAX_LEN} characters"));
    }
    if !s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        // Refuses ".", ".." and hidden names: they are path tricks in a URL
        // and in a capture directory.
        return Err("a name must start with a letter or digit (not a plain name)".into());
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
    {
        return Err("a name may only use letters, digits, '-', '_' and '.'".into());
    }
    Ok(())
}

/// One validating name type per kind of name; they share the rule and
/// differ only in what they name, so a tenant name cannot be passed where
/// a provider name is wanted.
macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident) => {
        string_id!($(#[$doc])* $name);

        impl $name {
            /// `s` if it is a plain name; otherwise why not.
            pub fn parse(s: &str) -> Result<Self, String> {
                check(s).map(|()| $name(s.to_owned()))
            }
        }

        // Maps keyed by a name are looked up with the `&str` of a request.
        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                $name::parse(&s).map_err(D::Error::custom)
            }
        }

        impl Name for $name {
            fn parse(s: &str) -> Result<Self, String> {
                $name::parse(s)
            }
        }
    };
}

name_type!(
    /// The route name of a `[providers.NAME]` table.
    ProviderName
);
name_type!(
    /// A tenant of a provider (`[providers.P.tenants.NAME]`).
    TenantName
);
name_type!(
    /// A `[handlers.NAME]` table.
    HandlerName
);
name_type!(
    /// The prefix of every Redis key (`store.key_prefix`).
    KeyPrefix
);

/// A validating name: what `config::names::map` parses a table's keys as.
pub trait Name: Ord + Sized {
    fn parse(s: &str) -> Result<Self, String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_pass_and_path_tricks_do_not() {
        for ok in ["stripe", "acme", "acme.eu", "a-b_c", "0", "default"] {
            assert!(ProviderName::parse(ok).is_ok(), "{ok}");
        }
        let long = "x".repeat(65);
        for bad in [
            "", ".", "..", ".hidden", "-x", "a/b", "a\\b", "%2e%2e", "a b", "é", &long,
        ] {
            assert!(TenantName::parse(bad).is_err(), "{bad:?}");
        }
    }
}
