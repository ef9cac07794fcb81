//! The web console over HTTP (issue 14): off without `admin.token`; a
//! sign-in that hands out a strict session cookie and nothing else; CSRF
//! and cross-origin refusal on every POST; a strict CSP; the admin token
//! never written into a page; and what an operator does with it (find an
//! event, see its attempts, redeliver, replay dead letters with a counted
//! confirmation), on every backend. The same, in a real browser:
//! `tests/it/console_browser.rs`.

use crate::common;

use std::time::Duration;

use common::console::{console_app, console_app_critical, set_cookie, Operator, SIGNING, TOKEN};
use common::sink::{Reply, Sink};
use common::{spawn_app, Backend, TestApp, Webhook};
use hookline::store::delivery::{DeliveryFilter, DeliveryState};

/// Every page an operator can open, for the checks that hold on all.
const PAGES: &[&str] = &[
    "/console",
    "/console/live",
    "/console/events",
    "/console/events/stripe/acme/evt_c1",
    "/console/dead-letters",
    "/console/dead-letters/replay-all",
];

async fn wait_for_state(app: &TestApp, event_id: &str, state: DeliveryState) {
    for _ in 0..250 {
        let rows = app
            .store
            .records()
            .list(&DeliveryFilter {
                event_id: Some(hookline::lookup::event_id(event_id).unwrap()),
                ..Default::default()
            })
            .await
            .unwrap();
        if rows.iter().any(|d| d.state == state) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{event_id} never reached {state:?}");
}

async fn the_console_does_not_exist_without_an_admin_token(backend: Backend) {
    let app = spawn_app(backend).await;
    for path in ["/console", "/console/sign-in", "/console/assets/console.js"] {
        let res = app
            .client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{path}");
    }
    let res = Operator::post_sign_in(&app, "anything-at-all-long-enough").await;
    assert_eq!(res.status(), 404);
}

async fn sign_in_hands_out_a_strict_session_cookie_and_sign_out_ends_it(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = console_app(backend, &sink, "").await;

    // Signed out: every page sends to the sign-in form.
    let res = app
        .client
        .get(format!("{}/console/events", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "/console/sign-in");

    let wrong = Operator::post_sign_in(&app, "not-the-admin-token-at-all").await;
    assert_eq!(wrong.status(), 401);
    assert!(set_cookie(&wrong).is_none(), "no session for a wrong token");

    let res = Operator::post_sign_in(&app, TOKEN).await;
    assert_eq!(res.status(), 303);
    let (_, header) = set_cookie(&res).unwrap();
    for flag in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/console",
        "Max-Age=28800",
    ] {
        assert!(header.contains(flag), "{flag} missing: {header}");
    }
    assert!(!header.contains("Secure"), "plain HTTP: {header}");
    assert!(!header.contains(TOKEN));

    let op = Operator::sign_in(&app).await;
    // A POST without the session's CSRF token, or from another origin, is
    // refused and changes nothing.
    let res = op
        .post_as("/console/sign-out", &[("csrf", "forged")], &app.address)
        .await;
    assert_eq!(res.status(), 403);
    let res = op
        .post_as(
            "/console/sign-out",
            &[("csrf", &op.csrf)],
            "https://evil.example",
        )
        .await;
    assert_eq!(res.status(), 403);
    assert_eq!(op.get("/console").await.0, 200, "still signed in");

    let res = op.post("/console/sign-out", &[]).await;
    assert_eq!(res.status(), 303);
    assert!(set_cookie(&res).unwrap().1.contains("Max-Age=0"));
    let res = op.get_raw("/console").await;
    assert_eq!(res.status(), 303, "the old cookie is refused");
}

async fn pages_carry_a_strict_policy_and_never_the_token(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = console_app(backend, &sink, "").await;
    app.send_json(&Webhook::new(
        "stripe",
        "acme",
        "evt_c1",
        "charge.succeeded",
        "a",
    ))
    .await;
    let op = Operator::sign_in(&app).await;
    for path in PAGES.iter().chain(&["/console/sign-in"]) {
        let res = op.get_raw(path).await;
        let csp = res.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            csp.contains("script-src 'self'") && !csp.contains("unsafe"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        let status = res.status().as_u16();
        let page = res.text().await.unwrap();
        assert!(matches!(status, 200 | 303), "{path}: {status} {page}");
        assert!(!page.contains(TOKEN), "{path} shows the token");
        assert!(page.len() < 100 * 1024, "{path} is {} bytes", page.len());
        // Scripts only by src: no inline script for the CSP to allow.
        assert!(!page.contains("<script>"), "{path}");
        assert!(!page.contains("onclick"), "{path}");
    }
}

async fn an_operator_finds_an_event_sees_its_attempts_and_replays_dead_letters(backend: Backend) {
    // The handler refuses (400: no retry) the first two deliveries, then
    // accepts.
    let sink = Sink::start(vec![Reply::Status(400), Reply::Status(400)]);
    let app = console_app(backend, &sink, "").await;
    for id in ["evt_c1", "evt_c2"] {
        let w = Webhook::new("stripe", "acme", id, "charge.failed", id);
        assert_eq!(app.send_json(&w).await.0, 200);
        wait_for_state(&app, id, DeliveryState::Dead).await;
    }
    let op = Operator::sign_in(&app).await;

    // Find by ID: to the event's page, its attempt and status on it.
    let res = op
        .get_raw("/console/find?provider=stripe&tenant=acme&event_id=evt_c1")
        .await;
    assert_eq!(res.status(), 303);
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(location, "/console/events/stripe/acme/evt_c1");
    let (status, page) = op.get(&location).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("charge.failed"), "{page}");
    assert!(
        page.contains("<td>400</td>"),
        "the attempt's status: {page}"
    );
    assert!(page.contains("answer 400"), "the handler's answer: {page}");
    assert!(page.contains("&quot;charge.failed&quot;") || page.contains("\"charge.failed\""));

    // The event list, newest first.
    let (_, list) = op.get("/console/events?tenant=acme").await;
    let (c1, c2) = (list.find("evt_c1").unwrap(), list.find("evt_c2").unwrap());
    assert!(c2 < c1, "newest first");
    let (_, none) = op.get("/console/events?tenant=globex").await;
    assert!(!none.contains("evt_c1"));
    let (status, _) = op.get("/console/events?state=lost").await;
    assert_eq!(status, 400, "a bad filter is the operator's error");

    // The overview's backlog counts them (from the store, per handler).
    let (_, live) = op.get("/console/live").await;
    assert!(
        live.contains("backlog <span class=\"backlog\">0</span> · dead 2"),
        "{live}"
    );

    // Replay everything matching: the confirmation counts them first.
    let (_, confirm) = op
        .get("/console/dead-letters/replay-all?provider=stripe")
        .await;
    assert!(
        confirm.contains("<strong id=\"count\">2</strong>"),
        "{confirm}"
    );
    let res = op
        .post(
            "/console/dead-letters/replay-all",
            &[("provider", "stripe")],
        )
        .await;
    assert_eq!(res.status(), 303);
    assert!(res.headers()["location"]
        .to_str()
        .unwrap()
        .ends_with("replayed=2"));
    for id in ["evt_c1", "evt_c2"] {
        wait_for_state(&app, id, DeliveryState::Delivered).await;
    }
    let (_, dead) = op.get("/console/dead-letters").await;
    assert!(!dead.contains("evt_c1"), "nothing dead any more");

    // Redeliver one event to its handler: the handler gets it again.
    let before = sink.received().len();
    let res = op
        .post(
            "/console/events/stripe/acme/evt_c1/redeliver",
            &[("handler", "billing")],
        )
        .await;
    assert_eq!(res.status(), 303);
    assert!(res.headers()["location"]
        .to_str()
        .unwrap()
        .ends_with("?requeued=1"));
    sink.wait_for(before + 1, Duration::from_secs(10)).await;

    // A redelivery without the CSRF field is refused.
    let res = op
        .post_as(
            "/console/events/stripe/acme/evt_c1/redeliver",
            &[],
            &app.address,
        )
        .await;
    assert_eq!(res.status(), 403);

    // The overview counts the requests and the attempts of the last hour.
    let (_, live) = op.get("/console/live").await;
    assert!(live.contains("stripe / acme"), "{live}");
    assert!(live.contains("2 accepted"), "{live}");
    assert!(live.contains("billing attempts"), "{live}");
}

/// Send `event_id` with a credential header of `name`, open its page:
/// the signature is shown, the credential is not.
async fn headers_shown_with_a_credential_redacted(app: &TestApp, event_id: &str, name: &str) {
    let mut w = Webhook::new("stripe", "acme", event_id, "charge.succeeded", "a");
    w.headers
        .push((name.into(), "do-not-show-this-credential".into()));
    assert_eq!(app.send_json(&w).await.0, 200);
    let op = Operator::sign_in(app).await;
    let (status, page) = op
        .get(&format!("/console/events/stripe/acme/{event_id}"))
        .await;
    assert_eq!(status, 200, "{page}");
    let (_, signature) = w
        .headers
        .iter()
        .find(|(k, _)| k == "Stripe-Signature")
        .unwrap();
    assert!(page.contains(signature), "the signature header: {page}");
    assert!(page.contains("[redacted]"), "{page}");
    assert!(
        !page.contains("do-not-show-this-credential"),
        "shown: {page}"
    );
}

async fn with_captures_on_the_event_page_shows_its_headers_redacted(backend: Backend) {
    let sink = Sink::start(vec![]);
    let captures = tempfile::tempdir().unwrap();
    let extra = format!("[capture]\ndir = \"{}\"\n", captures.path().display());
    let app = console_app(backend, &sink, &extra).await;
    headers_shown_with_a_credential_redacted(&app, "evt_h1", "Authorization").await;
}

async fn a_non_critical_event_shows_the_body_its_delivery_carries(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = console_app_critical(backend, &sink, "", "[]").await;
    let w = Webhook::new("stripe", "acme", "evt_nc", "customer.created", "plain-salt");
    assert_eq!(app.send_json(&w).await.0, 200);
    let op = Operator::sign_in(&app).await;
    let (status, page) = op.get("/console/events/stripe/acme/evt_nc").await;
    assert_eq!(status, 200, "{page}");
    assert!(
        !page.contains("processed_event row"),
        "not critical: {page}"
    );
    assert!(
        page.contains("plain-salt"),
        "the body, pretty-printed: {page}"
    );
    let res = op.get_raw("/console/events/stripe/acme/evt_nc/body").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/octet-stream");
    assert_eq!(res.bytes().await.unwrap(), w.body, "the bytes as received");
}

async fn accepted_and_conflicting_events_are_listed_apart(backend: Backend) {
    let sink = Sink::start(vec![]);
    let app = console_app(backend, &sink, "").await;
    let original = Webhook::new("stripe", "acme", "evt_l1", "charge.succeeded", "a");
    let forged = Webhook::new("stripe", "acme", "evt_l1", "charge.succeeded", "b");
    assert_eq!(app.send_json(&original).await.0, 200);
    assert_eq!(app.send_json(&forged).await.0, 422);
    let op = Operator::sign_in(&app).await;
    let (status, accepted) = op.get("/console/events?list=accepted&tenant=acme").await;
    assert_eq!(status, 200, "{accepted}");
    assert!(accepted.contains("evt_l1"), "{accepted}");
    let (_, conflicts) = op.get("/console/events?list=conflicts").await;
    assert!(conflicts.contains("evt_l1"), "{conflicts}");
    let (_, other) = op.get("/console/events?list=conflicts&tenant=globex").await;
    assert!(!other.contains("evt_l1"), "{other}");
    // Filters that do not apply are refused, not ignored.
    assert_eq!(
        op.get("/console/events?list=accepted&state=dead").await.0,
        400
    );
    assert_eq!(op.get("/console/events?list=everything").await.0, 400);
}

async fn the_headers_handlers_forward_are_shown_redacted_without_captures(backend: Backend) {
    let sink = Sink::start(vec![]);
    let extra = format!(
        "[handlers.audit]\nurl = \"{}\"\nevents = [\"stripe:*\"]\nsigning_secret = \"{SIGNING}\"\ntimeout = \"2s\"\n\
         forward_headers = [\"Stripe-Signature\", \"X-Api-Key\"]\n",
        sink.url
    );
    let app = console_app(backend, &sink, &extra).await;
    headers_shown_with_a_credential_redacted(&app, "evt_f1", "X-Api-Key").await;
}

async fn behind_https_the_cookie_is_secure(backend: Backend) {
    let mut opts = common::AppOptions::new(backend);
    opts.server_extra = "public_url = \"https://hooks.example.com\"".into();
    opts.extra = format!("[admin]\ntoken = \"{TOKEN}\"\n");
    let app = common::spawn_app_with(opts).await;
    let res = Operator::post_sign_in(&app, TOKEN).await;
    assert_eq!(res.status(), 303);
    assert!(set_cookie(&res).unwrap().1.contains("; Secure"));
}

backend_tests!(
    the_console_does_not_exist_without_an_admin_token,
    sign_in_hands_out_a_strict_session_cookie_and_sign_out_ends_it,
    pages_carry_a_strict_policy_and_never_the_token,
    an_operator_finds_an_event_sees_its_attempts_and_replays_dead_letters,
    with_captures_on_the_event_page_shows_its_headers_redacted,
    a_non_critical_event_shows_the_body_its_delivery_carries,
    accepted_and_conflicting_events_are_listed_apart,
    the_headers_handlers_forward_are_shown_redacted_without_captures,
    behind_https_the_cookie_is_secure,
);
