//! A compiled filter against a value. `None` is a field the event does not
//! have: it matches nothing but `$exist: false`, `$neq`, `$nin` and a
//! `$not` of what it fails.

use std::cmp::Ordering;

use serde_json::Value;

use super::compile::{Cond, Node, Op};

/// Whether `node` matches `value`.
pub fn matches(node: &Node, value: Option<&Value>) -> bool {
    match node {
        Node::Literal(lit) => value.is_some_and(|v| match v {
            // Arrays are matched by containment.
            Value::Array(items) if !lit.is_array() => items.iter().any(|i| equal(i, lit)),
            v => equal(v, lit),
        }),
        Node::Contains(wanted) => match value {
            Some(Value::Array(items)) => wanted
                .iter()
                .all(|w| items.iter().any(|i| matches(w, Some(i)))),
            _ => false,
        },
        Node::All(conds) => {
            // An object of fields against an array: one item must match it.
            if let Some(Value::Array(items)) = value {
                if conds.iter().any(|c| matches!(c, Cond::Field(..))) {
                    return items.iter().any(|i| matches(node, Some(i)));
                }
            }
            conds.iter().all(|c| holds(c, value))
        }
    }
}

fn holds(cond: &Cond, value: Option<&Value>) -> bool {
    match cond {
        Cond::Field(key, node) => match value {
            Some(Value::Object(map)) => matches(node, map.get(key)),
            _ => matches(node, None),
        },
        Cond::Op(op) => operator(op, value),
        Cond::And(nodes) => nodes.iter().all(|n| matches(n, value)),
        Cond::Or(nodes) => nodes.iter().any(|n| matches(n, value)),
        Cond::Not(node) => !matches(node, value),
    }
}

fn operator(op: &Op, value: Option<&Value>) -> bool {
    match op {
        Op::Exist(wanted) => value.is_some() == *wanted,
        Op::Eq(x) => value.is_some_and(|v| equal(v, x)),
        Op::Neq(x) => !value.is_some_and(|v| equal(v, x)),
        Op::In(x) => value.is_some_and(|v| within(v, x)),
        Op::Nin(x) => !value.is_some_and(|v| within(v, x)),
        Op::Gt(x) => any_item(value, |v| compare(v, x) == Some(Ordering::Greater)),
        Op::Gte(x) => any_item(value, |v| {
            matches!(compare(v, x), Some(Ordering::Greater | Ordering::Equal))
        }),
        Op::Lt(x) => any_item(value, |v| compare(v, x) == Some(Ordering::Less)),
        Op::Lte(x) => any_item(value, |v| {
            matches!(compare(v, x), Some(Ordering::Less | Ordering::Equal))
        }),
        Op::StartsWith(s) => any_item(value, |v| v.as_str().is_some_and(|t| t.starts_with(s))),
        Op::EndsWith(s) => any_item(value, |v| v.as_str().is_some_and(|t| t.ends_with(s))),
    }
}

/// `test` on the value, or on any item when it is an array.
fn any_item(value: Option<&Value>, test: impl Fn(&Value) -> bool) -> bool {
    match value {
        Some(Value::Array(items)) => items.iter().any(&test),
        Some(v) => test(v),
        None => false,
    }
}

/// `$in`: with an array operand, the value (or one of its items) is one of
/// its items; with a string operand, the value is a string containing it
/// or an array holding it.
fn within(v: &Value, operand: &Value) -> bool {
    match (v, operand) {
        (Value::Array(items), Value::Array(_)) => items.iter().any(|i| within(i, operand)),
        (v, Value::Array(options)) => options.iter().any(|o| equal(v, o)),
        (Value::String(s), Value::String(part)) => s.contains(part.as_str()),
        (Value::Array(items), s @ Value::String(_)) => items.iter().any(|i| equal(i, s)),
        _ => false,
    }
}

/// Numbers with numbers, strings with strings; nothing else compares.
fn compare(v: &Value, x: &Value) -> Option<Ordering> {
    match (v, x) {
        (Value::Number(a), Value::Number(b)) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        _ => None,
    }
}

/// Deep equality, numbers by value (`1` equals `1.0`).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| equal(a, b)))
        }
        (a, b) => a == b,
    }
}
