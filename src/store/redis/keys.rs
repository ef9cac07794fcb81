//! Key names and values in Redis, made small: every completed key stays in
//! memory for its provider's whole dedup window.
//!
//! A dedup key is `{prefix}:{TAG}` followed by 12 binary bytes:
//! - `TAG` is four hex digits of SHA-256(`provider NUL tenant`), a Redis
//!   Cluster hash tag, so every key of a provider+tenant (its body keys
//!   included) lands in one slot and each script touches one slot;
//! - the 12 bytes are the first 96 bits of SHA-256(`provider NUL tenant NUL
//!   event_id`): two event IDs of one provider+tenant share a key with
//!   probability about n²/2⁹⁷ for n keys in the window (6·10⁻¹² at a
//!   billion), and only authenticated senders choose event IDs.
//!
//! Under the default prefix the key is 27 bytes, which Redis stores in a
//! 32-byte allocation; the event ID itself (28 bytes for Stripe) would not
//! fit in 64. `hookline events show` finds a key from its event ID.
//!
//! A COMPLETED value is a decimal integer (the body digest's first 63
//! bits), which Redis keeps inside a 16-byte object instead of a 48-byte
//! string (`docs/redis-store.md`, "Keys").

use sha2::{Digest, Sha256};

/// Bytes of the event's hash in a dedup key's name.
const NAME_LEN: usize = 12;

/// Bytes of the body's SHA-256 an IN_PROGRESS key and a body key hold.
pub(crate) const DIGEST_LEN: usize = 16;

/// `{prefix}{infix}{TAG}`, the start of every key of a provider+tenant,
/// with room for `more` bytes: one allocation per key.
fn tagged(prefix: &str, infix: &str, provider: &str, tenant: &str, more: usize) -> Vec<u8> {
    let h = Sha256::new()
        .chain_update(provider)
        .chain_update([0])
        .chain_update(tenant)
        .finalize();
    let mut key = Vec::with_capacity(prefix.len() + infix.len() + 7 + more);
    key.extend_from_slice(prefix.as_bytes());
    key.extend_from_slice(infix.as_bytes());
    key.push(b'{');
    let mut tag = [0u8; 4];
    hex::encode_to_slice(&h[..2], &mut tag).expect("two bytes are four hex digits");
    key.extend_from_slice(&tag);
    key.push(b'}');
    key
}

/// The dedup key of an event. Provider and tenant are validated plain
/// names (no NUL, no braces), so the hashed string is unambiguous and the
/// first `{...}` of the key is the tag.
pub fn dedup_key(prefix: &str, provider: &str, tenant: &str, event_id: &str) -> Vec<u8> {
    let name = Sha256::new()
        .chain_update(provider)
        .chain_update([0])
        .chain_update(tenant)
        .chain_update([0])
        .chain_update(event_id)
        .finalize();
    let mut key = tagged(prefix, ":", provider, tenant, NAME_LEN);
    key.extend_from_slice(&name[..NAME_LEN]);
    key
}

/// `{prefix}:body:{TAG}:{provider}:{tenant}:` and the body's 16-byte digest
/// (binary): the second key of an event whose provider guards bodies, in
/// the same slot as its dedup key.
pub(super) fn body_key(prefix: &str, provider: &str, tenant: &str, body_sha256: &[u8]) -> Vec<u8> {
    let mut key = tagged(
        prefix,
        ":body:",
        provider,
        tenant,
        3 + provider.len() + tenant.len() + DIGEST_LEN,
    );
    key.push(b':');
    key.extend_from_slice(provider.as_bytes());
    key.push(b':');
    key.extend_from_slice(tenant.as_bytes());
    key.push(b':');
    key.extend_from_slice(&body_sha256[..DIGEST_LEN]);
    key
}

/// `{prefix}{infix}{TAG}:{provider}:{tenant}:{handler}`: a key of one
/// handler's deliveries of a provider+tenant (`infix` `:q:` for its
/// stream, `:r:` for its retry set), in the slot of the pair's dedup keys,
/// so the script that completes a key can append to the stream.
pub(super) fn delivery_key(
    prefix: &str,
    infix: &str,
    provider: &str,
    tenant: &str,
    handler: &str,
) -> Vec<u8> {
    let names = [provider, tenant, handler];
    let more = names.iter().map(|n| n.len() + 1).sum();
    let mut key = tagged(prefix, infix, provider, tenant, more);
    for name in names {
        key.push(b':');
        key.extend_from_slice(name.as_bytes());
    }
    key
}

/// A handler's stream and retry-set keys (`delivery_key` with `:q:` and
/// `:r:`): the pair's tag is hashed once for both.
pub(super) fn lane_keys(prefix: &str, provider: &str, tenant: &str, handler: &str) -> [Vec<u8>; 2] {
    let stream = delivery_key(prefix, ":q:", provider, tenant, handler);
    let mut retry = stream.clone();
    // The infixes differ in one letter, right after the prefix's `:`.
    retry[prefix.len() + 1] = b'r';
    [stream, retry]
}

/// The SCAN pattern of every handler's stream under `prefix`.
pub(super) fn stream_pattern(prefix: &str) -> String {
    format!("{prefix}:q:{{*")
}

/// The provider, tenant and handler a stream key (`delivery_key` with
/// `:q:`) names; `None` for a key not shaped like one.
pub(super) fn stream_names<'k>(prefix: &str, key: &'k [u8]) -> Option<[&'k str; 3]> {
    let rest = key.strip_prefix(prefix.as_bytes())?.strip_prefix(b":q:{")?;
    // The tag: four hex digits, then `}:`.
    let names = std::str::from_utf8(rest.get(6..)?).ok()?;
    let mut parts = names.splitn(3, ':');
    Some([parts.next()?, parts.next()?, parts.next()?])
}

/// The SCAN pattern of every dedup key under `prefix` (body keys have
/// `:body:` where dedup keys have their tag).
pub(super) fn dedup_pattern(prefix: &str) -> String {
    format!("{prefix}:{{*")
}

/// What a COMPLETED key holds for a body digest (at least 8 bytes): its
/// first 63 bits in decimal. Redis stores a string that reads as a 64-bit
/// integer as the integer. Two bodies under one event ID are told apart
/// unless their digests agree on those 63 bits (2⁻⁶³, and only an
/// authenticated sender can try).
pub(crate) fn completed_value(digest: &[u8]) -> String {
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) >> 1).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_fits_a_32_byte_allocation_under_the_default_prefix() {
        let key = dedup_key("hookline", "stripe", "acme", "evt_1MqqbKLt4dXK03v50fH9vyar");
        // sds header (3) + bytes + NUL must fit 32.
        assert_eq!(key.len(), 27);
        assert!(key.starts_with(b"hookline:{"));
        assert_eq!(key[14], b'}');
    }

    #[test]
    fn keys_differ_by_provider_tenant_and_event_but_share_a_tag_per_pair() {
        let k = |p, t, e| dedup_key("hl", p, t, e);
        let a = k("stripe", "acme", "evt_1");
        assert_ne!(a, k("stripe", "acme", "evt_2"));
        assert_ne!(a, k("stripe", "globex", "evt_1"));
        assert_ne!(a, k("github", "acme", "evt_1"));
        // NUL separation: ("ab", "c") is not ("a", "bc").
        assert_ne!(k("ab", "c", "e"), k("a", "bc", "e"));
        assert_eq!(a[..8], k("stripe", "acme", "evt_2")[..8]);
        let body = body_key("hl", "stripe", "acme", &[7; 32]);
        assert_eq!(&body[8..14], &a[3..9], "same hash tag as the dedup keys");
    }

    #[test]
    fn lane_keys_are_the_stream_and_retry_set_keys() {
        assert_eq!(
            lane_keys("hl", "stripe", "acme", "billing"),
            [
                delivery_key("hl", ":q:", "stripe", "acme", "billing"),
                delivery_key("hl", ":r:", "stripe", "acme", "billing"),
            ]
        );
    }

    #[test]
    fn a_stream_key_gives_back_its_names() {
        let stream = delivery_key("hl", ":q:", "stripe", "acme", "billing");
        assert_eq!(
            stream_names("hl", &stream),
            Some(["stripe", "acme", "billing"])
        );
        let retry = delivery_key("hl", ":r:", "stripe", "acme", "billing");
        assert_eq!(stream_names("hl", &retry), None);
        assert_eq!(stream_names("other", &stream), None);
        assert_eq!(stream_names("hl", b"hl:q:{ab"), None);
    }

    #[test]
    fn delivery_keys_share_the_pairs_slot_and_name_their_handler() {
        let dedup = dedup_key("hl", "stripe", "acme", "evt_1");
        let stream = delivery_key("hl", ":q:", "stripe", "acme", "billing");
        assert_eq!(
            stream,
            b"hl:q:{"
                .iter()
                .chain(&dedup[4..8])
                .chain(b"}:stripe:acme:billing")
                .copied()
                .collect::<Vec<u8>>()
        );
        assert_ne!(stream, delivery_key("hl", ":q:", "stripe", "acme", "audit"));
        assert_ne!(
            stream,
            delivery_key("hl", ":r:", "stripe", "acme", "billing")
        );
        // Not a dedup key to the inventory's SCAN.
        assert!(!stream.starts_with(dedup_pattern("hl").trim_end_matches('*').as_bytes()));
    }

    #[test]
    fn a_completed_value_is_a_canonical_integer_of_the_digest() {
        assert_eq!(completed_value(&[0; 16]), "0");
        assert_eq!(completed_value(&[0xff; 16]), i64::MAX.to_string());
        assert_eq!(completed_value(&[0, 0, 0, 0, 0, 0, 0, 2, 9]), "1");
        let v = completed_value(&[0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0]);
        assert!(!v.starts_with('0') && v.parse::<i64>().is_ok());
    }
}
