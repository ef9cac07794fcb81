//! [`Derived`]: runtime data computed from the settings while they are
//! validated (a provider's definition, a table's own name), kept next to
//! the settings it comes from.

use std::fmt;
use std::ops::Deref;

/// A value the file does not hold but validation fills in: serde leaves it
/// empty, and [`super::load`] sets it before it hands out a
/// [`super::Settings`]. Settings exist only validated, so every read finds it
/// set.
#[derive(Clone, PartialEq, Eq)]
pub struct Derived<T>(Option<T>);

impl<T> Derived<T> {
    pub(super) fn set(&mut self, value: T) {
        self.0 = Some(value);
    }

    /// The value, if validation got as far as setting it (rules that run on
    /// settings with problems must not assume it).
    pub fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

impl<T> Default for Derived<T> {
    fn default() -> Self {
        Derived(None)
    }
}

impl<T> Deref for Derived<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0
            .as_ref()
            .expect("a derived setting is filled in before the settings are handed out")
    }
}

impl<T: fmt::Debug> fmt::Debug for Derived<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.write_str("(not derived)"),
        }
    }
}
