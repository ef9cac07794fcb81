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
/// case. A `*` label stands for exactly one label of any content
/// (`*.paypal.com` allows `api.paypal.com`, not `a.b.paypal.com`); a
/// `{aws-region}` label for one label shaped like an AWS region name
/// ([`is_aws_region`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPattern(Vec<Label>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Label {
    Fixed(String),
    Any,
    AwsRegion,
}

/// What a pattern writes for [`Label::AwsRegion`].
const AWS_REGION: &str = "{aws-region}";

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
        self.0.iter().map(HostPattern::to_string).collect()
    }
}

impl HostPattern {
    fn parse(text: &str) -> Result<Self, String> {
        let labels = text
            .split('.')
            .map(|l| match l.to_ascii_lowercase() {
                l if l == "*" => Some(Label::Any),
                l if l == AWS_REGION => Some(Label::AwsRegion),
                l if !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') => {
                    Some(Label::Fixed(l))
                }
                _ => None,
            })
            .collect::<Option<Vec<Label>>>()
            .ok_or_else(|| {
                format!(
                    "fetch host {text:?} must be dot-separated labels of letters, digits and '-', \
                     '*' or '{AWS_REGION}'"
                )
            })?;
        let fixed = labels
            .iter()
            .filter(|l| matches!(l, Label::Fixed(_)))
            .count();
        if labels.len() == 1 && matches!(labels[0], Label::Fixed(_)) {
            // `localhost`, a test server's name.
            return Ok(HostPattern(labels));
        }
        // `*` alone, or `*.com`, would allow hosts anyone can register.
        if fixed < 2 {
            return Err(format!(
                "fetch host {text:?} must name at least two fixed labels"
            ));
        }
        Ok(HostPattern(labels))
    }

    fn matches(&self, host: &[&str]) -> bool {
        self.0.len() == host.len()
            && self.0.iter().zip(host).all(|(p, h)| match p {
                Label::Fixed(f) => f == h,
                Label::Any => true,
                Label::AwsRegion => is_aws_region(h),
            })
    }
}

impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, label) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(match label {
                Label::Fixed(l) => l,
                Label::Any => "*",
                Label::AwsRegion => AWS_REGION,
            })?;
        }
        Ok(())
    }
}

/// Whether `label` is shaped like an AWS region name: two to four letters,
/// one or more `-word` parts, and a final `-number` (`us-east-1`,
/// `us-gov-west-1`, `cn-northwest-1`, `us-isob-east-1`, `eusc-de-east-1`).
///
/// AWS's own SNS validators check the certificate host against
/// `^sns\.[a-zA-Z0-9-]{3,}\.amazonaws\.com(\.cn)?$` (aws-js-sns-message-validator
/// `sns-validator`, aws-php-sns-message-validator, the Ruby SDK's
/// `Aws::SNS::MessageVerifier`): the region label must be at least three
/// characters, which keeps out `s3`, since `sns.s3.amazonaws.com` is S3's
/// address of anyone's bucket named `sns`. That pattern still lets through
/// S3's legacy regional names, which serve buckets the same way
/// (`sns.s3-external-1.amazonaws.com`, `sns.s3-us-west-2.amazonaws.com`,
/// `sns.s3-accelerate.amazonaws.com`); every one of them starts with `s3`,
/// and no region name holds a digit before its last part, so a region's
/// shape keeps them all out.
pub(crate) fn is_aws_region(label: &str) -> bool {
    let parts: Vec<&str> = label.split('-').collect();
    let letters = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase());
    let Some((number, words)) = parts.split_last() else {
        return false;
    };
    let Some((area, middle)) = words.split_first() else {
        return false;
    };
    (2..=4).contains(&area.len())
        && letters(area)
        && !middle.is_empty()
        && middle.iter().all(|p| letters(p))
        && (1..=2).contains(&number.len())
        && number.bytes().all(|b| b.is_ascii_digit())
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
        let sns = hosts(&["sns.{aws-region}.amazonaws.com"]);
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
        assert!(hosts(&["*.paypal.com"])
            .allow("https://api.paypal.com/v1/notifications/certs/CERT-1")
            .is_some());
    }

    /// S3 serves anyone's bucket named `sns` at these hosts.
    #[test]
    fn s3_bucket_hosts_are_no_sns_region() {
        let sns = hosts(&[
            "sns.{aws-region}.amazonaws.com",
            "sns.{aws-region}.amazonaws.com.cn",
        ]);
        for bucket in [
            "sns.s3.amazonaws.com",
            "sns.s3-external-1.amazonaws.com",
            "sns.s3-accelerate.amazonaws.com",
            "sns.s3-us-west-2.amazonaws.com",
            "sns.s3-website-us-east-1.amazonaws.com",
            "sns.s3-fips-us-gov-west-1.amazonaws.com",
            "sns.s3.cn-north-1.amazonaws.com.cn",
            "sns.s3-cn-north-1.amazonaws.com.cn",
        ] {
            let url = format!("https://{bucket}/cert.pem");
            assert!(sns.allow(&url).is_none(), "{bucket}");
        }
        for region in [
            "us-east-1",
            "ap-southeast-2",
            "us-gov-west-1",
            "cn-northwest-1",
            "us-isob-east-1",
            "eu-isoe-west-1",
            "il-central-1",
        ] {
            let url = format!("https://sns.{region}.amazonaws.com/cert.pem");
            assert!(sns.allow(&url).is_some(), "{region}");
        }
        assert!(sns
            .allow("https://sns.cn-north-1.amazonaws.com.cn/cert.pem")
            .is_some());
    }

    #[test]
    fn patterns_that_allow_too_much_are_refused() {
        for bad in [
            "*",
            "*.com",
            "",
            "a..b",
            "exa mple.com",
            "*.*",
            "{aws-region}",
            "{aws-region}.com",
            "{region}.example.com",
        ] {
            assert!(HostPattern::parse(bad).is_err(), "{bad}");
        }
        for good in [
            "*.paypal.com",
            "sns.{aws-region}.amazonaws.com",
            "localhost",
        ] {
            let pattern = HostPattern::parse(good).unwrap();
            assert_eq!(pattern.to_string(), good);
        }
    }
}
