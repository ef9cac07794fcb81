//! Console sessions: signing in with `admin.token` opens one; its ID rides
//! in a cookie (`HttpOnly`, `SameSite=Strict`, `Path=/console`, a
//! `Max-Age`, `Secure` when the console is served over TLS or behind an
//! `https` `server.public_url`).
//!
//! Sessions live in this process's memory: a map from a random 128-bit ID
//! to its expiry and its CSRF token. The cookie carries the ID and an
//! HMAC-SHA256 of it under a key drawn at start-up, so a forged or altered
//! cookie is refused before the map is looked at. A restart signs every
//! operator out, and each node of a cluster has its own sessions (sign in
//! on the node you browse).
//!
//! Every POST carries the session's CSRF token in a hidden field, compared
//! in constant time, and its `Origin`, when sent, must be this host.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{web, FromRequest, HttpRequest};
use hmac::{Mac, SimpleHmac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::page::Failure;
use crate::http::AppState;

/// The cookie's name.
pub const COOKIE: &str = "hookline_console";

/// How long a session lasts after sign-in.
pub const SESSION_TTL: Duration = Duration::from_secs(8 * 3600);

/// Sessions kept at most; past it the oldest goes (only token holders
/// open sessions, so this bounds memory against a careless script).
const MAX_SESSIONS: usize = 1000;

type Id = [u8; 16];

/// One signed-in operator.
#[derive(Debug, Clone)]
pub struct Session {
    pub expires: Instant,
    /// Sent back in every form; checked on every POST.
    pub csrf: String,
}

/// Every open session of this process.
pub struct Sessions {
    key: [u8; 32],
    open: Mutex<HashMap<Id, Session>>,
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new()
    }
}

impl Sessions {
    pub fn new() -> Self {
        Sessions {
            key: rand::random(),
            open: Mutex::new(HashMap::new()),
        }
    }

    fn mac(&self, id: &Id) -> SimpleHmac<Sha256> {
        let mut mac = SimpleHmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        mac.update(id);
        mac
    }

    /// Open a session; the cookie value that names it.
    pub fn open(&self) -> String {
        let id: Id = rand::random();
        let session = Session {
            expires: Instant::now() + SESSION_TTL,
            csrf: hex::encode(rand::random::<[u8; 16]>()),
        };
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        open.retain(|_, s| s.expires > now);
        if open.len() >= MAX_SESSIONS {
            if let Some(oldest) = open.iter().min_by_key(|(_, s)| s.expires).map(|(k, _)| *k) {
                open.remove(&oldest);
            }
        }
        open.insert(id, session);
        format!(
            "{}.{}",
            hex::encode(id),
            hex::encode(self.mac(&id).finalize().into_bytes())
        )
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
    pub fn find(&self, cookie: &str) -> Option<Session> {
        let id = self.id(cookie)?;
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        match open.get(&id) {
            Some(s) if s.expires > Instant::now() => Some(s.clone()),
            Some(_) => {
                open.remove(&id);
                None
            }
            None => None,
        }
    }

    /// End the session a cookie value names.
    pub fn close(&self, cookie: &str) {
        if let Some(id) = self.id(cookie) {
            self.open
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
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
    type Future = std::future::Ready<Result<Self, Failure>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req
            .app_data::<web::Data<AppState>>()
            .expect("the app carries its state");
        let session = cookie_value(req).and_then(|c| state.console.find(&c));
        std::future::ready(session.map(Authed).ok_or(Failure::SignIn))
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
    fn a_cookie_names_its_session_until_closed_and_forgeries_name_none() {
        let sessions = Sessions::new();
        let cookie = sessions.open();
        assert!(sessions.find(&cookie).is_some());
        let (id, sig) = cookie.split_once('.').unwrap();
        let mut other = hex::decode(id).unwrap();
        other[0] ^= 1;
        assert!(sessions
            .find(&format!("{}.{sig}", hex::encode(other)))
            .is_none());
        assert!(Sessions::new().find(&cookie).is_none(), "another key");
        sessions.close(&cookie);
        assert!(sessions.find(&cookie).is_none());
    }
}
