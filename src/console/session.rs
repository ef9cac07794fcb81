//! Console sessions: signing in with `admin.token` opens one; its ID rides
//! in a cookie (`HttpOnly`, `SameSite=Strict`, `Path=/console`, a
//! `Max-Age`, `Secure` when the console is served over TLS or behind an
//! `https` `server.public_url`).
//!
//! Sessions live in the store (`console_session`: the SHA-256 of a random
//! 128-bit ID, its CSRF token and its expiry), so every node sharing the
//! store knows a session whichever node opened it, and a restart signs no
//! one out. The cookie carries the ID and an HMAC-SHA256 of it under a key
//! derived from `admin.token`, the same on every node: a forged or altered
//! cookie is refused before the store is asked, and changing the token
//! signs everyone out.
//!
//! Every POST carries the session's CSRF token in a hidden field, compared
//! in constant time, and its `Origin`, when sent, must be this host.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use hmac::{Mac, SimpleHmac};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::page::Failure;
use crate::http::AppState;
use crate::store::{now_ms, Store, StoreError};

/// The cookie's name.
pub const COOKIE: &str = "hookline_console";

/// How long a session lasts after sign-in.
pub const SESSION_TTL: Duration = Duration::from_secs(8 * 3600);

type Id = [u8; 16];

/// One signed-in operator.
#[derive(Debug, Clone)]
pub struct Session {
    /// Sent back in every form; checked on every POST.
    pub csrf: String,
}

/// The console's sessions: the cookies' key here, the sessions in the
/// store.
pub struct Sessions {
    key: [u8; 32],
}

impl Sessions {
    /// Cookies keyed by `admin_token`, so the nodes that share a token
    /// accept each other's cookies (without one the console is off, and
    /// the key is random).
    pub fn new(admin_token: Option<&SecretString>) -> Self {
        let key = match admin_token {
            Some(token) => {
                let mut mac =
                    SimpleHmac::<Sha256>::new_from_slice(token.expose_secret().as_bytes())
                        .expect("any key length");
                mac.update(b"hookline console session cookie");
                mac.finalize().into_bytes().into()
            }
            None => rand::random(),
        };
        Sessions { key }
    }

    fn mac(&self, id: &Id) -> SimpleHmac<Sha256> {
        let mut mac = SimpleHmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        mac.update(id);
        mac
    }

    /// The cookie value that names `id`.
    fn sign(&self, id: &Id) -> String {
        format!(
            "{}.{}",
            hex::encode(id),
            hex::encode(self.mac(id).finalize().into_bytes())
        )
    }

    /// Open a session; the cookie value that names it.
    pub async fn open(&self, store: &Store) -> Result<String, StoreError> {
        let id: Id = rand::random();
        let csrf = hex::encode(rand::random::<[u8; 16]>());
        let now = now_ms();
        let ttl = SESSION_TTL.as_millis() as i64;
        let key = Sha256::digest(id);
        store
            .with_records("session", |r| r.open_session(&key, &csrf, now + ttl, now))
            .await?;
        Ok(self.sign(&id))
    }

    /// The ID a cookie value names, if its signature holds.
    fn id(&self, cookie: &str) -> Option<Id> {
        let (id, sig) = cookie.split_once('.')?;
        let id: Id = hex::decode(id).ok()?.try_into().ok()?;
        self.mac(&id)
            .verify_slice(&hex::decode(sig).ok()?)
            .ok()
            .map(|_| id)
    }

    /// The live session a cookie value names.
    pub async fn find(&self, store: &Store, cookie: &str) -> Result<Option<Session>, StoreError> {
        let Some(id) = self.id(cookie) else {
            return Ok(None);
        };
        let key = Sha256::digest(id);
        let csrf = store
            .with_records("session", |r| r.find_session(&key, now_ms()))
            .await?;
        Ok(csrf.map(|csrf| Session { csrf }))
    }

    /// End the session a cookie value names.
    pub async fn close(&self, store: &Store, cookie: &str) -> Result<(), StoreError> {
        match self.id(cookie) {
            Some(id) => {
                let key = Sha256::digest(id);
                store
                    .with_records("session", |r| r.close_session(&key))
                    .await
            }
            None => Ok(()),
        }
    }
}

/// The value of the session cookie a request carries.
pub fn cookie_value(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix(COOKIE)?.strip_prefix('='))
        .map(str::to_owned)
}

/// Whether cookies must be `Secure`: the console is reached over HTTPS.
fn secure(state: &AppState) -> bool {
    state.settings.server.tls.is_some()
        || state
            .settings
            .server
            .public_url
            .as_ref()
            .is_some_and(|u| u.as_str().starts_with("https:"))
}

/// The `Set-Cookie` value that carries `value` for the session's life.
pub fn set_cookie(state: &AppState, value: &str) -> String {
    format!(
        "{COOKIE}={value}; Path=/console; Max-Age={}; HttpOnly; SameSite=Strict{}",
        SESSION_TTL.as_secs(),
        if secure(state) { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that removes the cookie.
pub fn clear_cookie(state: &AppState) -> String {
    set_cookie(state, "").replace(&format!("Max-Age={}", SESSION_TTL.as_secs()), "Max-Age=0")
}

/// A request from a signed-in operator: handlers that take it run only for
/// one; anyone else is sent to the sign-in page.
pub struct Authed(pub Session);

impl FromRequest for Authed {
    type Error = Failure;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Failure>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req
            .app_data::<web::Data<AppState>>()
            .expect("the app carries its state")
            .clone();
        let cookie = cookie_value(req);
        Box::pin(async move {
            let Some(cookie) = cookie else {
                return Err(Failure::SignIn);
            };
            match state.console.find(&state.store, &cookie).await? {
                Some(session) => Ok(Authed(session)),
                None => Err(Failure::SignIn),
            }
        })
    }
}

/// A POST that may change state: the session's CSRF token must come back
/// in the form, and the `Origin`, when the browser sends one (they all do
/// on a POST), must be this host. Returns the form's fields.
pub fn checked_form(
    req: &HttpRequest,
    session: &Session,
    body: &[u8],
) -> Result<Vec<(String, String)>, Failure> {
    same_origin(req)?;
    let fields: Vec<(String, String)> = form_urlencoded::parse(body).into_owned().collect();
    let offered = field(&fields, "csrf").unwrap_or("");
    if !bool::from(offered.as_bytes().ct_eq(session.csrf.as_bytes())) {
        return Err(Failure::Forbidden(
            "the form is stale or came from another site",
        ));
    }
    Ok(fields)
}

/// Refuse a cross-site POST by its `Origin` header.
pub fn same_origin(req: &HttpRequest) -> Result<(), Failure> {
    let Some(origin) = req.headers().get(header::ORIGIN) else {
        return Ok(());
    };
    let info = req.connection_info();
    let expected = format!("{}://{}", info.scheme(), info.host());
    if origin.as_bytes() == expected.as_bytes() {
        Ok(())
    } else {
        Err(Failure::Forbidden("cross-site requests are refused"))
    }
}

/// The first value of a form field.
pub fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_is_accepted_by_every_node_with_the_token_and_forgeries_by_none() {
        let token = SecretString::from("console-admin-token-0123456789");
        let (a, b) = (Sessions::new(Some(&token)), Sessions::new(Some(&token)));
        let id: Id = rand::random();
        let cookie = a.sign(&id);
        assert_eq!(b.id(&cookie), Some(id), "another node, the same token");
        let (hex_id, sig) = cookie.split_once('.').unwrap();
        let mut other = hex::decode(hex_id).unwrap();
        other[0] ^= 1;
        assert_eq!(a.id(&format!("{}.{sig}", hex::encode(other))), None);
        let rotated = SecretString::from("another-admin-token-0123456789");
        assert_eq!(Sessions::new(Some(&rotated)).id(&cookie), None);
        assert_eq!(Sessions::new(None).id(&cookie), None);
    }
}
