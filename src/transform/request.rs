//! The request a transformation receives and returns, as Hookdeck shapes
//! it: `{headers, body, query, path}`.

use serde_json::{Map, Value};

/// A request before or after a transformation.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Header names lower case, values as sent.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
    /// The query string the event came with, without `?` (the script sees
    /// it parsed, [`crate::filter::query_object`]).
    pub query: String,
    pub path: String,
}

impl Request {
    /// The JSON the script sees: `body` parsed when it is JSON, else a
    /// string.
    pub fn to_js(&self) -> Value {
        let headers: Map<String, Value> = self
            .headers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), Value::String(v.clone())))
            .collect();
        let body = serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&self.body).into_owned()));
        serde_json::json!({
            "headers": headers,
            "body": body,
            "query": crate::filter::query_object(&self.query),
            "path": self.path,
        })
    }

    /// What a script returned, read back; `None` when it is not a request
    /// (an object whose `headers`, when present, is an object).
    pub fn from_js(value: &Value) -> Result<Request, String> {
        let Value::Object(map) = value else {
            return Err(format!(
                "the transform returned {}, not a request",
                kind(value)
            ));
        };
        let headers = match map.get("headers") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(h)) => h
                .iter()
                .filter_map(|(n, v)| {
                    let v = match v {
                        Value::String(s) => s.clone(),
                        Value::Null => return None,
                        other => other.to_string(),
                    };
                    Some((n.to_ascii_lowercase(), v))
                })
                .collect(),
            Some(other) => {
                return Err(format!(
                    "the transform returned headers that are {}, not an object",
                    kind(other)
                ))
            }
        };
        let body = match map.get("body") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(s)) => s.clone().into_bytes(),
            Some(other) => serde_json::to_vec(other).expect("JSON serializes"),
        };
        let path = map
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(Request {
            headers,
            body,
            query: String::new(),
            path,
        })
    }

    /// Whether the returned body was an object or array (so it is JSON).
    pub fn body_is_json(value: &Value) -> bool {
        matches!(value.get("body"), Some(Value::Object(_) | Value::Array(_)))
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
