//! The signed content of an HMAC scheme: literal text and placeholders,
//! parsed once when the definition loads, fed to the MAC part by part so
//! the body is never copied.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use md5::Md5;
use sha2::{Digest, Sha256};

use super::form;
use super::header::HeaderLookup;

/// A parsed `signed_content` template.
///
/// Placeholders: `{id}`, `{timestamp}`, `{url}` (the external URL the
/// provider called), `{body}` (the raw body), `{method}` (`POST`),
/// `{header:Name}` (that request header's value), `{form}` (a form
/// body's parameters, see [`form::sorted_params`]) and `{body_sha256_bytes}`
/// (the 32 raw bytes of the body's SHA-256, which Bird signs instead of the
/// body), `{body_json}` (the body as a JSON string literal, quotes included,
/// escaped as JavaScript's `JSON.stringify` escapes it: Hygraph signs a JSON
/// document that holds the body), `{pair:Name}` (the value of the pair
/// `Name` of an `hmac-kv` header), `{path}` (the path of the URL the
/// provider called, without the query) and `{body_md5_base64}` (base64 of
/// the body's MD5, empty for an empty body: HTTP's `Content-MD5`, which
/// Sinch's Voice callbacks sign) and `{body_sha256_hex}` (the lower-case hex
/// text of the body's SHA-256, which Tebex signs instead of the body).
/// `{{` is a literal `{`. An unknown placeholder is a load error, and so is
/// a template that covers none of `{body}`, `{form}`, `{body_sha256_bytes}`,
/// `{body_sha256_hex}`, `{body_json}` or `{body_md5_base64}`: it would
/// leave the body unsigned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct Template(Vec<Part>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Id,
    Timestamp,
    Url,
    Body,
    Method,
    Header(String),
    Form,
    BodySha256Bytes,
    BodyJson,
    Pair(String),
    Path,
    BodyMd5Base64,
    BodySha256Hex,
}

/// What the placeholders stand for in one request.
pub(crate) struct Values<'a> {
    pub id: &'a str,
    pub timestamp: &'a str,
    pub method: &'a str,
    pub url: &'a str,
    pub headers: &'a dyn HeaderLookup,
    pub body: &'a [u8],
    /// The `key=value` pairs of an `hmac-kv` header, for `{pair:Name}`.
    pub pairs: &'a [(String, String)],
}

/// A `{header:Name}` the request does not carry.
#[derive(Debug)]
pub(crate) struct MissingHeader(pub String);

impl TryFrom<String> for Template {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        Template::parse(&s)
    }
}

impl Template {
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = s;
        while let Some(open) = rest.find('{') {
            literal.push_str(&rest[..open]);
            rest = &rest[open..];
            if let Some(after) = rest.strip_prefix("{{") {
                literal.push('{');
                rest = after;
                continue;
            }
            let close = rest
                .find('}')
                .ok_or_else(|| format!("unclosed '{{' in {s:?}"))?;
            let part = match &rest[1..close] {
                "id" => Part::Id,
                "timestamp" => Part::Timestamp,
                "url" => Part::Url,
                "body" => Part::Body,
                "method" => Part::Method,
                "form" => Part::Form,
                "body_sha256_bytes" => Part::BodySha256Bytes,
                "body_json" => Part::BodyJson,
                "path" => Part::Path,
                "body_md5_base64" => Part::BodyMd5Base64,
                "body_sha256_hex" => Part::BodySha256Hex,
                other => match other.split_once(':') {
                    Some(("header", name)) if !name.is_empty() => Part::Header(name.to_owned()),
                    Some(("pair", name)) if !name.is_empty() => Part::Pair(name.to_owned()),
                    _ => return Err(format!(
                        "unknown placeholder {{{other}}} (known: {{id}} {{timestamp}} {{url}} {{body}} {{method}} {{header:Name}} {{form}} {{body_sha256_bytes}} {{body_json}} {{pair:Name}} {{path}} {{body_md5_base64}} {{body_sha256_hex}})"
                    )),
                },
            };
            if !literal.is_empty() {
                parts.push(Part::Literal(std::mem::take(&mut literal)));
            }
            parts.push(part);
            rest = &rest[close + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        if !parts.iter().any(|p| {
            matches!(
                p,
                Part::Body
                    | Part::Form
                    | Part::BodySha256Bytes
                    | Part::BodyJson
                    | Part::BodyMd5Base64
                    | Part::BodySha256Hex
            )
        }) {
            return Err(
                "the signed content must include {body} or {form} (or {body_sha256_bytes})".into(),
            );
        }
        Ok(Template(parts))
    }

    /// The template that signs the raw body alone.
    pub fn body() -> Self {
        Template(vec![Part::Body])
    }

    pub fn uses_timestamp(&self) -> bool {
        self.0.contains(&Part::Timestamp)
    }

    pub fn uses_id(&self) -> bool {
        self.0.contains(&Part::Id)
    }

    /// The request headers named by `{header:Name}` placeholders.
    pub fn header_names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Part::Header(name) => Some(name.as_str()),
            _ => None,
        })
    }

    pub fn uses_url(&self) -> bool {
        self.0.iter().any(|p| matches!(p, Part::Url | Part::Path))
    }

    /// The pairs named by `{pair:Name}` placeholders: only `hmac-kv` has
    /// pairs to give.
    pub fn pair_names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Part::Pair(name) => Some(name.as_str()),
            _ => None,
        })
    }

    /// A load error for a family without pairs whose template names one.
    pub fn refuse_pairs(&self) -> Result<(), String> {
        match self.pair_names().next() {
            Some(name) => Err(format!("{{pair:{name}}} is only for scheme = \"hmac-kv\"")),
            None => Ok(()),
        }
    }

    /// Feed the content, part by part, to `sink`.
    pub(crate) fn feed(
        &self,
        v: &Values<'_>,
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<(), MissingHeader> {
        for part in &self.0 {
            match part {
                Part::Literal(s) => sink(s.as_bytes()),
                Part::Id => sink(v.id.as_bytes()),
                Part::Timestamp => sink(v.timestamp.as_bytes()),
                Part::Url => sink(v.url.as_bytes()),
                Part::Body => sink(v.body),
                Part::Method => sink(v.method.as_bytes()),
                Part::Header(name) => sink(
                    v.headers
                        .header(name)
                        .ok_or_else(|| MissingHeader(name.clone()))?
                        .as_bytes(),
                ),
                Part::Form => sink(&form::sorted_params(v.body)),
                Part::BodySha256Bytes => sink(&Sha256::digest(v.body)),
                // JavaScript reads the bytes as UTF-8, invalid sequences as
                // U+FFFD, as `from_utf8_lossy` does; serde_json escapes a
                // string exactly where JSON.stringify does (`"`, `\`, the
                // control characters, lower-case `\u00xx`).
                Part::BodyJson => sink(
                    serde_json::to_string(&String::from_utf8_lossy(v.body))
                        .expect("a string serializes")
                        .as_bytes(),
                ),
                Part::Path => sink(path(v.url).as_bytes()),
                Part::BodyMd5Base64 if v.body.is_empty() => {}
                Part::BodyMd5Base64 => sink(STANDARD.encode(Md5::digest(v.body)).as_bytes()),
                Part::BodySha256Hex => sink(hex::encode(Sha256::digest(v.body)).as_bytes()),
                Part::Pair(name) => sink(
                    v.pairs
                        .iter()
                        .find(|(k, _)| k == name)
                        .ok_or_else(|| MissingHeader(name.clone()))?
                        .1
                        .as_bytes(),
                ),
            }
        }
        Ok(())
    }
}

/// The path of `url` (scheme and authority off, query and fragment off);
/// `/` for a URL without one.
fn path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("", |at| &rest[at..]);
    let path = path.split(['?', '#']).next().unwrap_or("");
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

#[cfg(test)]
mod tests {
    use super::Template;

    #[test]
    fn parse_rules() {
        assert!(Template::parse("{timestamp}.{body}").is_ok());
        assert!(Template::parse("{url}{form}").is_ok());
        assert!(Template::parse("{timestamp}\n{url}\n{body_sha256_bytes}").is_ok());
        assert!(Template::parse("{{\"Body\":{body_json},\"Env\":\"{pair:env}\"}}").is_ok());
        assert!(Template::parse("{{\"a\":{header:X-A}}}{body}").is_ok());
        for bad in [
            "{bdy}",
            "{header:}",
            "{pair:}",
            "{pairs:x}{body}",
            "{body",
            "{timestamp}.",
            "{{body}}",
            "{id}{url}",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad:?}");
        }
    }

    /// What `template` feeds for a POST of `body` with no headers.
    fn fed(template: &str, body: &[u8]) -> Vec<u8> {
        let headers: Vec<(String, String)> = Vec::new();
        let v = super::Values {
            id: "",
            timestamp: "",
            method: "POST",
            url: "",
            headers: &headers,
            body,
            pairs: &[],
        };
        let mut fed = Vec::new();
        let t = Template::parse(template).unwrap();
        t.feed(&v, &mut |b| fed.extend_from_slice(b)).unwrap();
        fed
    }

    /// `{body_sha256_bytes}` feeds the digest's raw bytes, not its hex.
    #[test]
    fn body_sha256_bytes_is_the_raw_digest() {
        use sha2::{Digest, Sha256};
        let mut want = b"a".to_vec();
        want.extend_from_slice(&Sha256::digest(b"{}"));
        assert_eq!(fed("a{body_sha256_bytes}", b"{}"), want);
    }

    /// `{body_json}` is the body as JSON.stringify writes a string:
    /// quotes, backslashes and control characters escaped, `/` and
    /// non-ASCII text as they are.
    #[test]
    fn body_json_escapes_as_json_stringify() {
        let body = "{\"a\":\"x/y\\\\z\u{1f}\n\u{e9}\"}";
        // What node prints for JSON.stringify(body).
        let want = "\"{\\\"a\\\":\\\"x/y\\\\\\\\z\\u001f\\n\u{e9}\\\"}\"";
        assert_eq!(fed("{body_json}", body.as_bytes()), want.as_bytes());
    }

    #[test]
    fn path_of_a_url() {
        assert_eq!(
            super::path("https://h.example/sinch/callback/ace?x=1#f"),
            "/sinch/callback/ace"
        );
        assert_eq!(super::path("https://h.example"), "/");
        assert_eq!(super::path("https://h.example:8443/p"), "/p");
    }

    /// Sinch's own worked example: the Content-MD5 of its body.
    #[test]
    fn body_md5_base64_is_content_md5() {
        let body = br#"{"event":"ace","callid":"822aa4b7-05b4-4d83-87c7-1f835ee0b6f6_257","timestamp":"2014-09-24T10:59:41Z","version":1}"#;
        assert_eq!(fed("{body_md5_base64}", body), b"REWF+X220L4/Gw1spXOU7g==");
        assert_eq!(fed("{body_md5_base64}", b""), b"");
    }

    /// `{body_sha256_hex}` feeds the lower-case hex text of the digest
    /// (FIPS 180-2's "abc" example), as PHP's `hash('sha256', ...)` writes it.
    #[test]
    fn body_sha256_hex_is_the_hex_text() {
        assert_eq!(
            fed("{body_sha256_hex}", b"abc"),
            b"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
