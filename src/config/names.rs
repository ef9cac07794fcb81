//! Tables keyed by names (`[providers.NAME]`, `[handlers.NAME]`): each key
//! parsed as its name type (`crate::ids`), its errors reported where they
//! are.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed, Error as _, MapAccess, Visitor};
use serde::Deserializer;

pub use crate::ids::Name;

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
