//! An event's request headers. The stores keep only those some handler
//! forwards (`forward_headers`, kept with its deliveries); a capture file
//! keeps them all (`[capture] dir`), with the headers whose value is the
//! secret itself already redacted. Shown here with every other header that
//! can carry a credential redacted too.

use maud::{html, Markup};

use crate::capture::{Capture, REDACTED};
use crate::http::AppState;
use crate::store::EventKey;

/// Captures shown per event (a retried request is captured each time).
const SHOWN: usize = 5;

/// Header names (lower case) whose value is a credential, whatever the
/// provider, and fragments that mark one.
const CREDENTIALS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];
const MARKERS: &[&str] = &["token", "secret", "password", "api-key", "apikey"];

/// Whether a header's value must not be shown.
pub fn secret_bearing(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIALS.contains(&name.as_str()) || MARKERS.iter().any(|m| name.contains(m))
}

fn shown(name: &str, value: &str) -> String {
    if secret_bearing(name) {
        REDACTED.to_owned()
    } else {
        value.to_owned()
    }
}

fn table(headers: &[(String, String)]) -> Markup {
    html! {
        div.scroll { table.headers {
            tbody { @for (name, value) in headers {
                tr { th scope="row" { (name) } td { code { (shown(name, value)) } } }
            } }
        } }
    }
}

/// The headers section of an event's page; `forwarded`, the headers its
/// deliveries keep.
pub async fn section(state: &AppState, event: &EventKey, forwarded: &[(String, String)]) -> Markup {
    let kept = html! {
        @if !forwarded.is_empty() {
            p.muted { "Kept with its deliveries (the headers handlers forward):" }
            (table(forwarded))
        }
    };
    let Some(writer) = &state.capture else {
        return html! {
            (kept)
            p.muted { "The stores keep no other request header. Set " code { "[capture] dir" } " to keep each verified request, headers included (secret-bearing ones redacted)." }
        };
    };
    let captures: Vec<Capture> = match writer
        .find(&event.provider, &event.tenant, &event.event_id, SHOWN)
        .await
    {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the event's captures");
            return html! { (kept) p.error { "The capture files could not be read." } };
        }
    };
    html! {
        (kept)
        @if captures.is_empty() { p.muted { "No capture of this event (captures start when " code { "[capture] dir" } " is set)." } }
        @for c in &captures {
            details open[captures.len() == 1] {
                summary { (c.method) " " (c.path) " · received " (c.received_at) }
                (table(&c.headers))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_redacted_and_signatures_are_not() {
        for name in [
            "Authorization",
            "cookie",
            "X-Gitlab-Token",
            "X-Api-Key",
            "x-webhook-secret",
        ] {
            assert!(secret_bearing(name), "{name}");
        }
        for name in ["Stripe-Signature", "Content-Type", "X-GitHub-Delivery"] {
            assert!(!secret_bearing(name), "{name}");
        }
        assert_eq!(shown("Authorization", "Bearer abc"), REDACTED);
    }
}
