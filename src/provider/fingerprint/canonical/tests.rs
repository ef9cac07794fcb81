//! The canonical form against the one `Value` gave (the digest's form until
//! 2026-11-27, kept here as the reference): the same bytes for every
//! document and every removal, so digests already stored keep matching.

use serde_json::Value;

use super::Node;

/// The canonical form as it was computed from a `serde_json::Value`.
fn reference(body: &[u8], ignore: &[&str]) -> Option<Vec<u8>> {
    let mut doc: Value = serde_json::from_slice(body).ok()?;
    for pointer in ignore {
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            continue;
        };
        let last = last.replace("~1", "/").replace("~0", "~");
        match doc.pointer_mut(parent) {
            Some(Value::Object(members)) => {
                members.remove(last.as_str());
            }
            Some(Value::Array(items)) => {
                if let Ok(i) = last.parse::<usize>() {
                    if i < items.len() && (last == "0" || !last.starts_with('0')) {
                        items.remove(i);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    write_value(&doc, &mut out);
    Some(out)
}

fn write_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(members) => {
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (k, v)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, k).unwrap();
                out.push(b':');
                write_value(v, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(v, out);
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar).unwrap(),
    }
}

fn ours(body: &[u8], ignore: &[&str]) -> Option<Vec<u8>> {
    let mut doc = Node::parse(body)?;
    for pointer in ignore {
        doc.remove(pointer);
    }
    let mut out = Vec::new();
    doc.write(&mut out);
    Some(out)
}

fn same(body: &str, ignore: &[&str]) {
    assert_eq!(
        ours(body.as_bytes(), ignore).map(String::from_utf8),
        reference(body.as_bytes(), ignore).map(String::from_utf8),
        "{body} less {ignore:?}"
    );
}

#[test]
fn written_documents_match_the_value_form() {
    for body in [
        r#"{"b":1,"a":{"d":[1,2.50,-0,1e3,-7,18446744073709551615,-9223372036854775808],"c":null}}"#,
        r#"{ "x" : "caf\u00e9 \"q\" \/ \n\t\u0001 \ud83d\ude00", "w": true, "v": false }"#,
        r#"{"dup":1,"a":0,"dup":{"z":2},"dup":[3]}"#,
        r#"{"esc\u0041ped":1,"escAped":2,"":3}"#,
        r#"[1,"two",{"b":[],"a":{}},[[]],1.0e-7,123456789012345678901234567890]"#,
        r#""just a string""#,
        "12.5",
        "null",
        "  {\"a\":1}  \n",
    ] {
        same(body, &[]);
    }
    // Not JSON, or more than one document: neither form reads it.
    for body in ["{", "{\"a\":1} x", "a=1&b=2", "", "[1,]", "{\"a\":1e400}"] {
        assert_eq!(ours(body.as_bytes(), &[]), None, "{body}");
        assert_eq!(reference(body.as_bytes(), &[]), None, "{body}");
    }
}

#[test]
fn removals_match_the_value_form() {
    let body = r#"{"meta":{"attempt":3,"a/b":1,"m~n":2,"list":[0,1,2,3,4,5,6,7,8,9,10,11]},
        "data":{"id":"x","dup":1,"dup":2},"attempts":[{"n":1}],"pending_webhooks":2}"#;
    for ignore in [
        &["/pending_webhooks"][..],
        &["/attempts", "/meta/attempt"],
        &["/meta/a~1b", "/meta/m~0n"],
        &["/data/dup"],
        &["/meta/list/0", "/meta/list/3"],
        &[
            "/meta/list/+1",
            "/meta/list/01",
            "/meta/list/10",
            "/meta/list/99",
        ],
        &[
            "/meta/list/-1",
            "/meta/list/x",
            "/missing/deep",
            "/data/id/deeper",
        ],
        &["/attempts/0/n"],
        &["/attempts/00/n"],
        &["/attempts/+0/n"],
        &["/meta/list/+1/x", "/meta/list/01/x"],
        &["/", "//x", "no-slash"],
    ] {
        same(body, ignore);
    }
}

/// A little generator (xorshift, fixed seed) of JSON texts with what the
/// forms could disagree on: escapes, repeated names, numbers of every
/// kind, nesting, whitespace.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }

    fn value(&mut self, depth: u32, out: &mut String) {
        let kind = if depth > 3 {
            self.next() % 4
        } else {
            self.next() % 6
        };
        match kind {
            0 => out.push_str(self.pick(&["null", "true", "false"])),
            1 => out.push_str(self.pick(&[
                "0",
                "-0",
                "7",
                "-12",
                "3.25",
                "1e2",
                "-1.5E-3",
                "0.1",
                "1.0",
                "18446744073709551616",
                "9007199254740993",
                "2.5e+10",
            ])),
            2 | 3 => out.push_str(self.pick(&[
                r#""a""#,
                r#""""#,
                r#""caf\u00e9""#,
                r#""x\ny""#,
                r#""\"q\"""#,
                r#""\/""#,
                r#""\ud83d\ude00""#,
                r#""é""#,
                r#""\u0000""#,
                r#""tab	""#,
            ])),
            4 => {
                out.push('[');
                for i in 0..self.next() % 4 {
                    if i > 0 {
                        out.push_str(self.pick(&[",", " , ", ",\n"]));
                    }
                    self.value(depth + 1, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..self.next() % 5 {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(self.pick(&[
                        r#""id""#,
                        r#""a""#,
                        r#""b""#,
                        r#""B""#,
                        r#""a/b""#,
                        r#""m~n""#,
                        r#""\u0061""#,
                        r#""""#,
                        r#""é""#,
                        r#""data""#,
                    ]));
                    out.push_str(self.pick(&[":", " : "]));
                    self.value(depth + 1, out);
                }
                out.push('}');
            }
        }
    }
}

#[test]
fn generated_documents_and_removals_match_the_value_form() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let pointers = [
        "/id",
        "/a",
        "/data/id",
        "/data/a/b",
        "/a~1b",
        "/m~0n",
        "/a/0",
        "/a/1",
        "/data/0/id",
        "/B/a",
        "/",
        "/é",
        "/a/01",
        "/a/+1",
        "/a/+0/a",
        "/a/00/b",
    ];
    for _ in 0..3000 {
        let mut body = String::new();
        g.value(0, &mut body);
        let n = (g.next() % 3) as usize;
        let ignore: Vec<&str> = (0..n).map(|_| g.pick(&pointers)).collect();
        same(&body, &ignore);
    }
}
