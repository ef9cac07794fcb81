//! `scheme = "x5c"`: an ES256 JWS in a member of the JSON body whose
//! header `x5c` carries the signing chain (leaf, intermediate, root), which
//! must lead to a trusted root. Apple App Store Server Notifications V2
//! (`{"signedPayload": "..."}`), checked as Apple's app-store-server-library
//! `SignedDataVerifier` checks it offline:
//!
//! - `x5c` holds exactly three certificates; the third is not trusted: the
//!   intermediate must be signed by one of the trusted roots.
//! - The leaf is signed by the intermediate, which is a CA; the leaf and
//!   the intermediate carry the definition's marker OIDs (Apple's
//!   1.2.840.113635.100.6.11.1 and 1.2.840.113635.100.6.2.1).
//! - Every certificate is valid at the payload's signing time
//!   (`signedDate`, milliseconds), or at receipt without one.
//! - The JWS verifies with the leaf's P-256 key, and the verified payload
//!   names one of the tenant's app IDs (the bundle ID).
//!
//! Nothing is fetched. The trusted roots are the definition's `roots`
//! (Apple Root CA - G3 is bundled as `apple-root-ca-g3`); a tenant secret
//! that is a PEM certificate replaces them for that tenant.

mod chain;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use serde_json::Value;

use super::{Family, SignError, SignInput, VerifyError};
use crate::provider::key::{Key, KeyError};
use crate::provider::request::UntrustedRequest;

/// Apple Root CA - G3, from https://www.apple.com/certificateauthority/
/// (SHA-1 B5:2C:B0:2F:D5:67:E0:35:9F:E8:FA:4D:4C:41:03:79:70:FE:01:B0).
const APPLE_ROOT_CA_G3: &str = include_str!("apple-root-ca-g3.pem");

/// How a PEM certificate starts, in `roots` and in tenant secrets.
const PEM: &str = "-----BEGIN CERTIFICATE-----";

/// The parameters of `scheme = "x5c"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct X5cParams {
    /// RFC 6901 pointer of the JWS string in the JSON body
    /// (`/signedPayload`).
    pub member: String,
    /// The trusted roots: `apple-root-ca-g3` (bundled) or PEM certificates.
    pub roots: Vec<String>,
    /// The extension OID the leaf certificate must carry.
    pub leaf_oid: String,
    /// The extension OID the intermediate certificate must carry.
    pub intermediate_oid: String,
    /// Pointers into the verified payload to the app ID a tenant's secret
    /// names; the first present is read.
    pub app_id: Vec<String>,
    /// Pointer into the payload to the signing time, in unix milliseconds;
    /// the certificates must be valid then.
    #[serde(default)]
    pub signed_at_ms: Option<String>,
}

impl X5cParams {
    /// The trusted roots as DER: the tenant's PEM secrets when it set any,
    /// else the definition's.
    fn roots(&self, secrets: &[&[u8]]) -> Vec<Vec<u8>> {
        let tenant: Vec<Vec<u8>> = secrets
            .iter()
            .filter(|s| s.starts_with(PEM.as_bytes()))
            .filter_map(|s| chain::pem_der(s))
            .collect();
        if !tenant.is_empty() {
            return tenant;
        }
        self.roots
            .iter()
            .filter_map(|r| chain::pem_der(root_text(r).as_bytes()))
            .collect()
    }

    /// The JWS at `member`: a body without it carries no signature.
    fn token(&self, body: &[u8]) -> Result<String, VerifyError> {
        let json: Value =
            serde_json::from_slice(body).map_err(|_| VerifyError::MissingSignature)?;
        match json.pointer(&self.member) {
            Some(Value::String(token)) => Ok(token.clone()),
            _ => Err(VerifyError::MissingSignature),
        }
    }
}

/// A `roots` entry's PEM text: the bundled certificate it names, or itself.
fn root_text(entry: &str) -> &str {
    match entry {
        "apple-root-ca-g3" => APPLE_ROOT_CA_G3,
        pem => pem,
    }
}

impl Family for X5cParams {
    fn name(&self) -> &'static str {
        "x5c"
    }

    fn check(&self) -> Result<(), String> {
        for (name, p) in [("member", &self.member)]
            .into_iter()
            .chain(self.app_id.iter().map(|p| ("app_id", p)))
            .chain(self.signed_at_ms.iter().map(|p| ("signed_at_ms", p)))
        {
            crate::provider::identity::check_pointer(p).map_err(|e| format!("{name}: {e}"))?;
        }
        if self.app_id.is_empty() {
            return Err("app_id: must list at least one pointer".into());
        }
        if self.roots.is_empty() {
            return Err("roots: must list at least one root certificate".into());
        }
        for (i, root) in self.roots.iter().enumerate() {
            let text = root_text(root);
            if !text.starts_with(PEM) || chain::pem_der(text.as_bytes()).is_none() {
                return Err(format!(
                    "roots[{i}]: not \"apple-root-ca-g3\" nor a PEM certificate"
                ));
            }
        }
        for (name, oid) in [
            ("leaf_oid", &self.leaf_oid),
            ("intermediate_oid", &self.intermediate_oid),
        ] {
            let ok = !oid.is_empty()
                && oid
                    .split('.')
                    .all(|arc| !arc.is_empty() && arc.bytes().all(|b| b.is_ascii_digit()));
            if !ok {
                return Err(format!("{name}: {oid:?} is not a dotted OID"));
            }
        }
        Ok(())
    }

    fn decode_secret(&self, secret: &str) -> Result<Key, KeyError> {
        let secret = secret.trim();
        if secret.starts_with(PEM) {
            if chain::pem_der(secret.as_bytes()).is_none() {
                return Err(KeyError::new(
                    "this root certificate is not a readable PEM X.509 certificate",
                ));
            }
        } else if secret.is_empty() || secret.chars().any(char::is_whitespace) {
            return Err(KeyError::new(
                "this provider's secret is the app's bundle ID, or a PEM root certificate",
            ));
        }
        Key::shared(secret.as_bytes().to_vec())
    }

    fn decode_private_key(&self, _text: &str) -> Result<Key, KeyError> {
        Err(KeyError::new(
            "only the provider signs for this scheme, with its certificate chain",
        ))
    }

    fn verify(
        &self,
        req: &UntrustedRequest<'_>,
        keys: &[&Key],
    ) -> Result<Option<i64>, VerifyError> {
        let token = self.token(&req.body)?;
        let header =
            jsonwebtoken::decode_header(&token).map_err(|_| VerifyError::InvalidSignature)?;
        if header.alg != Algorithm::ES256 {
            return Err(VerifyError::InvalidSignature);
        }
        let certs: Vec<Vec<u8>> = header
            .x5c
            .unwrap_or_default()
            .iter()
            .map(|c| STANDARD.decode(c))
            .collect::<Result<_, _>>()
            .map_err(|_| VerifyError::InvalidSignature)?;
        let [leaf, intermediate, _untrusted_root] = certs.as_slice() else {
            return Err(VerifyError::InvalidSignature);
        };
        let claims = super::jws::unverified_claims(&token).ok_or(VerifyError::InvalidSignature)?;
        let at = match &self.signed_at_ms {
            Some(p) => claims
                .pointer(p)
                .and_then(Value::as_i64)
                .map(|ms| ms / 1000),
            None => None,
        }
        .unwrap_or(req.received_at);
        let secrets: Vec<&[u8]> = keys.iter().filter_map(|k| k.shared_bytes()).collect();
        let roots = self.roots(&secrets);
        let trust = chain::Trust {
            roots: &roots,
            leaf_oid: &self.leaf_oid,
            intermediate_oid: &self.intermediate_oid,
            at,
        };
        let point = trust
            .leaf_key(leaf, intermediate)
            .ok_or(VerifyError::InvalidSignature)?;
        let validation = super::jws::signature_only(Algorithm::ES256);
        let data =
            jsonwebtoken::decode::<Value>(&token, &DecodingKey::from_ec_der(&point), &validation)
                .map_err(|_| VerifyError::InvalidSignature)?;
        let app_id = self
            .app_id
            .iter()
            .find_map(|p| data.claims.pointer(p).and_then(Value::as_str))
            .ok_or(VerifyError::InvalidSignature)?;
        let tenant_app = secrets
            .iter()
            .filter(|s| !s.starts_with(PEM.as_bytes()))
            .any(|s| *s == app_id.as_bytes());
        if !tenant_app {
            return Err(VerifyError::InvalidSignature);
        }
        // The signing time bounds the certificates, not the request: Apple
        // retries the same signed payload for days.
        Ok(None)
    }

    fn sign(&self, _key: &Key, _input: &SignInput<'_>) -> Result<Vec<(String, String)>, SignError> {
        Err(SignError::ProviderOnly)
    }

    fn needs_url(&self) -> bool {
        false
    }

    fn signature_headers(&self) -> &[String] {
        &[]
    }
}
