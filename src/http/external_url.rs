//! The external URL: the URL the provider called, which URL-signed schemes
//! (Twilio, Square, HubSpot, Mandrill, ...) sign.
//!
//! - With `server.public_url`, it is that base + the request's path and
//!   query, exactly as received. This is the dependable choice behind any
//!   proxy or load balancer.
//! - Without it, it is the request's own scheme (`https` when hookline
//!   serves TLS itself) and `Host`. `Forwarded` (RFC 7239; its first
//!   element) or else `X-Forwarded-Proto` / `X-Forwarded-Host` (their first
//!   value) replace them only when the peer is one of
//!   `server.trusted_proxies`: from anyone else they are ignored, since a
//!   sender could otherwise choose the URL its signature is checked over.
//!
//! It is built only for definitions that sign it.

use actix_web::http::header::{self, HeaderMap};
use actix_web::HttpRequest;

use crate::config::ServerSettings;

/// The URL the provider called, for [`UntrustedRequest::url`](crate::provider::UntrustedRequest::url).
pub fn external_url(req: &HttpRequest, server: &ServerSettings) -> String {
    let path_and_query = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.path(), |pq| pq.as_str());
    if let Some(base) = &server.public_url {
        return format!("{}{path_and_query}", base.as_str());
    }
    let own_scheme = if req.app_config().secure() {
        "https"
    } else {
        "http"
    };
    let own_host = req
        .uri()
        .authority()
        .map(|a| a.as_str())
        .or_else(|| header_str(req.headers(), header::HOST.as_str()))
        .unwrap_or_else(|| req.app_config().host());
    let trusted = req.peer_addr().is_some_and(|peer| {
        server
            .trusted_proxies
            .iter()
            .any(|p| p.contains(&peer.ip()))
    });
    let forwarded = if trusted {
        Forwarded::from_headers(req.headers())
    } else {
        Forwarded::default()
    };
    format!(
        "{}://{}{path_and_query}",
        forwarded.proto.unwrap_or(own_scheme),
        forwarded.host.unwrap_or(own_host)
    )
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// What a trusted proxy says the provider called.
#[derive(Debug, Default, PartialEq, Eq)]
struct Forwarded<'a> {
    proto: Option<&'a str>,
    host: Option<&'a str>,
}

impl<'a> Forwarded<'a> {
    /// `Forwarded` if it says anything, else the `X-Forwarded-*` pair. Only
    /// the first element or value counts: the one the proxy nearest the
    /// provider wrote (configure it to overwrite, not append to, what a
    /// client sends).
    fn from_headers(headers: &'a HeaderMap) -> Self {
        let standard = header_str(headers, header::FORWARDED.as_str())
            .map(Self::parse_forwarded)
            .unwrap_or_default();
        if standard != Forwarded::default() {
            return standard;
        }
        let first = |name| header_str(headers, name).and_then(|v| v.split(',').next());
        Forwarded {
            proto: first("x-forwarded-proto").and_then(proto),
            host: first("x-forwarded-host").and_then(host),
        }
    }

    /// `for=1.2.3.4;proto=https;host=hooks.example.com, for=...`.
    fn parse_forwarded(value: &'a str) -> Self {
        let mut out = Forwarded::default();
        let first = value.split(',').next().unwrap_or_default();
        for pair in first.split(';') {
            let Some((key, val)) = pair.split_once('=') else {
                continue;
            };
            let val = val.trim().trim_matches('"');
            match key.trim().to_ascii_lowercase().as_str() {
                "proto" => out.proto = proto(val),
                "host" => out.host = host(val),
                _ => {}
            }
        }
        out
    }
}

/// `http` or `https` (lower case); anything else is ignored.
fn proto(v: &str) -> Option<&str> {
    match v.trim() {
        p if p.eq_ignore_ascii_case("https") => Some("https"),
        p if p.eq_ignore_ascii_case("http") => Some("http"),
        _ => None,
    }
}

/// A host (and port) that can stand in a URL's authority; anything that
/// could change the URL's shape (a path, credentials, spaces) is ignored.
fn host(v: &str) -> Option<&str> {
    let v = v.trim();
    let plain = !v.is_empty()
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b));
    plain.then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_takes_the_first_element_and_plain_values_only() {
        let f = Forwarded::parse_forwarded(
            r#"for=10.0.0.1;Proto=HTTPS;host="hooks.example.com:8443", proto=http;host=evil"#,
        );
        assert_eq!(f.proto, Some("https"));
        assert_eq!(f.host, Some("hooks.example.com:8443"));
        let f = Forwarded::parse_forwarded("proto=gopher;host=a/b@c");
        assert_eq!(f, Forwarded::default());
    }
}
