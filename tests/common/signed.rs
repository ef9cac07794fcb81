//! Requests signed as each provider of the suite signs them: the routes and
//! tenants the suite configures, their secrets, a body that carries the
//! event ID and type where the provider puts them, and the headers its
//! sender attaches. Re-exported by `common`, so tests say `common::Webhook`.

use hookline::provider::sender_headers;

pub fn secret(route: &str, tenant: &str) -> String {
    match route {
        // Standard Webhooks secrets are base64 after whsec_.
        "standard-webhooks" | "svix" => {
            use base64::Engine as _;
            format!(
                "whsec_{}",
                base64::engine::general_purpose::STANDARD
                    .encode(format!("{route}-{tenant}-key-material"))
            )
        }
        _ => format!("{route}-{tenant}-secret"),
    }
}

/// The provider routes the suite configures, with their kinds.
pub const ROUTES: &[(&str, &str)] = &[
    ("stripe", "stripe"),
    ("github", "github"),
    ("shopify", "shopify"),
    ("slack", "slack"),
    ("standard-webhooks", "standard-webhooks"),
    ("svix", "svix"),
    ("gitlab", "gitlab"),
    ("generic", "generic-hmac"),
];

/// The Standard Webhooks secret test handlers sign deliveries with.
pub const HANDLER_SECRET: &str = "whsec_aGFuZGxlci1zaWduaW5nLWtleS1tYXRlcmlhbA==";

/// The `webhook-signature` Standard Webhooks makes for a message with the
/// handlers' secret ([`HANDLER_SECRET`]; its known answers are in
/// tests/vectors/standard-webhooks).
pub fn handler_signature(id: &str, timestamp: &str, body: &[u8]) -> String {
    let defs = hookline::provider::Definitions::load(None).unwrap();
    let sw = defs.get("standard-webhooks").unwrap();
    let key = sw.decode_secret(HANDLER_SECRET).unwrap();
    hookline::provider::standard_webhooks_signature(&key, id, timestamp.parse().unwrap(), body)
}

pub const TENANTS: &[&str] = &["acme", "globex", "default"];

/// The receiver configuration used by the suite, minus the store section.
pub fn providers_toml() -> String {
    providers_toml_with("")
}

/// The same, with `extra` lines in every provider table.
pub fn providers_toml_with(extra: &str) -> String {
    let mut out = String::new();
    for (route, kind) in ROUTES {
        out.push_str(&format!(
            "[providers.{route}]\nkind = \"{kind}\"\ncritical = [\"*\"]\ntolerance = \"5m\"\n{extra}\n"
        ));
        for t in TENANTS {
            out.push_str(&format!(
                "[providers.{route}.tenants.{t}]\nsecrets = [\"{}\"]\n",
                secret(route, t)
            ));
        }
    }
    out
}

/// Kind of a configured route.
pub fn kind_of(route: &str) -> &'static str {
    ROUTES
        .iter()
        .find(|(r, _)| *r == route)
        .map(|(_, k)| *k)
        .expect("known route")
}

/// A body for `route` carrying `event_id`/`event_type` where that provider
/// puts them in JSON; `salt` changes the body without changing the ID.
pub fn body_for(route: &str, event_id: &str, event_type: &str, salt: &str) -> Vec<u8> {
    let v = match kind_of(route) {
        "stripe" => {
            serde_json::json!({"id": event_id, "object": "event", "type": event_type, "data": {"object": {"salt": salt}}})
        }
        "slack" => {
            serde_json::json!({"type": "event_callback", "event_id": event_id, "event": {"type": event_type, "text": salt}})
        }
        // Real payloads differ between distinct events (providers with an
        // unsigned ID header key their bodies too: `replay_guard`).
        "standard-webhooks" | "svix" | "generic-hmac" => {
            serde_json::json!({"type": event_type, "data": {"salt": salt, "ref": event_id}})
        }
        _ => serde_json::json!({"action": event_type, "salt": salt, "ref": event_id}),
    };
    serde_json::to_vec(&v).unwrap()
}

/// Headers a real sender of `route` would attach, signed with `secret`.
pub fn headers_for(
    route: &str,
    secret: &str,
    body: &[u8],
    event_id: &str,
    event_type: &str,
    timestamp: i64,
) -> Vec<(String, String)> {
    // The built-in definitions, loaded once: loading them takes tens of
    // milliseconds in a debug build, paid per request signed before.
    static DEFS: std::sync::OnceLock<hookline::provider::Definitions> = std::sync::OnceLock::new();
    let defs = DEFS.get_or_init(|| hookline::provider::Definitions::load(None).unwrap());
    let def = defs.get(kind_of(route)).unwrap();
    let key = def.decode_secret(secret).unwrap();
    sender_headers(def, &key, body, event_id, Some(event_type), timestamp, "").unwrap()
}

pub fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// A signed request, ready to send.
#[derive(Clone)]
pub struct Webhook {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Webhook {
    /// A correctly signed event for `route`/`tenant`.
    pub fn new(route: &str, tenant: &str, event_id: &str, event_type: &str, salt: &str) -> Self {
        let body = body_for(route, event_id, event_type, salt);
        let headers = headers_for(
            route,
            &secret(route, tenant),
            &body,
            event_id,
            event_type,
            now(),
        );
        Webhook {
            path: format!("/webhooks/{route}/{tenant}"),
            headers,
            body,
        }
    }
}
