//! [`BufferBudget`]: the bytes of request bodies held at once, across every
//! request in flight, capped by `server.max_buffered_bytes`.
//!
//! A request reserves what it will hold before it reads its body (the
//! declared `Content-Length`; a chunked body grows its reservation as it
//! arrives) and gives it back when it has been answered, since the body
//! lives until then (verification, the store, an `ack = "handlers"` wait).
//! Past the cap a new request is refused before its body is read, so slow
//! or hostile senders can never make the receiver hold more than the cap.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The shared cap and what is reserved against it.
#[derive(Debug)]
pub struct BufferBudget {
    cap: usize,
    reserved: AtomicUsize,
}

impl BufferBudget {
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(BufferBudget {
            cap,
            reserved: AtomicUsize::new(0),
        })
    }

    /// Reserve `bytes`, or `None` if that would pass the cap.
    pub fn try_reserve(self: &Arc<Self>, bytes: usize) -> Option<Reservation> {
        self.take(bytes).then(|| Reservation {
            budget: self.clone(),
            bytes,
        })
    }

    /// Bytes reserved right now (the `hookline_buffered_bytes` gauge).
    pub fn reserved(&self) -> usize {
        self.reserved.load(Ordering::Acquire)
    }

    /// Add `bytes` unless the total would pass the cap: one atomic step, so
    /// concurrent requests can never reserve more than the cap between them.
    fn take(&self, bytes: usize) -> bool {
        self.reserved
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|total| *total <= self.cap)
            })
            .is_ok()
    }
}

/// Bytes one request holds against the budget, given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<BufferBudget>,
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
        if !self.budget.take(more) {
            return false;
        }
        self.bytes = total;
        true
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.reserved.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::BufferBudget;

    #[test]
    fn reservations_never_pass_the_cap_and_are_given_back() {
        let budget = BufferBudget::new(100);
        let mut a = budget.try_reserve(60).unwrap();
        assert!(budget.try_reserve(41).is_none(), "60 + 41 > 100");
        let b = budget.try_reserve(40).unwrap();
        assert_eq!(budget.reserved(), 100);
        assert!(!a.grow_to(61), "a chunked body cannot grow past the cap");
        assert_eq!((a.bytes(), budget.reserved()), (60, 100));
        drop(b);
        assert!(a.grow_to(90));
        assert!(a.grow_to(10), "never shrinks, always holds");
        assert_eq!(budget.reserved(), 90);
        drop(a);
        assert_eq!(budget.reserved(), 0);
        assert!(budget.try_reserve(100).is_some());
    }
}
