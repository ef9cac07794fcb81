//! Every POST route of the console refuses a forged form and changes
//! nothing: without the session's CSRF token, with a wrong one, and with
//! the right one from another origin. Sign-in has no session yet, so no
//! token: a sign-in from another origin is refused and opens no session.

use std::time::{Duration, Instant};

use crate::common::console::{console_app, set_cookie, Operator, TOKEN};
use crate::common::sink::{Reply, Sink};
use crate::common::{Backend, TestApp, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState, DeliveryView};

const EVIL: &str = "https://evil.example";

async fn delivery(app: &TestApp, event_id: &str) -> DeliveryView {
    let rows = app
        .store
        .records()
        .list(&DeliveryFilter {
            event_id: Some(hookline::lookup::event_id(event_id).unwrap()),
            ..Default::default()
        })
        .await
        .unwrap();
    rows.into_iter().next().expect("a delivery")
}

async fn wait_state(app: &TestApp, event_id: &str, state: DeliveryState) -> DeliveryView {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let d = delivery(app, event_id).await;
        if d.state == state {
            return d;
        }
        assert!(Instant::now() < deadline, "{event_id} never {state:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The three forgeries of a form with `fields`: no token, a wrong one,
/// the right one from another site. Each is refused (403).
async fn forged(op: &Operator<'_>, path: &str, fields: &[(&str, &str)]) {
    fn with<'a>(csrf: Option<&'a str>, fields: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut form: Vec<(&str, &str)> = csrf.map(|c| ("csrf", c)).into_iter().collect();
        form.extend_from_slice(fields);
        form
    }
    let wrong = format!("{}x", &op.csrf[..op.csrf.len() - 1]);
    for (form, origin, what) in [
        (with(None, fields), op.app.address.as_str(), "no token"),
        (
            with(Some(&wrong), fields),
            op.app.address.as_str(),
            "a wrong token",
        ),
        (
            with(Some(""), fields),
            op.app.address.as_str(),
            "an empty token",
        ),
        (with(Some(&op.csrf), fields), EVIL, "another origin"),
    ] {
        let res = op.post_as(path, &form, origin).await;
        assert_eq!(res.status(), 403, "{path} with {what}");
        assert!(
            set_cookie(&res).is_none(),
            "{path} with {what} set a cookie"
        );
    }
}

async fn every_console_post_refuses_a_forged_form_and_changes_nothing(backend: Backend) {
    // evt_ok is delivered; evt_dead is refused (400: a dead letter at once).
    let sink = Sink::start(vec![Reply::Status(200), Reply::Status(400)]);
    let app = console_app(backend, &sink, "").await;
    let ok = Webhook::new("stripe", "acme", "evt_ok", "charge.succeeded", "x");
    assert_eq!(app.send_json(&ok).await.0, 200);
    let delivered = wait_state(&app, "evt_ok", DeliveryState::Delivered).await;
    let dead_event = Webhook::new("stripe", "acme", "evt_dead", "charge.failed", "y");
    assert_eq!(app.send_json(&dead_event).await.0, 200);
    let dead = wait_state(&app, "evt_dead", DeliveryState::Dead).await;
    let op = Operator::sign_in(&app).await;
    let dead_id = dead.id.to_string();

    // 1. Redeliver an event.
    forged(
        &op,
        "/console/events/stripe/acme/evt_ok/redeliver",
        &[("handler", "billing")],
    )
    .await;
    let after = delivery(&app, "evt_ok").await;
    assert_eq!(
        (after.state, after.attempts, &after.updated_at),
        (delivered.state, delivered.attempts, &delivered.updated_at),
        "the delivery was not queued again"
    );
    // 2. Replay one dead letter, or a selection.
    forged(&op, "/console/dead-letters/replay", &[("one", &dead_id)]).await;
    forged(&op, "/console/dead-letters/replay", &[("id", &dead_id)]).await;
    // 3. Replay every matching dead letter.
    forged(
        &op,
        "/console/dead-letters/replay-all",
        &[("provider", "stripe")],
    )
    .await;
    let after = delivery(&app, "evt_dead").await;
    assert_eq!(
        (after.state, &after.updated_at),
        (DeliveryState::Dead, &dead.updated_at),
        "the dead letter was not replayed"
    );
    assert_eq!(
        sink.received().len(),
        2,
        "the handler was called for nothing else"
    );
    // 4. Sign out.
    forged(&op, "/console/sign-out", &[]).await;
    assert_eq!(op.get("/console").await.0, 200, "still signed in");
    // 5. Sign in, from another origin: refused, no session.
    let res = app
        .client
        .post(format!("{}/console/sign-in", app.address))
        .header("origin", EVIL)
        .form(&[("token", TOKEN)])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    assert!(
        set_cookie(&res).is_none(),
        "a session opened from another site"
    );

    // The same forms, genuine, do what they say: the refusals above were
    // the token's and the origin's, not the forms'.
    assert_eq!(
        op.post("/console/dead-letters/replay", &[("one", &dead_id)])
            .await
            .status(),
        303
    );
    wait_state(&app, "evt_dead", DeliveryState::Delivered).await;
    assert_eq!(op.post("/console/sign-out", &[]).await.status(), 303);
    assert_eq!(op.get_raw("/console").await.status(), 303, "signed out");
}

backend_tests!(every_console_post_refuses_a_forged_form_and_changes_nothing);
