//! The gates' in-flight limits, waits for a place and circuit breaker.

use super::*;

fn gates(concurrency: u32) -> Gates {
    let text = format!(
        "[store]\nkind = \"embedded\"\npath = \"x.db\"\n\
         [providers.stripe]\nkind = \"stripe\"\n[providers.stripe.tenants.acme]\nsecrets = [\"whsec_c2VjcmV0LW9uZS1rZXk=\"]\n\
         [handlers.h]\nurl = \"http://127.0.0.1:9/\"\nevents = [\"stripe:*\"]\nconcurrency = {concurrency}\n\
         signing_secret = \"whsec_c2VjcmV0LW9uZS1rZXk=\"\n\
         [delivery]\ncircuit_failures = 2\ncircuit_cooldown = \"40ms\"\n"
    );
    let settings = crate::config::from_toml_str("t.toml", &text).unwrap();
    Gates::new(&settings.handlers, &settings.delivery)
}

#[test]
fn the_in_flight_limit_holds_until_a_pass_drops() {
    let g = gates(2);
    let (a, b) = (g.enter("h").unwrap(), g.enter("h").unwrap());
    assert!(g.enter("h").is_none());
    assert!(g.takes_calls("h"), "full, but a delivery may wait for it");
    assert_eq!(g.room(), Some(2), "room for two to wait");
    assert_eq!(g.lease_only(), None);
    let waits = (g.park("h").unwrap(), g.park("h").unwrap());
    assert_eq!(g.room(), Some(0), "a lease takes no more for it");
    // Hand-offs racing a lease may wait too, up to twice the limit.
    let more = (g.park("h").unwrap(), g.park("h").unwrap());
    assert!(
        g.park("h").is_none(),
        "no more waiting than twice its limit"
    );
    assert_eq!(g.lease_only(), Some(vec![]));
    drop((waits, more));
    drop(a);
    assert_eq!(g.room(), Some(3));
    assert!(g.enter("h").is_some());
    drop(b);
    // Not configured: always room (the attempt dead-letters it).
    assert!(g.enter("gone").is_some());
    assert!(g.park("gone").is_none());
}

/// `g`'s one place taken, and a delivery waiting for it (its wait begun,
/// so it is first in line).
async fn one_in_flight_one_waiting(
    g: &Gates,
) -> (
    Pass,
    std::pin::Pin<Box<impl std::future::Future<Output = Option<Pass>>>>,
) {
    let a = g.enter("h").unwrap();
    let mut waiting = Box::pin(g.park("h").unwrap().enter());
    let pending = tokio::time::timeout(Duration::from_millis(20), &mut waiting).await;
    assert!(pending.is_err(), "entered a full handler");
    (a, waiting)
}

#[tokio::test]
async fn a_freed_place_goes_to_the_delivery_waiting_for_it() {
    let g = gates(1);
    let (a, waiting) = one_in_flight_one_waiting(&g).await;
    drop(a);
    assert!(g.enter("h").is_none(), "took the waiting delivery's place");
    let pass = waiting.await.expect("its place");
    assert_eq!(g.room(), Some(1), "one in flight, none waiting");
    drop(pass);
    assert!(g.enter("h").is_some());
}

#[tokio::test]
async fn a_delivery_waiting_for_a_place_gives_up_when_the_circuit_opens() {
    let g = gates(1);
    let (a, waiting) = one_in_flight_one_waiting(&g).await;
    assert_eq!(a.record(true), Circuit::Closed);
    assert_eq!(a.record(true), Circuit::Open);
    drop(a);
    assert!(
        waiting.await.is_none(),
        "the open circuit's delivery goes back"
    );
    assert!(g.park("h").is_none(), "open: nothing waits for it");
    assert_eq!(g.room(), Some(0));
}

#[test]
fn the_circuit_opens_probes_once_and_closes_on_success() {
    let g = gates(4);
    assert_eq!(g.enter("h").unwrap().record(true), Circuit::Closed);
    assert_eq!(g.enter("h").unwrap().record(true), Circuit::Open);
    assert!(g.enter("h").is_none(), "open: not called");
    assert!(!g.takes_calls("h"), "open: nothing waits for it");
    assert_eq!(g.lease_only(), Some(vec![]));
    std::thread::sleep(Duration::from_millis(50));
    // Half-open: one probe, and no second while it is under way.
    assert!(g.takes_calls("h"), "its probe may wait for a slot");
    let probe = g.enter("h").unwrap();
    assert!(g.enter("h").is_none());
    assert!(!g.takes_calls("h"), "probing");
    assert_eq!(g.lease_only(), Some(vec![]));
    // It fails: open again, for twice as long.
    assert_eq!(probe.record(true), Circuit::Open);
    drop(probe);
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        g.enter("h").is_none(),
        "still open after the first cooldown"
    );
    std::thread::sleep(Duration::from_millis(40));
    let probe = g.enter("h").unwrap();
    assert_eq!(probe.record(false), Circuit::Closed);
    drop(probe);
    assert_eq!(g.lease_only(), None);
    assert!(g.enter("h").is_some());
}
