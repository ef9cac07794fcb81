//! The URLs hookline may fetch because a request named them: a provider's
//! signing certificate (AWS SNS `SigningCertURL`, PayPal's
//! `PAYPAL-CERT-URL`) and SNS's `SubscribeURL`.
//!
//! A request is untrusted, so the URL it names is too: the only way to get
//! a [`FetchUrl`] is [`FetchHosts::allow`], which accepts `https` on a host
//! of the provider's allow-list and nothing else. The code that fetches
//! takes a `FetchUrl`, so it cannot be handed anything else.

use std::fmt;

use serde::{Deserialize, Deserializer};

/// A URL that passed [`FetchHosts::allow`]: `https`, no credentials, its
/// host on the allow-list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FetchUrl(url::Url);

impl FetchUrl {
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The host, for logs (the path and query may carry tokens).
    pub fn host(&self) -> &str {
        self.0.host_str().unwrap_or_default()
    }

    /// Whether `raw` (as a request wrote it) names this URL.
    pub(crate) fn is(&self, raw: &str) -> bool {
        url::Url::parse(raw).is_ok_and(|u| u == self.0)
    }
}

impl fmt::Display for FetchUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The hosts a provider's URLs may be fetched from: the definition's
/// `fetch_hosts`, or a provider's own `fetch_hosts` in the configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FetchHosts(Vec<HostPattern>);

/// One allowed host: dot-separated labels, compared without regard to
/// case, where a `*` label stands for exactly one label of any content
/// (`sns.*.amazonaws.com` allows `sns.us-east-1.amazonaws.com`, not
/// `evil.s3.amazonaws.com` nor `sns.a.b.amazonaws.com`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPattern(Vec<String>);

impl FetchHosts {
    /// `raw` as a fetchable URL, if it is `https`, carries no user name or
    /// password, and its host matches one of the patterns.
    pub fn allow(&self, raw: &str) -> Option<FetchUrl> {
        let url = url::Url::parse(raw).ok()?;
        if url.scheme() != "https" || !url.username().is_empty() || url.password().is_some() {
            return None;
        }
        let host = url.host_str()?.to_ascii_lowercase();
        let labels: Vec<&str> = host.split('.').collect();
        self.0
            .iter()
            .any(|p| p.matches(&labels))
            .then_some(FetchUrl(url))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The patterns as written, for `hookline providers` and the docs.
    pub fn patterns(&self) -> Vec<String> {
        self.0.iter().map(|p| p.0.join(".")).collect()
    }
}

impl HostPattern {
    fn parse(text: &str) -> Result<Self, String> {
        let labels: Vec<String> = text.split('.').map(str::to_ascii_lowercase).collect();
        let valid = |l: &String| {
            l == "*" || (!l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        };
        if !labels.iter().all(valid) {
            return Err(format!(
                "fetch host {text:?} must be dot-separated labels of letters, digits and '-', or '*'"
            ));
        }
        // `*` alone, or `*.com`, would allow hosts anyone can register.
        if labels.iter().filter(|l| *l != "*").count() < 2 && labels.len() > 1 {
            return Err(format!(
                "fetch host {text:?} must name at least two fixed labels"
            ));
        }
        if labels.len() == 1 && labels[0] == "*" {
            return Err("fetch host \"*\" would allow every host".into());
        }
        Ok(HostPattern(labels))
    }

    fn matches(&self, host: &[&str]) -> bool {
        self.0.len() == host.len() && self.0.iter().zip(host).all(|(p, h)| p == "*" || p == h)
    }
}

impl<'de> Deserialize<'de> for FetchHosts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let texts = Vec::<String>::deserialize(d)?;
        texts
            .iter()
            .map(|t| HostPattern::parse(t))
            .collect::<Result<Vec<_>, _>>()
            .map(FetchHosts)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(patterns: &[&str]) -> FetchHosts {
        FetchHosts(
            patterns
                .iter()
                .map(|p| HostPattern::parse(p).unwrap())
                .collect(),
        )
    }

    #[test]
    fn only_https_on_an_allowed_host() {
        let sns = hosts(&["sns.*.amazonaws.com"]);
        assert!(sns
            .allow("https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem")
            .is_some());
        assert!(sns
            .allow("https://SNS.eu-west-1.AmazonAWS.com/x.pem")
            .is_some());
        for refused in [
            "http://sns.us-east-1.amazonaws.com/x.pem",
            "https://evil.s3.amazonaws.com/x.pem",
            "https://sns.us-east-1.amazonaws.com.evil.example/x.pem",
            "https://sns.a.b.amazonaws.com/x.pem",
            "https://user:pw@sns.us-east-1.amazonaws.com/x.pem",
            "not a url",
        ] {
            assert!(sns.allow(refused).is_none(), "{refused}");
        }
        assert!(hosts(&["localhost"])
            .allow("https://localhost:8443/cert.pem")
            .is_some());
    }

    #[test]
    fn patterns_that_allow_too_much_are_refused() {
        for bad in ["*", "*.com", "", "a..b", "exa mple.com", "*.*"] {
            assert!(HostPattern::parse(bad).is_err(), "{bad}");
        }
        assert!(HostPattern::parse("*.paypal.com").is_ok());
    }
}
