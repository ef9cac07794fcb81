//! What a family that verifies with a fetched key asks the receiver to
//! fetch first ([`CertificateNeeded`]), and the credentials some key
//! endpoints want ([`KeyAuth`]: Circle's API key, eBay's application
//! token). None of them is ever shown.

use super::FetchUrl;

/// The certificate or published keys to fetch before a request can be
/// verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateNeeded {
    /// One URL, or one per tenant secret that leads to its own (a tenant
    /// moving from one Kinde domain to another).
    pub urls: Vec<FetchUrl>,
    /// Unix seconds of the time the request signed, if it signs one.
    pub signed_at: Option<i64>,
    /// The key ID the request names among published keys (`kid`): a
    /// cached set without it is fetched again.
    pub key_id: Option<String>,
    /// The credential to fetch each of `urls` with, for a family whose key
    /// endpoint wants one (`ecdsa-key-id`, `ebay`); empty for the others.
    pub credentials: Vec<Credential>,
}

impl CertificateNeeded {
    /// Keys fetched by the ID a request names, each URL with the
    /// credential of the first tenant secret that leads to it (`pairs`, in
    /// the secrets' order); no URL at all is a request that names no key
    /// this tenant can fetch.
    pub(crate) fn credentialed(
        pairs: impl IntoIterator<Item = (FetchUrl, KeyAuth)>,
    ) -> Result<Option<CertificateNeeded>, super::VerifyError> {
        let mut credentials: Vec<Credential> = Vec::new();
        for (url, auth) in pairs {
            if !credentials.iter().any(|c| c.url == url) {
                credentials.push(Credential { url, auth });
            }
        }
        if credentials.is_empty() {
            return Err(super::VerifyError::InvalidSignature);
        }
        Ok(Some(CertificateNeeded {
            urls: credentials.iter().map(|c| c.url.clone()).collect(),
            signed_at: None,
            key_id: None,
            credentials,
        }))
    }
}

/// A URL to fetch with a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub url: FetchUrl,
    pub auth: KeyAuth,
}

/// How a key endpoint is authorized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyAuth {
    /// The tenant's API key as `Authorization: Bearer` (Circle).
    Bearer(Bearer),
    /// An application token obtained first with the tenant's client ID and
    /// secret (OAuth client-credentials grant), then sent as
    /// `Authorization: Bearer` (eBay).
    ClientCredentials(ClientCredentials),
}

/// An OAuth client-credentials grant: `POST token_url` with
/// `Authorization: Basic base64(client_id:client_secret)` and
/// `grant_type=client_credentials&scope=SCOPE`, answered with
/// `{"access_token": ..., "expires_in": SECONDS}`. The secret is never
/// shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCredentials {
    pub token_url: FetchUrl,
    pub client_id: String,
    pub client_secret: Bearer,
    pub scope: String,
}

/// An API key sent as `Authorization: Bearer` to a key endpoint. Never
/// shown: its `Debug` output is redacted, and it has no `Display`.
#[derive(Clone)]
pub struct Bearer(secrecy::SecretString);

impl Bearer {
    pub(crate) fn new(token: &str) -> Self {
        Bearer(token.to_owned().into())
    }

    /// The token, for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        use secrecy::ExposeSecret as _;
        self.0.expose_secret()
    }
}

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Bearer([redacted])")
    }
}

impl PartialEq for Bearer {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq as _;
        bool::from(self.expose().as_bytes().ct_eq(other.expose().as_bytes()))
    }
}

impl Eq for Bearer {}
