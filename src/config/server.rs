//! `[server]`: where and how the receiver listens.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;
use std::time::Duration;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use super::issues::ConfigIssue;
use super::tls::TlsFiles;

/// `[server]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ServerSettings {
    /// Address to listen on, `host:port` (`[::1]:8080` for IPv6);
    /// `127.0.0.1:0` picks a free port. Default `127.0.0.1:8080`.
    pub listen: ListenAddr,
    /// Largest request body accepted; larger ones get 413 before being
    /// read. Default 1 MiB.
    pub max_body_bytes: usize,
    /// How long `serve` waits for in-flight requests on shutdown.
    /// Default `30s`.
    #[serde(with = "humantime_serde")]
    pub shutdown_timeout: Duration,
    /// The external base URL providers call (`https://hooks.example.com`),
    /// for schemes that sign the URL; without a trailing slash. Default:
    /// taken from each request.
    pub public_url: Option<PublicUrl>,
    /// Peers (addresses or CIDR blocks) whose `X-Forwarded-Proto`,
    /// `X-Forwarded-Host` and `Forwarded` headers are believed. Default
    /// none: such headers are ignored.
    pub trusted_proxies: Vec<TrustedProxy>,
    /// A body not fully read this long after the request started is
    /// answered 408 and the connection closed. Default `10s`.
    #[serde(with = "humantime_serde")]
    pub body_timeout: Duration,
    /// Bytes of request bodies held at once, across all requests; past it,
    /// new requests get 503 + `Retry-After` before their body is read.
    /// At least `max_body_bytes`. Default 256 MiB.
    pub max_buffered_bytes: usize,
    /// Bytes of request bodies one client may hold at once (the client as
    /// [`crate::http::peer`] tells it: the peer, or behind
    /// `trusted_proxies` the address they name), so that one client
    /// cannot take the whole `max_buffered_bytes`. From `max_body_bytes`
    /// to `max_buffered_bytes`. Default an eighth of
    /// `max_buffered_bytes`, at least `max_body_bytes`.
    pub max_buffered_bytes_per_peer: Option<usize>,
    /// Connections open at once, across the worker threads; past it, new
    /// connections wait in the listen backlog. Default 25,000.
    pub max_connections: usize,
    /// TLS handshakes in progress at once, across the worker threads
    /// (with `[server.tls]`); past it, new connections wait in the listen
    /// backlog. Default 4,096.
    pub max_tls_handshakes: usize,
    /// A TLS handshake not finished this long after its connection was
    /// accepted is dropped. Default `2s`.
    #[serde(with = "humantime_serde")]
    pub tls_handshake_timeout: Duration,
    /// Connections the kernel queues for hookline to accept (capped by
    /// the kernel, `net.core.somaxconn` on Linux). Default 4,096.
    pub backlog: u32,
    /// `[server.tls]`: serve HTTPS with this certificate and key.
    pub tls: Option<TlsFiles>,
    /// A second address, `host:port`, for the operators' routes:
    /// `/metrics`, `/admin` and `/console` are then served there only, and
    /// `listen` serves the webhooks (and `/healthz`, `/readyz`, which both
    /// answer). Keep it on a private interface. Default none: everything
    /// on `listen`.
    pub ops_listen: Option<ListenAddr>,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            listen: ListenAddr("127.0.0.1:8080".into()),
            max_body_bytes: 1024 * 1024,
            shutdown_timeout: Duration::from_secs(30),
            public_url: None,
            trusted_proxies: Vec::new(),
            body_timeout: Duration::from_secs(10),
            max_buffered_bytes: 256 * 1024 * 1024,
            max_buffered_bytes_per_peer: None,
            max_connections: 25_000,
            max_tls_handshakes: 4096,
            tls_handshake_timeout: Duration::from_secs(2),
            backlog: 4096,
            tls: None,
            ops_listen: None,
        }
    }
}

impl ServerSettings {
    /// `max_buffered_bytes_per_peer`, or its default.
    pub fn buffered_bytes_per_peer(&self) -> usize {
        self.max_buffered_bytes_per_peer
            .unwrap_or((self.max_buffered_bytes / 8).max(self.max_body_bytes))
            .min(self.max_buffered_bytes)
    }

    /// The section's own rules; those that relate it to others are in
    /// [`super::rules`].
    pub(super) fn check(&self) -> Vec<ConfigIssue> {
        let mut issues = Vec::new();
        if self.max_body_bytes == 0 {
            issues.push(ConfigIssue::new(
                "server.max_body_bytes",
                "must be greater than 0",
            ));
        }
        if self.body_timeout.is_zero() {
            issues.push(ConfigIssue::new("server.body_timeout", "must be positive"));
        }
        for (key, value) in [
            ("server.max_connections", self.max_connections),
            ("server.max_tls_handshakes", self.max_tls_handshakes),
            ("server.backlog", self.backlog as usize),
        ] {
            if value == 0 {
                issues.push(ConfigIssue::new(key, "must be greater than 0"));
            }
        }
        if self.tls_handshake_timeout.is_zero() {
            issues.push(ConfigIssue::new(
                "server.tls_handshake_timeout",
                "must be positive",
            ));
        }
        if let Some(per_peer) = self.max_buffered_bytes_per_peer {
            if per_peer < self.max_body_bytes || per_peer > self.max_buffered_bytes {
                issues.push(ConfigIssue::new(
                    "server.max_buffered_bytes_per_peer",
                    "must be from server.max_body_bytes (one largest body) to server.max_buffered_bytes",
                ));
            }
        }
        if let Some(tls) = &self.tls {
            issues.extend(tls.check("server.tls.cert_file", "server.tls.key_file"));
        }
        if self
            .ops_listen
            .as_ref()
            .is_some_and(|ops| *ops == self.listen && !ops.as_str().ends_with(":0"))
        {
            issues.push(ConfigIssue::new(
                "server.ops_listen",
                "must differ from server.listen: the operators' routes get a listener of their own",
            ));
        }
        issues
    }
}

/// `host:port` to listen on: an IP address or a host name, and a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddr(String);

impl ListenAddr {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether only this machine can connect: a loopback address, or
    /// `localhost`.
    pub fn is_loopback(&self) -> bool {
        let host = self.0.rsplit_once(':').map_or("", |(h, _)| h);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host.eq_ignore_ascii_case("localhost")
            || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }
}

impl fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for ListenAddr {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        const SHAPE: &str = "must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080";
        let (host, port) = s.rsplit_once(':').ok_or(SHAPE)?;
        port.parse::<u16>()
            .map_err(|_| format!("{SHAPE}: the port must be a number up to 65535"))?;
        // An IPv6 address without brackets would split at its last colon.
        if host.contains(':') && !host.starts_with('[') {
            return Err(format!("{SHAPE}: an IPv6 address needs brackets"));
        }
        url::Host::parse(host).map_err(|e| format!("{SHAPE}: bad host: {e}"))?;
        Ok(ListenAddr(s.to_owned()))
    }
}

impl<'de> Deserialize<'de> for ListenAddr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

/// An `http` or `https` base URL without query, fragment, credentials or
/// trailing slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(String);

impl PublicUrl {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for PublicUrl {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let url = url::Url::parse(s).map_err(|e| format!("not a URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
            return Err("must be an http or https URL with a host".into());
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err("must not have a query or fragment".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("must not carry credentials".into());
        }
        // `https://x/` and `https://x` are one base: the route is appended.
        Ok(PublicUrl(url.as_str().trim_end_matches('/').to_owned()))
    }
}

impl<'de> Deserialize<'de> for PublicUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

/// An address (`10.0.0.1`) or CIDR block (`10.0.0.0/8`) of a trusted proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrustedProxy(ipnet::IpNet);

impl TrustedProxy {
    pub fn contains(&self, peer: &IpAddr) -> bool {
        self.0.contains(peer)
    }
}

impl fmt::Display for TrustedProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for TrustedProxy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let net = match s.parse::<IpAddr>() {
            Ok(ip) => ipnet::IpNet::from(ip),
            Err(_) => s
                .parse::<ipnet::IpNet>()
                .map_err(|_| "must be an IP address or a CIDR block (10.0.0.0/8)".to_owned())?,
        };
        // `10.1.2.3/8` means the block 10.0.0.0/8.
        Ok(TrustedProxy(net.trunc()))
    }
}

impl<'de> Deserialize<'de> for TrustedProxy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}
