//! Per-handler filters in Hookdeck's filter syntax
//! (<https://hookdeck.com/docs/filters>): a JSON document matched against
//! the request as `{"headers": {...}, "body": ..., "query": {...}, "path": "..."}`.
//!
//! - `compile`: the JSON read once, at config load, into a [`Filter`];
//!   every mistake reported with its JSON path (`$.body.amount: $gte
//!   needs a number or a string`);
//! - `eval`: a compiled filter against one event's [`Request`].
//!
//! The semantics, as Hookdeck documents them: an object matches when each
//! of its keys matches (nested objects recurse, keys absent from the filter
//! are ignored); a primitive matches an equal value, or an array that
//! contains it; an array matches an array that contains every one of its
//! items; an object matched against an array matches when one item
//! matches it. Operators (`$eq`, `$neq`, `$gt`, `$gte`, `$lt`, `$lte`,
//! `$in`, `$nin`, `$startsWith`, `$endsWith`, `$exist`, `$or`, `$and`,
//! `$not`) may stand wherever a value may. Header names match
//! case-insensitively.

mod compile;
mod eval;
mod reloading;

use serde_json::{Map, Value};

pub use compile::CompileError;
pub use reloading::ReloadingFilter;

/// A compiled filter: what a handler's `filter` or `filter_file` holds.
#[derive(Debug, Clone)]
pub struct Filter {
    root: compile::Node,
    /// The header names the filter reads, lower case: the receiver keeps
    /// these from the request so the filter can see them.
    headers: Vec<String>,
}

impl Filter {
    /// Compile the filter's JSON text.
    pub fn parse(text: &str) -> Result<Filter, CompileError> {
        let value: Value = serde_json::from_str(text).map_err(|e| CompileError {
            path: "$".to_owned(),
            reason: format!("not JSON: {e}"),
        })?;
        Filter::compile(&value)
    }

    /// Compile a filter already read as JSON.
    pub fn compile(value: &Value) -> Result<Filter, CompileError> {
        let (root, headers) = compile::root(value)?;
        Ok(Filter { root, headers })
    }

    /// The header names the filter reads (lower case).
    pub fn header_names(&self) -> &[String] {
        &self.headers
    }

    /// Whether the filter lets `request` through.
    pub fn allows(&self, request: &Request) -> bool {
        eval::matches(&self.root, Some(&request.value))
    }
}

/// A query string (without `?`) as filters and transforms see it, as
/// Hookdeck shapes `query`: an object of the decoded parameters, a name
/// given once holding its value, a name repeated an array of its values.
pub fn query_object(query: &str) -> Value {
    let mut map = Map::new();
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        let value = Value::String(value.into_owned());
        match map.get_mut(name.as_ref()) {
            None => {
                map.insert(name.into_owned(), value);
            }
            Some(Value::Array(values)) => values.push(value),
            Some(first) => *first = Value::Array(vec![first.take(), value]),
        }
    }
    Value::Object(map)
}

/// An event as a filter sees it.
#[derive(Debug, Clone)]
pub struct Request {
    value: Value,
}

impl Request {
    /// The request made of `headers` (as received; names compared without
    /// case), `body` (parsed when it is JSON, else matched as text), the
    /// `query` string ([`query_object`]) and `path`.
    pub fn new<'a>(
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
        body: &[u8],
        query: &str,
        path: &str,
    ) -> Request {
        let headers: Map<String, Value> = headers
            .into_iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), Value::String(v.to_owned())))
            .collect();
        let body = serde_json::from_slice(body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()));
        let mut value = Map::new();
        value.insert("headers".into(), Value::Object(headers));
        value.insert("body".into(), body);
        value.insert("query".into(), query_object(query));
        value.insert("path".into(), Value::String(path.to_owned()));
        Request {
            value: Value::Object(value),
        }
    }

    /// The path a filter sees for an event of `provider` and `tenant`.
    pub fn path_of(provider: &str, tenant: &str) -> String {
        format!("/webhooks/{provider}/{tenant}")
    }
}

#[cfg(test)]
mod tests;
