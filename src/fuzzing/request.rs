//! Targets that send a request through the verify function of a built-in
//! provider: whole requests ([`verify`]) and signature header values alone
//! ([`signature_header`]).

use std::sync::{Arc, OnceLock};

use base64::Engine as _;
use bytes::Bytes;
use p256::pkcs8::{EncodePrivateKey as _, LineEnding};
use secrecy::SecretString;

use super::first_line;
use crate::config::{Provider, Settings};
use crate::provider::scheme::mac::{self, DigestEncoding, TimestampFormat};
use crate::provider::{
    certificate_to_fetch, verify_request, Definitions, HeaderLookup as _, Key, ProviderDef,
    SignInput, TenantState, UntrustedRequest, Verdict,
};

/// The time every fuzzed request is received (and signed) at.
pub(super) const NOW: i64 = 1_700_000_000;

/// Shared secrets tried in order until the definition's family decodes
/// one: the first is valid hex, base64, a `whsec_` secret, UTF-8 and a
/// PayPal webhook ID; the second is `user:password` (Basic, JWT
/// `API_KEY:API_SECRET`); the third an SNS topic; the last two what the
/// key-fetching families take (a provider's https:// domain, and Pub/Sub's
/// "SERVICE_ACCOUNT_EMAIL AUDIENCE"), whose keys a fuzz run never fetches.
const SHARED_SECRETS: &[&str] = &[
    "00112233445566778899aabbccddeeff",
    "fuzz:00112233445566778899aabbccddeeff",
    "arn:aws:sns:us-east-1:123456789012:fuzz",
    "https://fuzz.example.com",
    "fuzz@example.com https://fuzz.example.com/push",
];

/// The seed of the fuzzing private keys (Ed25519 and P-256).
const SEED: [u8; 32] = [0x42; 32];

/// One key pair for a definition: the tenant secret as configured, the key
/// it decodes to, and a key that signs for it.
pub(super) struct Keys {
    pub secret: String,
    pub verifying: Key,
    pub signing: Key,
}

/// A key pair `def`'s family accepts: a public key derived from a fixed
/// private key for public-key families, else the first shared secret it
/// decodes.
pub(super) fn keys_for(def: &ProviderDef) -> Option<Keys> {
    for text in private_key_texts() {
        let Ok(signing) = def.decode_private_key(text) else {
            continue;
        };
        let secret = def.public_secret(&signing)?;
        let verifying = def.decode_secret(&secret).ok()?;
        return Some(Keys {
            secret,
            verifying,
            signing,
        });
    }
    SHARED_SECRETS.iter().find_map(|s| {
        Some(Keys {
            secret: (*s).to_owned(),
            verifying: def.decode_secret(s).ok()?,
            signing: def.decode_secret(s).ok()?,
        })
    })
}

/// A throwaway RSA key for the `rsa` family: generating one per run would
/// take seconds in a debug build.
const RSA_PEM: &str = include_str!("rsa-2048.pem");

/// The fuzzing private key as each public-key family reads one: an
/// Ed25519 seed in hex or base64, a P-256 PKCS#8 PEM, an RSA PKCS#8 PEM.
/// Made once.
fn private_key_texts() -> &'static [String] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let p256_pem = p256::ecdsa::SigningKey::from_bytes(&SEED.into())
            .ok()
            .and_then(|k| k.to_pkcs8_pem(LineEnding::LF).ok())
            .map(|pem| pem.to_string());
        let seed_base64 = base64::engine::general_purpose::STANDARD.encode(SEED);
        [
            Some(hex::encode(SEED)),
            Some(seed_base64),
            p256_pem,
            Some(RSA_PEM.to_owned()),
        ]
        .into_iter()
        .flatten()
        .collect()
    })
}

/// Every built-in provider, configured as an operator would (one tenant
/// `t` holding a secret from [`keys_for`]), with its signing key.
pub(super) struct Harness {
    settings: Settings,
    /// Provider names (the kinds), sorted, and each one's signing key.
    providers: Vec<(String, Key)>,
    verify_token: SecretString,
}

impl Harness {
    /// The harness, built once per process: loading the configuration is
    /// far slower than one fuzz input.
    pub(super) fn get() -> &'static Harness {
        static HARNESS: OnceLock<Harness> = OnceLock::new();
        HARNESS.get_or_init(Harness::build)
    }

    fn build() -> Harness {
        let defs = Definitions::load(None).expect("the built-in definitions load");
        let mut text = String::from("[store]\nkind = \"embedded\"\n");
        let mut providers = Vec::new();
        for def in defs.definitions() {
            let keys = keys_for(def)
                .unwrap_or_else(|| panic!("no fuzzing key decodes for kind {}", def.kind));
            let secret = toml::Value::String(keys.secret).to_string();
            text.push_str(&format!(
                "[providers.{kind:?}]\nkind = {kind:?}\n[providers.{kind:?}.tenants.t]\nsecrets = [{secret}]\nverify_token = \"fuzz-token\"\n",
                kind = def.kind,
            ));
            providers.push((def.kind.clone(), keys.signing));
        }
        let settings = crate::config::from_toml_str("fuzzing.toml", &text)
            .unwrap_or_else(|e| panic!("the fuzzing configuration is valid: {e}"));
        Harness {
            settings,
            providers,
            verify_token: SecretString::from("fuzz-token"),
        }
    }

    /// The provider named `kind`, else one picked by `kind`'s bytes, so a
    /// mutated name still selects something; and its signing key.
    fn pick(&self, kind: &str) -> (&Arc<Provider>, &Key) {
        let i = self
            .providers
            .iter()
            .position(|(k, _)| k == kind)
            .unwrap_or_else(|| kind.bytes().map(usize::from).sum::<usize>() % self.providers.len());
        let (name, key) = &self.providers[i];
        (&self.settings.providers[name.as_str()], key)
    }

    /// `req` through the receiver's checks for tenant `t` of `provider`:
    /// the certificate it would fetch, if any (never fetched: the request
    /// is then verified without one), then `verify_request`.
    fn verify(&self, provider: &Arc<Provider>, req: &UntrustedRequest<'_>) {
        let tenant = &provider.tenants["t"];
        if certificate_to_fetch(provider, tenant, req).is_err() {
            return;
        }
        let state = TenantState {
            verify_token: Some(&self.verify_token),
            stored_key: None,
            certificates: &[],
        };
        if let Ok(Verdict::Event(ev)) = verify_request(provider, tenant, req, &state) {
            // What the receiver stores: the newtypes' promise.
            assert!(!ev.event_id().is_empty(), "an event ID is never empty");
            assert!(
                !ev.event_id().chars().any(char::is_control),
                "an event ID holds no control character"
            );
        }
    }
}

/// A whole request to a built-in provider: the header lines and body of
/// an HTTP request, after a line naming the kind.
///
/// ```text
/// stripe sign              <- the kind; `sign`: add its valid signature
/// POST https://h.example/webhooks/stripe?x=1
/// Content-Type: application/json
///
/// {"id":"evt_1"}           <- the body, any bytes
/// ```
///
/// With `sign`, the provider's own signature headers (at [`NOW`]) replace
/// any of the same name, so the input reaches what happens after the
/// signature: the timestamp, signed handshakes, the event ID and type.
pub fn verify(data: &[u8]) {
    let (head, body) = match data.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, &data[data.len()..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split('\n');
    let mut first = lines.next().unwrap_or_default().split(' ');
    let kind = first.next().unwrap_or_default();
    let sign = first.any(|w| w == "sign");
    let request_line = lines.next().unwrap_or_default();
    let (method, url) = request_line
        .split_once(' ')
        .unwrap_or(("POST", request_line));
    let mut headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let harness = Harness::get();
    let (provider, key) = harness.pick(kind);
    if sign {
        let id = provider
            .def
            .signed_id_header()
            .and_then(|names| headers.first_of(names))
            .unwrap_or("msg_fuzz")
            .to_owned();
        let input = SignInput {
            method,
            url,
            headers: &headers,
            body,
            id: &id,
            timestamp: NOW,
        };
        if let Ok(signed) = provider.def.sign(key, &input) {
            headers.retain(|(k, _)| !signed.iter().any(|(s, _)| s.eq_ignore_ascii_case(k)));
            headers.extend(signed);
        }
    }
    let req = UntrustedRequest {
        method,
        url,
        query: url.split_once('?').map_or("", |(_, q)| q),
        headers: &headers,
        body: Bytes::copy_from_slice(body),
        received_at: NOW,
    };
    harness.verify(provider, &req);
}

/// A signature header value for a built-in provider: the kind, then the
/// value, set on every header the kind reads its signature from, of a
/// `POST` with an empty JSON body. The value also goes through every
/// timestamp format and digest encoding a definition can name.
pub fn signature_header(data: &[u8]) {
    let (kind, value) = first_line(data);
    let value = String::from_utf8_lossy(value);
    for format in [
        TimestampFormat::Unix,
        TimestampFormat::UnixMs,
        TimestampFormat::Rfc3339,
        TimestampFormat::Iso8601Utc,
        TimestampFormat::HttpDate,
    ] {
        let _ = format.parse(&value);
    }
    for encoding in [
        DigestEncoding::Hex,
        DigestEncoding::Base64,
        DigestEncoding::Base64url,
    ] {
        let _ = mac::decode_digest(encoding, &value);
    }
    let harness = Harness::get();
    let (provider, _) = harness.pick(&kind);
    let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    for name in provider.def.signature_headers() {
        headers.push((name.clone(), value.clone().into_owned()));
    }
    let req = UntrustedRequest {
        method: "POST",
        url: "https://hooks.example/webhooks/p/t",
        query: "",
        headers: &headers,
        body: Bytes::from_static(b"{}"),
        received_at: NOW,
    };
    harness.verify(provider, &req);
}
