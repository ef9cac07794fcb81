//! Header access shared by the schemes, the handshakes and the identity
//! sources: case-insensitive lookup over actix requests, capture files and
//! test fixtures alike, and definitions that name one header or several.

use serde::Deserialize;

/// Case-insensitive header access.
pub trait HeaderLookup {
    fn header(&self, name: &str) -> Option<&str>;

    /// The value of the first of `names` that is present.
    fn first_of(&self, names: &HeaderNames) -> Option<&str> {
        names.0.iter().find_map(|n| self.header(n))
    }
}

impl HeaderLookup for [(String, String)] {
    fn header(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Lets a borrowed slice stand where a `&dyn HeaderLookup` is wanted.
impl<T: HeaderLookup + ?Sized> HeaderLookup for &T {
    fn header(&self, name: &str) -> Option<&str> {
        (**self).header(name)
    }
}

impl HeaderLookup for Vec<(String, String)> {
    fn header(&self, name: &str) -> Option<&str> {
        self.as_slice().header(name)
    }
}

/// One or several header names; the first one present in a request is used.
/// Lets a definition accept e.g. both `webhook-id` and `svix-id`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(try_from = "OneOrMany")]
pub struct HeaderNames(pub Vec<String>);

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl TryFrom<OneOrMany> for HeaderNames {
    type Error = &'static str;

    fn try_from(v: OneOrMany) -> Result<Self, Self::Error> {
        let names = match v {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        };
        // An empty list would make every lookup miss; an empty name can
        // never match a header.
        if names.is_empty() || names.iter().any(String::is_empty) {
            return Err("a header name, or a non-empty list of them, is required");
        }
        Ok(HeaderNames(names))
    }
}

impl HeaderNames {
    /// The name a sender uses (the first listed).
    pub fn primary(&self) -> &str {
        &self.0[0]
    }

    /// Whether `name` is one of these names.
    pub fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|n| n.eq_ignore_ascii_case(name))
    }
}
