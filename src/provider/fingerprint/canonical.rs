//! The canonical form the content digest is taken of: object members
//! sorted by key, no whitespace, strings and numbers written as
//! serde_json writes them.
//!
//! The document is read into a light tree of its own ([`Node`]): member
//! names and strings without escapes borrowed from the body, members kept
//! in a sorted `Vec`. Building a `serde_json::Value` instead (a `String`
//! per name and per string, a `BTreeMap` per object) was a twelfth of the
//! Redis-only path's CPU with Stripe's 1 KB events (bench/NOTES.md, "A
//! content digest that builds no document"). The bytes written are the
//! same as `Value`'s canonical form wrote: digests already stored in Redis
//! and PostgreSQL keep matching (the tests compare the two forms).

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use crate::provider::identity::{array_index, unescape, Name};

/// A JSON value as the digest needs it.
#[derive(Debug)]
pub(super) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    /// Sorted by name, each name once (the last of a repeated name wins,
    /// as in `Value`).
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    /// Parse `json`, or `None` when it is not one JSON document.
    pub(super) fn parse(json: &'a [u8]) -> Option<Self> {
        serde_json::from_slice(json).ok()
    }

    /// Remove the value at `pointer` (RFC 6901), if it is there. Object
    /// members are found by name, array items by an index written as
    /// `Value::pointer_mut` reads the pointer's parent and as
    /// [`remove_item`] reads its last step.
    pub(super) fn remove(&mut self, pointer: &str) {
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            return;
        };
        let last = unescape(last);
        match self.at_mut(parent) {
            Some(Node::Object(members)) => {
                if let Ok(i) = members.binary_search_by(|(k, _)| k.as_ref().cmp(last.as_ref())) {
                    members.remove(i);
                }
            }
            Some(Node::Array(items)) => remove_item(items, &last),
            _ => {}
        }
    }

    /// The value at `pointer`, as `Value::pointer_mut` finds it.
    fn at_mut(&mut self, pointer: &str) -> Option<&mut Node<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut at = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = unescape(token);
            at = match at {
                Node::Object(members) => {
                    let i = members
                        .binary_search_by(|(k, _)| k.as_ref().cmp(token.as_ref()))
                        .ok()?;
                    &mut members[i].1
                }
                Node::Array(items) => items.get_mut(array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(at)
    }

    /// Append the canonical form to `out`.
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        match self {
            Node::Null => out.extend_from_slice(b"null"),
            Node::Bool(true) => out.extend_from_slice(b"true"),
            Node::Bool(false) => out.extend_from_slice(b"false"),
            Node::Number(n) => serde_json::to_writer(&mut *out, n).expect("a number serializes"),
            Node::String(s) => write_str(s, out),
            Node::Array(items) => {
                out.push(b'[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    v.write(out);
                }
                out.push(b']');
            }
            Node::Object(members) => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_str(k, out);
                    out.push(b':');
                    v.write(out);
                }
                out.push(b'}');
            }
        }
    }
}

fn write_str(s: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, s).expect("a string serializes");
}

/// Remove the item at `last` (a pointer's last step): any index Rust
/// parses (a `+` sign included) without a leading zero.
fn remove_item(items: &mut Vec<Node<'_>>, last: &str) {
    if let Ok(i) = last.parse::<usize>() {
        if i < items.len() && (last == "0" || !last.starts_with('0')) {
            items.remove(i);
        }
    }
}

impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node<'de>, E> {
        // As `Value`: a float JSON cannot write is null.
        Ok(Number::from_f64(v).map_or(Node::Null, Node::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(v)))
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_none<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut members: Vec<(Cow<'de, str>, Node<'de>)> = Vec::new();
        while let Some(k) = map.next_key_seed(Name)? {
            members.push((k, map.next_value()?));
        }
        // Of a repeated name the last is kept, as in `Value`: reversed, it
        // is the first of its run after a stable sort, and `dedup_by`
        // keeps the first.
        members.reverse();
        members.sort_by(|a, b| a.0.cmp(&b.0));
        members.dedup_by(|later, first| later.0 == first.0);
        Ok(Node::Object(members))
    }
}

#[cfg(test)]
mod tests;
