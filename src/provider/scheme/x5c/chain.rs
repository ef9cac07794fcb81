//! The certificate chain check of [`super`]: leaf, intermediate, and a
//! trusted root, parsed and verified with `x509-parser` (signatures by
//! `ring`).

use x509_parser::certificate::X509Certificate;
use x509_parser::prelude::FromDer;

/// What a chain must lead to.
pub(super) struct Trust<'a> {
    /// The trusted roots, DER.
    pub roots: &'a [Vec<u8>],
    pub leaf_oid: &'a str,
    pub intermediate_oid: &'a str,
    /// Unix seconds at which every certificate must be valid.
    pub at: i64,
}

/// The DER of the first PEM certificate in `text`.
pub(super) fn pem_der(text: &[u8]) -> Option<Vec<u8>> {
    let (_, pem) = x509_parser::pem::parse_x509_pem(text).ok()?;
    if pem.label != "CERTIFICATE" {
        return None;
    }
    parse(&pem.contents)?;
    Some(pem.contents)
}

/// A whole DER certificate, nothing after it.
fn parse(der: &[u8]) -> Option<X509Certificate<'_>> {
    match X509Certificate::from_der(der) {
        Ok(([], cert)) => Some(cert),
        _ => None,
    }
}

impl Trust<'_> {
    /// The leaf's public key (the uncompressed EC point) when `leaf` and
    /// `intermediate` chain to a trusted root with the marker OIDs, all
    /// valid at `at`; `None` otherwise.
    pub(super) fn leaf_key(&self, leaf: &[u8], intermediate: &[u8]) -> Option<Vec<u8>> {
        let leaf = parse(leaf)?;
        let intermediate = parse(intermediate)?;
        let chained = self
            .roots
            .iter()
            .filter_map(|r| parse(r))
            .any(|root| self.valid(&root) && is_ca(&root) && signed_by(&intermediate, &root));
        let ok = chained
            && self.valid(&intermediate)
            && self.valid(&leaf)
            && is_ca(&intermediate)
            && !is_ca(&leaf)
            && signed_by(&leaf, &intermediate)
            && has_extension(&leaf, self.leaf_oid)
            && has_extension(&intermediate, self.intermediate_oid);
        ok.then(|| leaf.public_key().subject_public_key.data.to_vec())
    }

    fn valid(&self, cert: &X509Certificate<'_>) -> bool {
        let validity = cert.validity();
        validity.not_before.timestamp() <= self.at && self.at <= validity.not_after.timestamp()
    }
}

/// Whether `cert` names `issuer` as its issuer and carries its signature.
fn signed_by(cert: &X509Certificate<'_>, issuer: &X509Certificate<'_>) -> bool {
    cert.issuer().as_raw() == issuer.subject().as_raw()
        && cert.verify_signature(Some(issuer.public_key())).is_ok()
}

/// Whether `cert` is a certificate authority (basic constraints `cA`).
fn is_ca(cert: &X509Certificate<'_>) -> bool {
    matches!(cert.basic_constraints(), Ok(Some(b)) if b.value.ca)
}

/// Whether `cert` carries an extension with the dotted `oid`.
fn has_extension(cert: &X509Certificate<'_>, oid: &str) -> bool {
    cert.extensions()
        .iter()
        .any(|e| e.oid.to_id_string() == oid)
}
