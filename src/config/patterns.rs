//! Glob lists (`critical`, a handler's `tenants` and `events`), each
//! pattern checked where it is written, compiled once into a set.

use std::fmt;

use globset::{Candidate, Glob, GlobSet, GlobSetBuilder};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

/// One pattern of a list.
pub trait Pattern: Sized {
    /// The pattern as written, or why it is not one.
    fn parse(text: &str) -> Result<Self, String>;
    fn glob(&self) -> &Glob;
}

/// Patterns as written, and the set matching any of them.
#[derive(Clone)]
pub struct PatternSet<P> {
    patterns: Vec<P>,
    set: GlobSet,
}

/// Plain globs: `payment_intent.*`, `acme-*`.
pub type Globs = PatternSet<GlobPattern>;
/// `provider:event-type` globs: `stripe:payment_intent.*`, `*:*`.
pub type EventGlobs = PatternSet<EventPattern>;

impl<P: Pattern> PatternSet<P> {
    fn build(patterns: Vec<P>) -> Result<Self, String> {
        let mut b = GlobSetBuilder::new();
        for p in &patterns {
            b.add(p.glob().clone());
        }
        let set = b.build().map_err(|e| e.to_string())?;
        Ok(PatternSet { patterns, set })
    }

    /// `texts` as a set; for defaults, whose patterns are known good.
    pub fn of(texts: &[&str]) -> Self {
        let patterns = texts
            .iter()
            .map(|t| P::parse(t).expect("a default pattern parses"))
            .collect();
        Self::build(patterns).expect("a default pattern set builds")
    }

    pub fn patterns(&self) -> &[P] {
        &self.patterns
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn is_match(&self, s: &str) -> bool {
        self.set.is_match(s)
    }

    /// Match a candidate prepared once for many sets.
    pub fn is_match_candidate(&self, c: &Candidate<'_>) -> bool {
        self.set.is_match_candidate(c)
    }
}

impl<P> Default for PatternSet<P> {
    fn default() -> Self {
        PatternSet {
            patterns: Vec::new(),
            set: GlobSet::empty(),
        }
    }
}

impl<P: fmt::Display> fmt::Debug for PatternSet<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.patterns.iter().map(|p| p.to_string()))
            .finish()
    }
}

impl<'de, P: Pattern + Deserialize<'de>> Deserialize<'de> for PatternSet<P> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Element by element, so a bad pattern's error names its index.
        let patterns = Vec::<P>::deserialize(d)?;
        Self::build(patterns).map_err(D::Error::custom)
    }
}

/// One glob.
#[derive(Clone)]
pub struct GlobPattern(Glob);

impl Pattern for GlobPattern {
    fn parse(text: &str) -> Result<Self, String> {
        Glob::new(text)
            .map(GlobPattern)
            .map_err(|e| format!("bad glob: {}", e.kind()))
    }
    fn glob(&self) -> &Glob {
        &self.0
    }
}

impl fmt::Display for GlobPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.glob())
    }
}

/// `provider:event-type`, both halves globs.
#[derive(Clone)]
pub struct EventPattern {
    glob: Glob,
    provider: String,
}

impl EventPattern {
    /// The provider half (`stripe`, or a glob such as `*`).
    pub fn provider(&self) -> &str {
        &self.provider
    }
}

impl Pattern for EventPattern {
    fn parse(text: &str) -> Result<Self, String> {
        let Some((provider, _)) = text.split_once(':') else {
            return Err("must be provider:event-type (e.g. stripe:payment_intent.*)".into());
        };
        let GlobPattern(glob) = GlobPattern::parse(text)?;
        Ok(EventPattern {
            glob,
            provider: provider.to_owned(),
        })
    }
    fn glob(&self) -> &Glob {
        &self.glob
    }
}

impl fmt::Display for EventPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.glob.glob())
    }
}

/// Both pattern kinds read from a string through [`Pattern::parse`].
macro_rules! deserialize_via_parse {
    ($($t:ty),*) => {$(
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$t as Pattern>::parse(&String::deserialize(d)?).map_err(D::Error::custom)
            }
        }
    )*};
}
deserialize_via_parse!(GlobPattern, EventPattern);
