//! A filter's JSON, checked and compiled once: every operator's operand is
//! checked here, so matching never meets a malformed filter.

use std::fmt;

use serde_json::Value;

/// A mistake in a filter, at a JSON path (`$.body.data.amount`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub path: String,
    pub reason: String,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

impl std::error::Error for CompileError {}

/// What a filter value matches.
#[derive(Debug, Clone)]
pub enum Node {
    /// A primitive: an equal value, or an array holding one.
    Literal(Value),
    /// An array: an array that contains a match for every item.
    Contains(Vec<Node>),
    /// An object: every condition holds.
    All(Vec<Cond>),
}

/// One key of a filter object.
#[derive(Debug, Clone)]
pub enum Cond {
    /// A field: its value matches.
    Field(String, Node),
    Op(Op),
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
}

/// A comparison operator and its (checked) operand.
#[derive(Debug, Clone)]
pub enum Op {
    Eq(Value),
    Neq(Value),
    Gt(Value),
    Gte(Value),
    Lt(Value),
    Lte(Value),
    In(Value),
    Nin(Value),
    StartsWith(String),
    EndsWith(String),
    Exist(bool),
}

/// The parts of the request a filter may name at its top level.
const PARTS: &[&str] = &["headers", "body", "query", "path"];

/// The operators, as the error for an unknown one lists them.
const OPERATORS: &str =
    "$eq, $neq, $gt, $gte, $lt, $lte, $in, $nin, $startsWith, $endsWith, $exist, $or, $and, $not";

/// The whole filter: an object over `headers`, `body` and `path` (and
/// `$or`/`$and`/`$not` of such objects). Also returns the header names it
/// reads, lower case.
pub fn root(value: &Value) -> Result<(Node, Vec<String>), CompileError> {
    let mut headers = Vec::new();
    let node = top(value, "$", &mut headers)?;
    headers.sort();
    headers.dedup();
    Ok((node, headers))
}

fn top(value: &Value, path: &str, headers: &mut Vec<String>) -> Result<Node, CompileError> {
    let Value::Object(map) = value else {
        return Err(err(
            path,
            "must be an object with headers, body or path keys",
        ));
    };
    let mut conds = Vec::with_capacity(map.len());
    for (k, v) in map {
        let at = field_path(path, k);
        let cond = match k.as_str() {
            "$and" | "$or" => {
                let nodes = list(v, &at, |v, p| top(v, p, headers))?;
                if k == "$and" {
                    Cond::And(nodes)
                } else {
                    Cond::Or(nodes)
                }
            }
            "$not" => Cond::Not(Box::new(top(v, &at, headers)?)),
            "headers" => {
                let Value::Object(names) = v else {
                    return Err(err(&at, "must be an object of header names"));
                };
                // Header names match without case: compile them lower case.
                let mut lowered = serde_json::Map::new();
                for (name, v) in names {
                    if name.starts_with('$') {
                        lowered.insert(name.clone(), v.clone());
                    } else {
                        headers.push(name.to_ascii_lowercase());
                        lowered.insert(name.to_ascii_lowercase(), v.clone());
                    }
                }
                Cond::Field(k.clone(), node(&Value::Object(lowered), &at)?)
            }
            part if PARTS.contains(&part) => Cond::Field(k.clone(), node(v, &at)?),
            _ => {
                return Err(err(
                    &at,
                    "expected headers, body, query or path (or $or, $and, $not)",
                ))
            }
        };
        conds.push(cond);
    }
    Ok(Node::All(conds))
}

/// Any filter value, at `path`.
fn node(value: &Value, path: &str) -> Result<Node, CompileError> {
    match value {
        Value::Array(items) => Ok(Node::Contains(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| node(v, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        )),
        Value::Object(map) => {
            let mut conds = Vec::with_capacity(map.len());
            for (k, v) in map {
                let at = field_path(path, k);
                conds.push(if k.starts_with('$') {
                    operator(k, v, path, &at)?
                } else {
                    Cond::Field(k.clone(), node(v, &at)?)
                });
            }
            Ok(Node::All(conds))
        }
        primitive => Ok(Node::Literal(primitive.clone())),
    }
}

/// The operator `name` with operand `v`; errors name the position it
/// stands at (`path`), as in `$.body.amount: $gte needs a number`.
fn operator(name: &str, v: &Value, path: &str, at: &str) -> Result<Cond, CompileError> {
    let comparable = |op: fn(Value) -> Op| -> Result<Cond, CompileError> {
        match v {
            Value::Number(_) | Value::String(_) => Ok(Cond::Op(op(v.clone()))),
            _ => Err(err(path, &format!("{name} needs a number or a string"))),
        }
    };
    let listed = |op: fn(Value) -> Op| -> Result<Cond, CompileError> {
        match v {
            Value::Array(_) | Value::String(_) => Ok(Cond::Op(op(v.clone()))),
            _ => Err(err(path, &format!("{name} needs an array or a string"))),
        }
    };
    let text = || -> Result<String, CompileError> {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| err(path, &format!("{name} needs a string")))
    };
    Ok(match name {
        "$eq" => Cond::Op(Op::Eq(v.clone())),
        "$neq" => Cond::Op(Op::Neq(v.clone())),
        "$gt" => comparable(Op::Gt)?,
        "$gte" => comparable(Op::Gte)?,
        "$lt" => comparable(Op::Lt)?,
        "$lte" => comparable(Op::Lte)?,
        "$in" => listed(Op::In)?,
        "$nin" => listed(Op::Nin)?,
        "$startsWith" => Cond::Op(Op::StartsWith(text()?)),
        "$endsWith" => Cond::Op(Op::EndsWith(text()?)),
        "$exist" => match v {
            Value::Bool(b) => Cond::Op(Op::Exist(*b)),
            _ => return Err(err(path, "$exist needs true or false")),
        },
        "$and" => Cond::And(list(v, at, node)?),
        "$or" => Cond::Or(list(v, at, node)?),
        "$not" => Cond::Not(Box::new(node(v, at)?)),
        other => {
            return Err(err(
                path,
                &format!("unknown operator {other} (expected one of {OPERATORS})"),
            ))
        }
    })
}

/// The operand of `$and`/`$or`: a non-empty array of filters.
fn list(
    v: &Value,
    path: &str,
    mut each: impl FnMut(&Value, &str) -> Result<Node, CompileError>,
) -> Result<Vec<Node>, CompileError> {
    match v {
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, v)| each(v, &format!("{path}[{i}]")))
            .collect(),
        _ => Err(err(path, "needs a non-empty array of filters")),
    }
}

fn field_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

fn err(path: &str, reason: &str) -> CompileError {
    CompileError {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}
