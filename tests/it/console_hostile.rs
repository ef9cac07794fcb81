//! Issue 24, the console, on every backend:
//!
//! - event IDs a path cannot carry (`.`, `..`) and IDs with surrounding
//!   spaces: every link to them (the event lists, the find form, the
//!   event page's own forms) leads to their page, and the list's filter
//!   finds them as written;
//! - wrong admin tokens are counted per client: past ten a minute, the
//!   console's sign-in and the admin API answer that client 429 +
//!   `Retry-After` without comparing its token, while another client
//!   signs in.

use crate::common;

use common::console::{console_app, set_cookie, Operator, TOKEN};
use common::sink::Sink;
use common::{Backend, TestApp, Webhook};

const ODD_IDS: &[&str] = &[".", "..", " spaced ", "a/b"];

/// Every `href` and form `action` of `page`, unescaped, that leads to an
/// event's page or forms.
fn event_links(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "action=\""] {
        for part in page.split(attr).skip(1) {
            let link = part.split('"').next().unwrap().replace("&amp;", "&");
            let event = ["/console/events/", "/console/event?", "/console/event/"];
            if event.iter().any(|p| link.starts_with(p)) {
                out.push(link);
            }
        }
    }
    out
}

/// The page's `<h1>`: where the event page names its event.
fn heading(page: &str) -> &str {
    page.split("<h1>")
        .nth(1)
        .and_then(|h| h.split("</h1>").next())
        .unwrap_or("")
}

async fn odd_event_ids_have_working_links(backend: Backend) {
    let app = console_app(backend, &Sink::start(vec![]), "").await;
    for id in ODD_IDS {
        let w = Webhook::new("stripe", "acme", id, "charge.succeeded", id);
        let (status, body) = app.send_json(&w).await;
        assert_eq!(
            (status, body["event_id"].as_str()),
            (200, Some(*id)),
            "{body}"
        );
    }
    let op = Operator::sign_in(&app).await;
    let (_, list) = op.get("/console/events").await;
    let links = event_links(&list);
    assert_eq!(links.len(), ODD_IDS.len(), "{links:?}");
    for link in &links {
        let (status, page) = op.get(link).await;
        assert_eq!(status, 200, "{link}: {page}");
        let shown = heading(&page);
        assert!(
            ODD_IDS
                .iter()
                .any(|id| shown == format!("Event <code>{id}</code>")),
            "{link} shows {shown:?}"
        );
        // The page's own links: its body download and its redelivery form.
        let own = event_links(&page);
        let body = own
            .iter()
            .find(|l| l.contains("body"))
            .expect("a download link");
        assert_eq!(op.get_raw(body).await.status(), 200, "{body}");
        let redeliver = own
            .iter()
            .find(|l| l.contains("redeliver"))
            .expect("a form");
        let res = op.post(redeliver, &[]).await;
        assert_eq!(res.status(), 303, "{redeliver}");
        let back = res.headers()["location"].to_str().unwrap().to_owned();
        let (status, page) = op.get(&back).await;
        assert_eq!(status, 200, "{back}");
        assert!(page.contains("deliveries requeued"), "{back}");
    }

    // The find form takes the ID as typed, spaces included.
    for id in ODD_IDS {
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("provider", " stripe ")
            .append_pair("tenant", "acme")
            .append_pair("event_id", id)
            .finish();
        let res = op.get_raw(&format!("/console/find?{query}")).await;
        assert_eq!(res.status(), 303, "{id:?}");
        let location = res.headers()["location"].to_str().unwrap().to_owned();
        let (status, page) = op.get(&location).await;
        assert_eq!(status, 200, "{id:?} -> {location}");
        assert_eq!(heading(&page), format!("Event <code>{id}</code>"));
    }
    // And so does the list's filter.
    let (status, list) = op.get("/console/events?event_id=%20spaced%20").await;
    assert_eq!(status, 200);
    assert_eq!(event_links(&list).len(), 1, "only ' spaced ' itself");
}

/// A client bound to another loopback address.
fn client_from(ip: [u8; 4]) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(ip))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn sign_in_from(app: &TestApp, client: &reqwest::Client, token: &str) -> reqwest::Response {
    client
        .post(format!("{}/console/sign-in", app.address))
        .header("origin", &app.address)
        .form(&[("token", token)])
        .send()
        .await
        .unwrap()
}

async fn admin_from(app: &TestApp, client: &reqwest::Client, token: &str) -> u16 {
    client
        .get(format!("{}/admin/dead-letters", app.address))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn wrong_tokens_are_throttled_per_client(backend: Backend) {
    let app = console_app(backend, &Sink::start(vec![]), "").await;
    let guesser = client_from([127, 0, 0, 2]);
    for i in 0..10 {
        let res = sign_in_from(&app, &guesser, &format!("wrong-guess-{i:04}-padding")).await;
        assert_eq!(res.status(), 401, "guess {i}");
    }
    // Held: even the right token is not compared.
    let res = sign_in_from(&app, &guesser, TOKEN).await;
    assert_eq!(res.status(), 429);
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    assert!(set_cookie(&res).is_none(), "no session");
    assert!(res.text().await.unwrap().contains("Too many wrong tokens"));
    assert_eq!(admin_from(&app, &guesser, TOKEN).await, 429, "one budget");

    // Another client is not held.
    let operator = client_from([127, 0, 0, 3]);
    assert_eq!(sign_in_from(&app, &operator, TOKEN).await.status(), 303);
    assert_eq!(admin_from(&app, &operator, TOKEN).await, 200);

    // Wrong bearer tokens on the admin API count the same way.
    let api_guesser = client_from([127, 0, 0, 4]);
    for _ in 0..10 {
        assert_eq!(
            admin_from(&app, &api_guesser, "wrong-token-0123456789").await,
            401
        );
    }
    assert_eq!(admin_from(&app, &api_guesser, TOKEN).await, 429);
    let res = sign_in_from(&app, &api_guesser, TOKEN).await;
    assert_eq!(res.status(), 429);
}

backend_tests!(
    odd_event_ids_have_working_links,
    wrong_tokens_are_throttled_per_client
);
