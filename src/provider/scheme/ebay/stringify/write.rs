//! Writing a parsed body back as `JSON.stringify` writes it.

use std::fmt::Write as _;

use super::{Value, MAX_ARRAY_INDEX};

pub(super) fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(x) => write_number(*x, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut indexed: Vec<(u64, &(String, Value))> = members
                .iter()
                .filter_map(|m| array_index(&m.0).map(|i| (i, m)))
                .collect();
            indexed.sort_by_key(|(i, _)| *i);
            let named = members.iter().filter(|m| array_index(&m.0).is_none());
            out.push('{');
            for (i, (key, value)) in indexed.into_iter().map(|(_, m)| m).chain(named).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_value(value, out);
            }
            out.push('}');
        }
    }
}

/// The key's value if it is an array index: the canonical decimal form of
/// an integer from 0 to 2^32 - 2.
fn array_index(key: &str) -> Option<u64> {
    let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty());
    if !canonical || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u64>().ok().filter(|i| *i <= MAX_ARRAY_INDEX)
}

/// A string as `JSON.stringify` quotes it (a lone surrogate cannot occur:
/// Rust strings hold none).
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A double as `Number.prototype.toString()` writes it (ECMA-262
/// Number::toString, radix 10); `JSON.stringify` writes a non-finite one as
/// `null`.
fn write_number(x: f64, out: &mut String) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    if x == 0.0 {
        out.push('0');
        return;
    }
    if x < 0.0 {
        out.push('-');
    }
    // Rust's `{:e}` writes the shortest digits that read back as the same
    // double: the digits s and exponent of Number::toString.
    let exponential = format!("{:e}", x.abs());
    let (mantissa, exponent) = exponential
        .split_once('e')
        .expect("`{:e}` writes an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exponent: i64 = exponent.parse().expect("`{:e}` writes an integer exponent");
    let k = digits.len() as i64;
    let n = exponent + 1;
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.push_str(&"0".repeat((n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat((-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = n - 1;
        let _ = write!(out, "e{}{}", if e >= 0 { "+" } else { "-" }, e.abs());
    }
}
