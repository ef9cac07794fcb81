//! `JSON.stringify(JSON.parse(body))`, byte for byte: what eBay's SDK
//! (`event-notification-nodejs-sdk`) verifies a notification's signature
//! over, once `express.json()` has parsed the body.
//!
//! What JavaScript does, and so what this does:
//!
//! - no whitespace between tokens;
//! - an object's members in JavaScript's property order: the keys that are
//!   array indices (`"0"`, `"1"`, ... up to `"4294967294"`, written without
//!   a leading zero) first, in ascending numeric order, then the others in
//!   the order they came;
//! - strings re-escaped as `JSON.stringify` writes them: `\"`, `\\`, `\b`,
//!   `\f`, `\n`, `\r`, `\t`, other characters below U+0020 as `\u00xx`
//!   (lower-case hex), everything else literal (`/`, non-ASCII, U+2028 and
//!   U+2029, DEL);
//! - numbers read as IEEE doubles (correctly rounded) and written as
//!   `Number.prototype.toString` writes them (ECMA-262 Number::toString):
//!   the shortest digits that read back as the same double, in plain
//!   notation for exponents from -7 to 20, else `d.ddde+N`; `-0` is `0`;
//!   a literal too large for a double (`1e400`, Infinity) is `null`.
//!
//! What it refuses instead ([`Refused`]), so that nothing is verified over a
//! re-serialization that could be read two ways: a body that is not UTF-8
//! or not JSON (with `JSON.parse`'s grammar: an object or array at the top,
//! as `express.json()` wants), an object with a key twice (JavaScript keeps
//! the last value, other parsers the first), a string with a lone
//! surrogate escape (no Unicode text; a body that writes it as
//! `JSON.stringify` does, `\ud800`, is its own re-serialization, and the
//! family's check over the raw bytes decides it), and nesting deeper than
//! [`MAX_DEPTH`].

mod write;

use std::collections::HashSet;

use write::write_value;

/// The deepest nesting read.
pub const MAX_DEPTH: usize = 128;
/// The largest array index: 2^32 - 2.
const MAX_ARRAY_INDEX: u64 = 4_294_967_294;

/// Why a body has no re-serialization to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    NotUtf8,
    NotJson,
    DuplicateKey,
    LoneSurrogate,
    TooDeep,
}

impl Refused {
    pub fn reason(self) -> &'static str {
        match self {
            Refused::NotUtf8 => "the body is not UTF-8",
            Refused::NotJson => "the body is not a JSON object or array",
            Refused::DuplicateKey => "an object of the body has a key twice",
            Refused::LoneSurrogate => "a string of the body has a lone surrogate",
            Refused::TooDeep => "the body nests too deeply",
        }
    }
}

/// `JSON.stringify(JSON.parse(body))`, or why it is refused.
pub fn stringify(body: &[u8]) -> Result<String, Refused> {
    let text = std::str::from_utf8(body).map_err(|_| Refused::NotUtf8)?;
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    p.ws();
    if !matches!(p.peek(), Some(b'{' | b'[')) {
        return Err(Refused::NotJson);
    }
    let value = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(Refused::NotJson);
    }
    let mut out = String::with_capacity(body.len());
    write_value(&value, &mut out);
    Ok(out)
}

/// A parsed JSON value, members in the order they came.
enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Result<(), Refused> {
        if self.peek() != Some(b) {
            return Err(Refused::NotJson);
        }
        self.i += 1;
        Ok(())
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, Refused> {
        if !self.s[self.i..].starts_with(word.as_bytes()) {
            return Err(Refused::NotJson);
        }
        self.i += word.len();
        Ok(value)
    }

    fn value(&mut self, depth: usize) -> Result<Value, Refused> {
        if depth > MAX_DEPTH {
            return Err(Refused::TooDeep);
        }
        self.ws();
        match self.peek().ok_or(Refused::NotJson)? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string().map(Value::String),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Refused::NotJson),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Refused> {
        self.eat(b'{')?;
        let mut members: Vec<(String, Value)> = Vec::new();
        // A set, not a scan of `members`: a forged body of many keys must
        // not cost quadratic time.
        let mut seen: HashSet<String> = HashSet::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.ws();
            let key = self.string()?;
            self.ws();
            self.eat(b':')?;
            let value = self.value(depth + 1)?;
            if !seen.insert(key.clone()) {
                return Err(Refused::DuplicateKey);
            }
            members.push((key, value));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(Refused::NotJson),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, Refused> {
        self.eat(b'[')?;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(Refused::NotJson),
            }
        }
    }

    fn hex4(&mut self) -> Result<u16, Refused> {
        let digits = self.s.get(self.i..self.i + 4).ok_or(Refused::NotJson)?;
        let text = std::str::from_utf8(digits).map_err(|_| Refused::NotJson)?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Refused::NotJson);
        }
        self.i += 4;
        u16::from_str_radix(text, 16).map_err(|_| Refused::NotJson)
    }

    fn string(&mut self) -> Result<String, Refused> {
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // The input is UTF-8 and the run stops only at ASCII bytes.
            out.push_str(
                std::str::from_utf8(&self.s[start..self.i]).map_err(|_| Refused::NotUtf8)?,
            );
            match self.peek().ok_or(Refused::NotJson)? {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.i += 1;
                    let escaped = self.peek().ok_or(Refused::NotJson)?;
                    self.i += 1;
                    match escaped {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => return Err(Refused::NotJson),
                    }
                }
                // A raw control character: JSON.parse refuses it.
                _ => return Err(Refused::NotJson),
            }
        }
    }

    /// The character of a `\uXXXX` escape (its `\u` read), or of a pair.
    fn unicode_escape(&mut self) -> Result<char, Refused> {
        let first = self.hex4()?;
        if !(0xD800..=0xDFFF).contains(&first) {
            return char::from_u32(u32::from(first)).ok_or(Refused::NotJson);
        }
        if first >= 0xDC00 || !self.s[self.i..].starts_with(b"\\u") {
            return Err(Refused::LoneSurrogate);
        }
        self.i += 2;
        let second = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&second) {
            return Err(Refused::LoneSurrogate);
        }
        let c = 0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(second) - 0xDC00);
        char::from_u32(c).ok_or(Refused::NotJson)
    }

    fn number(&mut self) -> Result<Value, Refused> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Refused::NotJson),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.required_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            self.required_digits()?;
        }
        let literal = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| Refused::NotJson)?;
        // Rust reads a decimal literal correctly rounded, as JavaScript
        // does; one past the double range is infinite.
        literal
            .parse::<f64>()
            .map(Value::Number)
            .map_err(|_| Refused::NotJson)
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
    }

    fn required_digits(&mut self) -> Result<(), Refused> {
        let start = self.i;
        self.digits();
        if self.i == start {
            return Err(Refused::NotJson);
        }
        Ok(())
    }
}
