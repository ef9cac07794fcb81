//! Who sent a request, for the limits kept per client (the body buffer's
//! per-peer share, sign-in failures): the connection's peer address, or,
//! when that peer is one of `server.trusted_proxies`, the client the
//! proxies name.
//!
//! Behind proxies, `X-Forwarded-For` (else `Forwarded`'s `for=`) lists the
//! addresses a request passed through, each proxy appending the one it
//! saw. Read from the right, the first address that is not a trusted
//! proxy is the client: anything left of it was written by the client
//! itself and proves nothing. From a peer that is no trusted proxy, these
//! headers are ignored.
//!
//! IPv6 clients are counted by their /64: one host usually holds a whole
//! /64, and would otherwise get a share per address.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};

use actix_web::http::header::{self, HeaderMap};
use actix_web::HttpRequest;

use crate::config::ServerSettings;

/// One client, as the per-client limits count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Peer(IpAddr);

impl Peer {
    /// The client of `req`.
    pub fn of(req: &HttpRequest, server: &ServerSettings) -> Peer {
        let Some(peer) = req.peer_addr().map(|a| a.ip()) else {
            // Not a TCP connection (a test harness): one anonymous client.
            return Peer(IpAddr::from([0, 0, 0, 0]));
        };
        let trusted = |ip: &IpAddr| server.trusted_proxies.iter().any(|p| p.contains(ip));
        if !trusted(&peer) {
            return Peer::from_ip(peer);
        }
        let hops = forwarded_for(req.headers());
        let client = hops
            .iter()
            .rev()
            .find(|ip| !trusted(ip))
            .or(hops.first())
            .copied()
            .unwrap_or(peer);
        Peer::from_ip(client)
    }

    /// `ip`, an IPv6 address cut to its /64 (an IPv4-mapped one read as
    /// IPv4).
    pub fn from_ip(ip: IpAddr) -> Peer {
        match ip {
            IpAddr::V4(_) => Peer(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Peer(IpAddr::V4(v4)),
                None => {
                    let s = v6.segments();
                    Peer(IpAddr::V6(Ipv6Addr::new(
                        s[0], s[1], s[2], s[3], 0, 0, 0, 0,
                    )))
                }
            },
        }
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(ip) => ip.fmt(f),
            IpAddr::V6(ip) => write!(f, "{ip}/64"),
        }
    }
}

/// The addresses `X-Forwarded-For` lists, else those of `Forwarded`'s
/// `for=`, in order (nearest the client first); what does not parse as an
/// address is skipped.
fn forwarded_for(headers: &HeaderMap) -> Vec<IpAddr> {
    let all = |name: &str| {
        headers
            .get_all(name)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<&str>>()
    };
    let xff: Vec<IpAddr> = all("x-forwarded-for")
        .into_iter()
        .filter_map(parse_ip)
        .collect();
    if !xff.is_empty() {
        return xff;
    }
    all(header::FORWARDED.as_str())
        .into_iter()
        .filter_map(|element| {
            element.split(';').find_map(|pair| {
                let (key, value) = pair.split_once('=')?;
                key.trim()
                    .eq_ignore_ascii_case("for")
                    .then(|| parse_ip(value.trim().trim_matches('"')))?
            })
        })
        .collect()
}

/// `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]:5678`.
fn parse_ip(v: &str) -> Option<IpAddr> {
    if let Ok(ip) = v.parse() {
        return Some(ip);
    }
    if let Ok(sock) = v.parse::<std::net::SocketAddr>() {
        return Some(sock.ip());
    }
    v.strip_prefix('[')?.split(']').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    fn server(trusted: &[&str]) -> ServerSettings {
        ServerSettings {
            trusted_proxies: trusted.iter().map(|t| t.parse().unwrap()).collect(),
            ..Default::default()
        }
    }

    fn peer_of(from: &str, xff: Option<&str>, trusted: &[&str]) -> String {
        let mut req = TestRequest::default().peer_addr(from.parse().unwrap());
        if let Some(xff) = xff {
            req = req.insert_header(("x-forwarded-for", xff));
        }
        Peer::of(&req.to_http_request(), &server(trusted)).to_string()
    }

    #[test]
    fn the_client_is_the_peer_unless_a_trusted_proxy_names_it() {
        assert_eq!(peer_of("203.0.113.7:4000", None, &[]), "203.0.113.7");
        // Untrusted peers cannot choose who they are.
        assert_eq!(
            peer_of("203.0.113.7:4000", Some("198.51.100.1"), &[]),
            "203.0.113.7"
        );
        // Behind two trusted proxies: the nearest untrusted address.
        assert_eq!(
            peer_of(
                "10.0.0.2:4000",
                Some("192.0.2.99, 198.51.100.1, 10.0.0.1"),
                &["10.0.0.0/8"]
            ),
            "198.51.100.1"
        );
        assert_eq!(
            peer_of("[2001:db8:1:2:3:4:5:6]:443", None, &[]),
            "2001:db8:1:2::/64"
        );
        assert_eq!(peer_of("[::ffff:192.0.2.1]:443", None, &[]), "192.0.2.1");
    }

    #[test]
    fn forwarded_addresses_parse_with_ports_and_brackets() {
        assert_eq!(parse_ip("1.2.3.4:80"), Some([1, 2, 3, 4].into()));
        assert_eq!(parse_ip("[::1]:80"), Some("::1".parse().unwrap()));
        assert_eq!(parse_ip("unknown"), None);
    }
}
