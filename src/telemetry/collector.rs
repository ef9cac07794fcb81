//! The OTLP collector, over HTTP: one POST of protobuf per export, with
//! the headers the environment names (an API key stays out of the file).

use std::future::Future;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};

use super::export::EXPORT_TIMEOUT;

/// Where the collector's headers come from, most specific first: the
/// variables OpenTelemetry's exporters read.
const HEADER_VARIABLES: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_EXPORTER_OTLP_HEADERS",
];

/// What takes an export: the collector, or a test's stand-in.
pub trait Post: Send + Sync + 'static {
    /// Send one `ExportTraceServiceRequest`; an error says why it was not
    /// taken.
    fn post(&self, body: Vec<u8>) -> impl Future<Output = Result<(), String>> + Send;
}

/// A collector's OTLP/HTTP traces endpoint.
pub struct Collector {
    client: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
}

impl Collector {
    /// The collector at `url` (its `/v1/traces`), with the environment's
    /// headers.
    pub fn new(url: &str) -> anyhow::Result<Self> {
        let url = reqwest::Url::parse(url)
            .map_err(|e| anyhow::anyhow!("telemetry.otlp_endpoint {url}: {e}"))?;
        let client = reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .build()
            .map_err(|e| anyhow::anyhow!("the OTLP client: {e}"))?;
        let configured = HEADER_VARIABLES
            .iter()
            .find_map(|name| std::env::var(name).ok());
        Ok(Self {
            client,
            url,
            headers: configured.as_deref().map(headers).unwrap_or_default(),
        })
    }
}

impl Post for Collector {
    async fn post(&self, body: Vec<u8>) -> Result<(), String> {
        let answer = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/x-protobuf")
            .body(body)
            .send()
            .await
            .map_err(|e| format!("{}: {e}", self.url))?;
        let status = answer.status();
        // Read to the end, so the connection serves the next export.
        let _ = answer.bytes().await;
        if status.is_success() {
            Ok(())
        } else {
            Err(format!("{} answered {status}", self.url))
        }
    }
}

/// `key=value` pairs separated by commas, values percent-decoded; a pair
/// that is not a valid header is left out (and never logged: it may be a
/// credential).
fn headers(pairs: &str) -> HeaderMap {
    let mut map = HeaderMap::new();
    for pair in pairs.split(',') {
        let Some((key, value)) = pair.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let decoded = percent_encoding::percent_decode_str(value)
            .decode_utf8()
            .map_or_else(|_| value.to_owned(), |v| v.into_owned());
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.trim().as_bytes()),
            HeaderValue::from_str(&decoded),
        ) else {
            continue;
        };
        if !value.is_empty() {
            map.insert(name, value);
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_pairs_with_percent_decoded_values_and_bad_ones_left_out() {
        let map = headers(" api-key=s%3Dcret, x-team = blue ,broken,=x,bad name=1,empty=");
        assert_eq!(map.len(), 2, "{map:?}");
        assert_eq!(map["api-key"], "s=cret");
        assert_eq!(map["x-team"], "blue");
    }
}
