//! Every identifier hookline passes around, each its own type, parsed once
//! where it enters (the configuration, a request, an operator's command)
//! and kept typed from there to the stores: a tenant cannot be passed
//! where a provider is wanted, nor an unchecked string where either is.
//!
//! - Names the configuration gives ([`names`]): [`ProviderName`],
//!   [`TenantName`], [`HandlerName`], [`KeyPrefix`].
//! - What a provider's request says ([`event`]): [`EventId`],
//!   [`EventType`], [`BodyDigest`].

/// A string newtype: declared, and read as the `&str` it holds (`Deref`,
/// `AsRef`, `Display`, compared with plain strings), bound to SQL and
/// serialized as that string. How one is made (its rule) is each kind's.
macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, sqlx::Type)]
        #[serde(transparent)]
        #[sqlx(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::ops::Deref for $name {
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

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        // Tests and callers compare with plain strings.
        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                self.0 == *other
            }
        }

        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.0
            }
        }
    };
}

mod event;
mod names;

pub use event::{BodyDigest, EventId, EventType, IdError, MAX_EVENT_ID_LEN, MAX_EVENT_TYPE_LEN};
pub use names::{HandlerName, KeyPrefix, Name, ProviderName, TenantName};
