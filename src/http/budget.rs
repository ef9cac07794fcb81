//! [`BufferBudget`]: the bytes of request bodies held at once, across every
//! request in flight, capped by `server.max_buffered_bytes`, and per client
//! ([`Peer`]) by `server.max_buffered_bytes_per_peer`.
//!
//! A request reserves what it holds as its body arrives (its first chunk
//! before a byte is read, then more as the bytes come, see
//! [`super::body`]) and gives it back when it has been answered, since the
//! body lives until then (verification, the store, an `ack = "handlers"`
//! wait). A reservation that would pass either cap is refused, so slow or
//! hostile senders can never make the receiver hold more than the cap,
//! and one client, whatever its number of connections, never more than
//! its share: the others keep room.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::peer::Peer;

/// The caps and what is reserved against them.
#[derive(Debug)]
pub struct BufferBudget {
    cap: usize,
    per_peer: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    /// Only clients holding something: an entry goes when its client's
    /// last reservation does, so this is bounded by the requests in flight.
    peers: HashMap<Peer, usize>,
}

impl BufferBudget {
    pub fn new(cap: usize, per_peer: usize) -> Arc<Self> {
        Arc::new(BufferBudget {
            cap,
            per_peer: per_peer.min(cap),
            held: Mutex::new(Held::default()),
        })
    }

    /// Reserve `bytes` for `peer`, or `None` if that would pass a cap.
    pub fn try_reserve(self: &Arc<Self>, peer: Peer, bytes: usize) -> Option<Reservation> {
        self.take(peer, bytes).then(|| Reservation {
            budget: self.clone(),
            peer,
            bytes,
        })
    }

    /// Bytes reserved right now (the `hookline_buffered_bytes` gauge).
    pub fn reserved(&self) -> usize {
        self.held.lock().expect("budget lock").total
    }

    /// Add `bytes` for `peer` unless the total or the peer's share would
    /// pass its cap: one step under the lock, so concurrent requests can
    /// never reserve more than the caps between them.
    fn take(&self, peer: Peer, bytes: usize) -> bool {
        if bytes == 0 {
            return true;
        }
        let mut held = self.held.lock().expect("budget lock");
        let mine = held.peers.get(&peer).copied().unwrap_or(0);
        let fits = |now: usize, cap: usize| now.checked_add(bytes).is_some_and(|t| t <= cap);
        if !fits(held.total, self.cap) || !fits(mine, self.per_peer) {
            return false;
        }
        held.total += bytes;
        *held.peers.entry(peer).or_insert(0) += bytes;
        true
    }

    fn give_back(&self, peer: Peer, bytes: usize) {
        let mut held = self.held.lock().expect("budget lock");
        held.total -= bytes;
        if let Some(mine) = held.peers.get_mut(&peer) {
            *mine -= bytes;
            if *mine == 0 {
                held.peers.remove(&peer);
            }
        }
    }
}

/// Bytes one request holds against the budget, given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<BufferBudget>,
    peer: Peer,
    bytes: usize,
}

impl Reservation {
    /// Bytes held by this reservation.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Hold `total` bytes in all; `false` (and nothing more held) if the
    /// budget cannot cover the difference.
    pub fn grow_to(&mut self, total: usize) -> bool {
        let more = total.saturating_sub(self.bytes);
        if more == 0 {
            return true;
        }
        if !self.budget.take(self.peer, more) {
            return false;
        }
        self.bytes = total;
        true
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.bytes > 0 {
            self.budget.give_back(self.peer, self.bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BufferBudget, Peer};

    fn peer(n: u8) -> Peer {
        Peer::from_ip([192, 0, 2, n].into())
    }

    #[test]
    fn reservations_never_pass_the_cap_and_are_given_back() {
        let budget = BufferBudget::new(100, 100);
        let mut a = budget.try_reserve(peer(1), 60).unwrap();
        assert!(budget.try_reserve(peer(2), 41).is_none(), "60 + 41 > 100");
        let b = budget.try_reserve(peer(2), 40).unwrap();
        assert_eq!(budget.reserved(), 100);
        assert!(!a.grow_to(61), "a chunked body cannot grow past the cap");
        assert_eq!((a.bytes(), budget.reserved()), (60, 100));
        drop(b);
        assert!(a.grow_to(90));
        assert!(a.grow_to(10), "never shrinks, always holds");
        assert_eq!(budget.reserved(), 90);
        drop(a);
        assert_eq!(budget.reserved(), 0);
        assert!(budget.try_reserve(peer(1), 100).is_some());
    }

    #[test]
    fn one_peer_holds_at_most_its_share() {
        let budget = BufferBudget::new(100, 30);
        let a1 = budget.try_reserve(peer(1), 20).unwrap();
        let mut a2 = budget.try_reserve(peer(1), 10).unwrap();
        assert!(
            budget.try_reserve(peer(1), 1).is_none(),
            "its share is full"
        );
        assert!(!a2.grow_to(11));
        let b = budget.try_reserve(peer(2), 30).unwrap();
        assert_eq!(budget.reserved(), 60);
        drop(a1);
        assert!(a2.grow_to(30), "room again once its other body went");
        drop((a2, b));
        assert_eq!(budget.reserved(), 0);
        assert!(budget.held.lock().unwrap().peers.is_empty());
    }
}
