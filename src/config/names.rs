//! Names the configuration gives things: providers, tenants, handlers, and
//! the store's key prefix. A name becomes a URL path segment
//! (`/webhooks/{provider}/{tenant}`), part of a Redis key, a directory of
//! capture files and a metrics label, so only plain names are accepted:
//! never `.`, `..`, a hidden name, a separator or an escape.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use serde::de::{DeserializeOwned, DeserializeSeed, Error as _, MapAccess, Visitor};
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
        $(#[$doc])*
        // Bound to SQL as text where the stores take one (`sqlx(transparent)`).
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, sqlx::Type)]
        #[sqlx(transparent)]
        pub struct $name(String);

        impl $name {
            /// `s` if it is a plain name; otherwise why not.
            pub fn parse(s: &str) -> Result<Self, String> {
                check(s).map(|()| $name(s.to_owned()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        // Maps keyed by a name are looked up with the `&str` of a request.
        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
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

/// A validating name, for [`map`].
pub trait Name: Ord + Sized {
    fn parse(s: &str) -> Result<Self, String>;
}

/// Deserialize a table keyed by names (`#[serde(deserialize_with =
/// "names::map")]`).
///
/// A bad name is reported as an error *of its entry*, after the entry's
/// own content, so the key path of the error names the entry
/// (`providers.".."`) and problems inside it (`providers."..".tenants.".."`)
/// are found first instead of being hidden by it.
pub fn map<'de, D, K, V>(d: D) -> Result<BTreeMap<K, V>, D::Error>
where
    D: Deserializer<'de>,
    K: Name,
    V: DeserializeOwned,
{
    struct Entries<K, V>(PhantomData<(K, V)>);

    impl<'de, K: Name, V: DeserializeOwned> Visitor<'de> for Entries<K, V> {
        type Value = BTreeMap<K, V>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a table of names")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(key) = access.next_key::<String>()? {
                let (name, value) = access.next_value_seed(Entry::<K, V>(&key, PhantomData))?;
                out.insert(name, value);
            }
            Ok(out)
        }
    }

    /// One entry's value, then its name: see [`map`].
    struct Entry<'a, K, V>(&'a str, PhantomData<(K, V)>);

    impl<'de, K: Name, V: DeserializeOwned> DeserializeSeed<'de> for Entry<'_, K, V> {
        type Value = (K, V);

        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(K, V), D::Error> {
            let value = V::deserialize(d)?;
            let name = K::parse(self.0).map_err(D::Error::custom)?;
            Ok((name, value))
        }
    }

    d.deserialize_map(Entries(PhantomData))
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
