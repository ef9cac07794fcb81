//! What a log line may carry of a value a request chose: no control
//! character, and no more than [`MAX_VALUE_BYTES`].
//!
//! A webhook's path names its provider and tenant, and whatever a request
//! sends (a path segment, an event ID, a URL in an error) can reach a field
//! of a log line. Written raw, `%0A` in a path forges a whole line of its
//! own (`... ERROR forged`), `%1b[31m` drives the reader's terminal, and a
//! 30,000-character name writes a 30 KB line. Every value is therefore
//! written through [`Bounded`], which escapes what a terminal or a line
//! reader would act on and stops after a fixed number of bytes, saying how
//! many it left out.

use std::fmt::{self, Write};

/// The most of one value a log line carries (escapes included); the rest
/// is replaced by `…[+N bytes]`.
pub const MAX_VALUE_BYTES: usize = 1024;

/// Whether `c` must not reach a log line as itself: C0 and C1 controls and
/// DEL (a new line, a carriage return, a terminal escape), the Unicode line
/// and paragraph separators some viewers break lines at, and the
/// bidirectional overrides that make text read in another order than it is
/// stored.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A writer that escapes unsafe characters (`\n`, `\r`, `\t`, else
/// `\u{1b}`) into `out` and keeps at most `limit` bytes of them.
pub struct Bounded<'a, W: Write + ?Sized> {
    out: &'a mut W,
    limit: usize,
    written: usize,
    /// Bytes of the value that were not written.
    left_out: usize,
}

impl<'a, W: Write + ?Sized> Bounded<'a, W> {
    pub fn new(out: &'a mut W, limit: usize) -> Self {
        Bounded {
            out,
            limit,
            written: 0,
            left_out: 0,
        }
    }

    /// Say what was left out, if anything.
    pub fn finish(self) -> fmt::Result {
        if self.left_out > 0 {
            write!(self.out, "…[+{} bytes]", self.left_out)?;
        }
        Ok(())
    }

    fn put(&mut self, piece: &str, of: usize) -> fmt::Result {
        // Once a piece does not fit, nothing after it is written either:
        // the value is cut in one place, not thinned out.
        if self.left_out > 0 || self.written + piece.len() > self.limit {
            self.left_out += of;
            return Ok(());
        }
        self.written += piece.len();
        self.out.write_str(piece)
    }
}

impl<W: Write + ?Sized> Write for Bounded<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut plain = 0;
        for (at, c) in s.char_indices() {
            if !unsafe_char(c) {
                continue;
            }
            self.put(&s[plain..at], at - plain)?;
            let escaped = match c {
                '\n' => "\\n".to_owned(),
                '\r' => "\\r".to_owned(),
                '\t' => "\\t".to_owned(),
                c => format!("\\u{{{:x}}}", u32::from(c)),
            };
            self.put(&escaped, c.len_utf8())?;
            plain = at + c.len_utf8();
        }
        self.put_plain(&s[plain..])
    }
}

impl<W: Write + ?Sized> Bounded<'_, W> {
    /// Plain text may be cut inside: as much as fits, at a character
    /// boundary.
    fn put_plain(&mut self, s: &str) -> fmt::Result {
        if self.left_out > 0 || self.written + s.len() <= self.limit {
            return self.put(s, s.len());
        }
        let mut cut = self.limit - self.written;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.put(&s[..cut], cut)?;
        self.left_out += s.len() - cut;
        Ok(())
    }
}

/// `value`'s `Debug` form, escaped and bounded, into `out`.
pub fn write_debug<W: Write + ?Sized>(out: &mut W, value: &dyn fmt::Debug) -> fmt::Result {
    let mut b = Bounded::new(out, MAX_VALUE_BYTES);
    write!(b, "{value:?}")?;
    b.finish()
}

/// Cut every string of a JSON document longer than `limit` bytes (as
/// encoded), at a character and escape boundary, marking the cut inside
/// the string. Whatever else the document holds is kept, in its order.
/// `json` is what serde_json wrote: its strings hold no raw control
/// character, and every `"` inside one is escaped.
pub fn bound_json_strings(json: &str, limit: usize) -> String {
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(json.len().min(16 * 1024));
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // A string from i + 1 to its closing quote.
        let start = i + 1;
        let mut end = start;
        let mut cut = None;
        while end < bytes.len() && bytes[end] != b'"' {
            let step = match bytes[end] {
                b'\\' if bytes.get(end + 1) == Some(&b'u') => 6,
                b'\\' => 2,
                b => utf8_len(b),
            };
            if cut.is_none() && end + step - start > limit {
                cut = Some(end);
            }
            end += step;
        }
        let end = end.min(bytes.len());
        if let Some(cut) = cut {
            out.push_str(&json[copied..cut]);
            out.push_str(&format!("…[+{} bytes]", end - cut));
            copied = end;
        }
        i = end + 1;
    }
    out.push_str(&json[copied..]);
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(s: &str, limit: usize) -> String {
        let mut out = String::new();
        let mut b = Bounded::new(&mut out, limit);
        b.write_str(s).unwrap();
        b.finish().unwrap();
        out
    }

    #[test]
    fn controls_are_escaped_and_long_values_cut_where_they_stop_fitting() {
        assert_eq!(
            bounded("t\n2026 ERROR forged\r\x1b[31m\u{202e}", 100),
            "t\\n2026 ERROR forged\\r\\u{1b}[31m\\u{202e}"
        );
        assert_eq!(bounded("abcdef", 4), "abcd…[+2 bytes]");
        // An escape that would not fit is left out whole, and what follows too.
        assert_eq!(bounded("abc\ndef", 4), "abc…[+4 bytes]");
        // Never inside a character.
        assert_eq!(bounded("aé", 2), "a…[+2 bytes]");
        assert_eq!(bounded("plain", 5), "plain");
    }

    #[test]
    fn json_strings_are_cut_in_place_and_the_rest_kept() {
        let doc = r#"{"a":"0123456789","b":"x\"\n\u001by","c":[1,"ok"]}"#;
        assert_eq!(
            bound_json_strings(doc, 4),
            r#"{"a":"0123…[+6 bytes]","b":"x\"…[+9 bytes]","c":[1,"ok"]}"#
        );
        assert_eq!(bound_json_strings(doc, 100), doc);
        let cut = bound_json_strings(doc, 4);
        serde_json::from_str::<serde_json::Value>(&cut).expect("still JSON");
    }
}
