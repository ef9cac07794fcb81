//! The requests the load generator sends: Stripe-signed webhook bodies of a
//! fixed size, pre-serialised to the raw HTTP/1.1 bytes that go on the wire,
//! so sending one costs one write and nothing else.

use bytes::Bytes;
use hmac::{Hmac, Mac};
use rand::{Rng, SeedableRng};
use sha2::Sha256;

use crate::client::Target;

/// `Stripe-Signature` for `body` at unix time `ts`: HMAC-SHA256 of
/// `"{ts}.{body}"` keyed with the endpoint secret used as-is
/// (<https://docs.stripe.com/webhooks#verify-manually>). Stripe is the one
/// scheme the benchmark needs; signing it here keeps the benchmark
/// independent of the service's provider code, which it is meant to measure.
pub fn stripe_signature(secret: &str, ts: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(ts.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("t={ts},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// Stripe-shaped event IDs: `evt_` and 24 characters, unique per `prefix`.
pub fn event_id(prefix: &str, i: usize) -> String {
    format!("evt_{prefix}{i:0>width$}", width = 24 - prefix.len())
}

/// A JSON body of exactly `size` bytes (or the smallest possible) with the
/// event ID at `/id` and the type at `/type`, where Stripe puts them.
pub fn body(id: &str, event_type: &str, size: usize) -> Vec<u8> {
    let head = format!(
        r#"{{"id":"{id}","object":"event","type":"{event_type}","data":{{"object":{{"pad":""#
    );
    let tail = r#""}}}"#;
    let pad = size.saturating_sub(head.len() + tail.len());
    let mut out = Vec::with_capacity(head.len() + pad + tail.len());
    out.extend_from_slice(head.as_bytes());
    out.extend(std::iter::repeat_n(b'x', pad));
    out.extend_from_slice(tail.as_bytes());
    out
}

/// One request, as the bytes that go on the wire.
#[derive(Clone)]
pub struct Prepared {
    pub bytes: Bytes,
    /// An exact copy of an earlier request (a provider's retry): the
    /// answer must say `duplicate`.
    pub duplicate: bool,
}

/// What to put in the pool.
pub struct PoolSpec<'a> {
    pub secret: &'a str,
    pub event_type: &'a str,
    pub body_bytes: usize,
    /// Share of requests that are copies of an earlier one.
    pub dup_share: f64,
    /// Distinguishes this run's event IDs from every other run's.
    pub id_prefix: &'a str,
    /// Requests in the pool.
    pub size: usize,
    /// Copies repeat a request at least this many places back, further than
    /// the requests in flight, so the original has been answered and the
    /// copy meets a completed key rather than an in-progress claim.
    pub dup_gap: usize,
    /// Unix time the requests are signed at.
    pub signed_at: i64,
}

/// Sign `spec.size` requests for `target`, on every core (signing a million
/// requests one by one would take longer than the measurement).
pub fn build_pool(spec: &PoolSpec, target: &Target) -> anyhow::Result<Vec<Prepared>> {
    anyhow::ensure!(
        spec.id_prefix.len() <= 12,
        "ID prefix: 12 characters at most"
    );
    let n = spec.size.max(1);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = n.div_ceil(threads);
    let mut unique: Vec<Bytes> = Vec::with_capacity(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    ((t * chunk)..((t + 1) * chunk).min(n))
                        .map(|i| wire_request(spec, target, &event_id(spec.id_prefix, i)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            unique.extend(h.join().expect("signing thread"));
        }
    });
    Ok(mix_duplicates(unique, spec.dup_share, spec.dup_gap))
}

fn wire_request(spec: &PoolSpec, target: &Target, id: &str) -> Bytes {
    let b = body(id, spec.event_type, spec.body_bytes);
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nStripe-Signature: {}\r\n\r\n",
        target.path,
        target.host_port,
        b.len(),
        stripe_signature(spec.secret, spec.signed_at, &b),
    );
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&b);
    Bytes::from(bytes)
}

/// Lay out the pool: each place holds either the next unique request or,
/// with probability `share`, a copy of one sent at least `gap` places
/// before. The pool keeps its size, so fewer unique requests are used.
/// Seeded, so every run of a configuration sends the same sequence.
pub fn mix_duplicates(unique: Vec<Bytes>, share: f64, gap: usize) -> Vec<Prepared> {
    let n = unique.len();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6b6f6f6c);
    let mut pool = Vec::with_capacity(n);
    let mut next_unique = unique.into_iter();
    let mut originals: Vec<Bytes> = Vec::with_capacity(n);
    for _ in 0..n {
        if originals.len() > gap && share > 0.0 && rng.gen_bool(share.min(1.0)) {
            let j = rng.gen_range(0..originals.len() - gap);
            pool.push(Prepared {
                bytes: originals[j].clone(),
                duplicate: true,
            });
        } else if let Some(b) = next_unique.next() {
            originals.push(b.clone());
            pool.push(Prepared {
                bytes: b,
                duplicate: false,
            });
        }
    }
    pool
}

#[cfg(test)]
mod tests {
    use super::*;

    /// stripe/stripe-dotnet EventUtilityTest.cs, fixture
    /// event_test_signature.json: the same vector hookline's own
    /// known-answer tests verify, so a request signed here verifies there.
    #[test]
    fn stripe_signature_matches_stripe_dotnet_vector() {
        let body = "{\n  \"id\": \"evt_123\",\n  \"object\": \"event\",\n  \"account\": \"acct_123\",\n  \"api_version\": \"2017-05-25\",\n  \"created\": 1533204620,\n  \"data\": {\n    \"object\": {\n      \"id\": \"cus_123\",\n      \"object\": \"customer\",\n      \"created\": 123456789,\n      \"email\": \"test@stripe.com\",\n      \"livemode\": false,\n      \"metadata\": {}\n    }\n  },\n  \"livemode\": false,\n  \"pending_webhooks\": 1,\n  \"request\": {\n    \"id\": \"req_123\",\n    \"idempotency_key\": \"idempotency-key-123\"\n  },\n  \"type\": \"customer.created\"\n}\n";
        assert_eq!(
            stripe_signature("webhook_secret", 1_533_204_620, body.as_bytes()),
            "t=1533204620,v1=2220f87ef101a04665f11cdf770523143f875572008577fa0f20882ddb9cc3c7"
        );
    }

    #[test]
    fn body_has_the_requested_size_and_the_id_where_stripe_puts_it() {
        for size in [256, 1024, 8192] {
            let b = body(&event_id("ab", 7), "payment_intent.succeeded", size);
            assert_eq!(b.len(), size);
            let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
            assert_eq!(v["id"], "evt_ab0000000000000000000007");
            assert_eq!(v["type"], "payment_intent.succeeded");
        }
    }

    #[test]
    fn duplicates_copy_requests_answered_long_before() {
        let unique: Vec<Bytes> = (0..20_000).map(|i| Bytes::from(format!("{i}"))).collect();
        let pool = mix_duplicates(unique, 0.1, 1000);
        assert_eq!(pool.len(), 20_000);
        let copies = pool.iter().filter(|p| p.duplicate).count();
        assert!((1_500..2_500).contains(&copies), "{copies} copies");
        let mut seen = std::collections::HashMap::new();
        for (i, p) in pool.iter().enumerate() {
            match seen.get(&p.bytes) {
                Some(first) => {
                    assert!(p.duplicate, "an original sent twice");
                    assert!(i - first > 1000, "copy {i} only {} after", i - first);
                }
                None => {
                    assert!(!p.duplicate, "a copy of nothing");
                    seen.insert(p.bytes.clone(), i);
                }
            }
        }
    }
}
