//! Wrong admin tokens, counted per client ([`Peer`]): the console's sign-in
//! and the admin API's bearer token are the same secret, so both count
//! against one budget. A client that offered [`MAX_FAILURES`] wrong tokens
//! within [`WINDOW`] is answered 429 + `Retry-After` until that window
//! ends, before its token is even compared: guessing runs at a few tries a
//! minute, not thousands a second, and a right token from another client
//! is never refused.
//!
//! Failures are counted, not attempts (an operator's automation calling
//! the admin API is never slowed); `governor`'s keyed limiter takes a cell
//! per attempt and cannot tell whether a client is out before it takes
//! one, hence this fixed window. At most [`MAX_CLIENTS`] clients are
//! remembered (those whose window ended go first, then the oldest): a
//! flood from many addresses cannot grow it without bound.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::peer::Peer;

/// Wrong tokens a client may offer per [`WINDOW`].
pub const MAX_FAILURES: u32 = 10;
/// The window failures are counted in.
pub const WINDOW: Duration = Duration::from_secs(60);
/// Clients remembered at once.
pub const MAX_CLIENTS: usize = 100_000;

/// One client's failures in its current window.
#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    failures: u32,
}

/// Failed token checks per client.
#[derive(Debug, Default)]
pub struct AuthFailures {
    clients: Mutex<HashMap<Peer, Window>>,
}

impl AuthFailures {
    /// How long `peer` must wait before its token is checked again;
    /// `None` when it may try now.
    pub fn wait(&self, peer: Peer) -> Option<Duration> {
        let clients = self.clients.lock().expect("auth failures lock");
        let w = clients.get(&peer)?;
        let left = WINDOW.checked_sub(w.started.elapsed())?;
        (w.failures >= MAX_FAILURES).then_some(left)
    }

    /// `peer` offered a wrong token.
    pub fn failed(&self, peer: Peer) {
        let mut clients = self.clients.lock().expect("auth failures lock");
        if clients.len() >= MAX_CLIENTS && !clients.contains_key(&peer) {
            clients.retain(|_, w| w.started.elapsed() < WINDOW);
            if clients.len() >= MAX_CLIENTS {
                let oldest = clients
                    .iter()
                    .min_by_key(|(_, w)| w.started)
                    .map(|(p, _)| *p);
                if let Some(oldest) = oldest {
                    clients.remove(&oldest);
                }
            }
        }
        let now = Instant::now();
        let w = clients.entry(peer).or_insert(Window {
            started: now,
            failures: 0,
        });
        if w.started.elapsed() >= WINDOW {
            *w = Window {
                started: now,
                failures: 0,
            };
        }
        w.failures += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_held_after_its_failures_and_others_are_not() {
        let throttle = AuthFailures::default();
        let a = Peer::from_ip([192, 0, 2, 1].into());
        let b = Peer::from_ip([192, 0, 2, 2].into());
        for _ in 0..MAX_FAILURES {
            assert_eq!(throttle.wait(a), None);
            throttle.failed(a);
        }
        let wait = throttle.wait(a).expect("held");
        assert!(wait > WINDOW - Duration::from_secs(5) && wait <= WINDOW);
        assert_eq!(throttle.wait(b), None, "another client");
    }
}
