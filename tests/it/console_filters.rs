//! Every filter field the console offers works on the list it is offered
//! on (the Requests tab once offered a handler field that answered 400),
//! and the time fields take UTC as the console shows times, not a
//! browser's local picker.

use std::time::{Duration, Instant};

use crate::common::console::{console_app, Operator};
use crate::common::sink::{Reply, Sink};
use crate::common::{Backend, Webhook};

/// The lists: the page, and whether `evt_f1` is on it.
const LISTS: &[(&str, bool)] = &[
    ("/console/events?list=deliveries", true),
    ("/console/events?list=requests", true),
    ("/console/events?list=accepted", true),
    ("/console/events?list=conflicts", false),
    ("/console/dead-letters?", true),
];

/// The filter form of a page.
fn filter_form(page: &str) -> &str {
    let start = page.find("aria-label=\"Filters\"").expect("a filter form");
    let end = page[start..].find("</form>").expect("its end") + start;
    &page[start..end]
}

/// The `name`s of a form's inputs and selects, but the hidden `list`.
fn fields(form: &str) -> Vec<String> {
    form.split("name=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|n| *n != "list")
        .map(str::to_owned)
        .collect()
}

fn value(name: &str) -> &'static str {
    match name {
        "provider" => "stripe",
        "tenant" => "acme",
        "handler" => "billing",
        "event_id" => "evt_f1",
        "event_type" => "charge.failed",
        "since" => "2020-01-01T00:00",
        "until" => "2100-01-01 00:00",
        "state" => "dead",
        "outcome" => "accepted",
        other => panic!("a field the test does not know: {other}"),
    }
}

async fn every_filter_the_console_offers_answers_on_its_list(backend: Backend) {
    // The handler refuses (400: no retry): a dead letter.
    let sink = Sink::start(vec![Reply::Status(400)]);
    let app = console_app(backend, &sink, "").await;
    let w = Webhook::new("stripe", "acme", "evt_f1", "charge.failed", "x");
    assert_eq!(app.send_json(&w).await.0, 200);
    let op = Operator::sign_in(&app).await;
    // The dead letter and the verdict log's row are written a moment later.
    let deadline = Instant::now() + Duration::from_secs(20);
    for (list, _) in [LISTS[1], LISTS[4]] {
        while !op.get(list).await.1.contains("evt_f1") {
            assert!(Instant::now() < deadline, "evt_f1 never listed on {list}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    for (list, listed) in LISTS {
        let (status, page) = op.get(list).await;
        assert_eq!(status, 200, "{list}: {page}");
        let form = filter_form(&page);
        assert!(
            !form.contains("datetime-local"),
            "{list}: a local-time picker"
        );
        let names = fields(form);
        assert!(names.contains(&"provider".to_owned()), "{list}: {names:?}");
        for name in &names {
            let url = format!("{list}&{name}={}", value(name).replace(' ', "%20"));
            let (status, page) = op.get(&url).await;
            assert_eq!(status, 200, "{url}: {page}");
            if *listed && !(list.contains("requests") && name == "outcome") {
                assert!(page.contains("evt_f1"), "{url} lost the row");
            }
        }
    }

    // The Requests tab offers no handler (the verdict log has none), and
    // says so if asked anyway.
    let (_, requests) = op.get("/console/events?list=requests").await;
    assert!(
        !fields(filter_form(&requests)).contains(&"handler".to_owned()),
        "{requests}"
    );
    let (status, page) = op
        .get("/console/events?list=requests&handler=billing")
        .await;
    assert_eq!(status, 400);
    assert!(
        page.contains("handler: is not a filter of this list"),
        "{page}"
    );

    // A time copied from a page, as the console shows it (UTC), filters.
    let (_, deliveries) = op.get("/console/events?list=deliveries").await;
    let shown = deliveries
        .split("<time>")
        .nth(1)
        .and_then(|t| t.split("</time>").next())
        .expect("a time on the page")
        .to_owned();
    assert!(shown.ends_with('Z'), "times are shown in UTC: {shown}");
    let (status, page) = op
        .get(&format!("/console/events?list=deliveries&since={shown}"))
        .await;
    assert_eq!(status, 200, "{shown}: {page}");
    assert!(page.contains("evt_f1"), "since the time it was shown with");
}

backend_tests!(every_filter_the_console_offers_answers_on_its_list);
