//! Console sessions live in the shared store (issue 14): behind a load
//! balancer, a session opened on one node is known to every other node
//! with the same store and `admin.token`, and a sign-out on any node ends
//! it everywhere. On every backend.

use crate::common;

use common::console::{console_app, csrf_of, Operator};
use common::sink::Sink;
use common::Backend;
use hookline::app::Application;
use hookline::config;
use tokio_util::sync::CancellationToken;

async fn a_session_opened_on_one_node_is_known_to_another_and_ends_on_both(backend: Backend) {
    let sink = Sink::start(vec![]);
    let a = console_app(backend, &sink, "").await;
    // A second node: the same configuration and store, its own port.
    let settings = config::from_toml_str("test.toml", &a.config_text).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let b_node = Application::with_listener(settings, a.store.clone(), listener);
    let b = format!("http://127.0.0.1:{}", b_node.port().unwrap());
    let stop_b = CancellationToken::new();
    tokio::spawn(b_node.run(stop_b.clone()));
    let _stop_b = stop_b.drop_guard();

    let op = Operator::sign_in(&a).await;
    let get_b = |path: &str| {
        a.client
            .get(format!("{b}{path}"))
            .header("cookie", &op.cookie)
            .send()
    };
    let res = get_b("/console/events").await.unwrap();
    assert_eq!(res.status(), 200, "node B knows node A's session");
    let page = res.text().await.unwrap();
    assert_eq!(csrf_of(&page).as_deref(), Some(op.csrf.as_str()));

    let out = a
        .client
        .post(format!("{b}/console/sign-out"))
        .header("cookie", &op.cookie)
        .header("origin", &b)
        .form(&[("csrf", op.csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 303);
    let (status, _) = op.get("/console/events").await;
    assert_eq!(status, 303, "signed out on B, refused on A");
    let res = get_b("/console").await.unwrap();
    assert_eq!(res.status(), 303);
}

backend_tests!(a_session_opened_on_one_node_is_known_to_another_and_ends_on_both);
