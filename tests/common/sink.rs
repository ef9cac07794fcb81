//! A real local HTTP server standing in for a downstream handler: it records
//! every request and answers as scripted (then 200 once the script runs out).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    Status(u16),
    /// Status with a `Retry-After: secs` header.
    RetryAfter(u16, u64),
    /// Wait, then answer.
    Slow(Duration, u16),
    /// Status with this body (a certificate the sink serves).
    Body(u16, String),
    /// 200 with the body given for the request's path, else 404: a key
    /// endpoint serving one key per path (Circle's, by key ID).
    Routes(Vec<(String, String)>),
}

#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    /// The path and query.
    pub uri: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    script: Mutex<VecDeque<Reply>>,
    received: Mutex<Vec<Received>>,
    /// Answer when the script is empty.
    fallback: Mutex<Option<Reply>>,
}

#[derive(Clone)]
pub struct Sink {
    pub url: String,
    state: Arc<State>,
}

async fn handle(req: HttpRequest, body: web::Bytes, state: web::Data<Arc<State>>) -> HttpResponse {
    state.received.lock().unwrap().push(Received {
        method: req.method().to_string(),
        // Over HTTP/2 the URI is absolute: keep what a server routes on.
        uri: req
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_owned(),
        headers: req
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body: body.to_vec(),
        at: Instant::now(),
    });
    let reply = state
        .script
        .lock()
        .unwrap()
        .pop_front()
        .or_else(|| state.fallback.lock().unwrap().clone())
        .unwrap_or(Reply::Status(200));
    let status = |s: u16| actix_web::http::StatusCode::from_u16(s).unwrap();
    match reply {
        Reply::Status(s) => HttpResponse::build(status(s)).body(format!("answer {s}")),
        Reply::RetryAfter(s, secs) => HttpResponse::build(status(s))
            .insert_header(("Retry-After", secs.to_string()))
            .finish(),
        Reply::Body(s, body) => HttpResponse::build(status(s)).body(body),
        Reply::Routes(routes) => match routes.iter().find(|(p, _)| p == req.uri().path()) {
            Some((_, body)) => HttpResponse::Ok().body(body.clone()),
            None => HttpResponse::NotFound().body("{\"code\":404}"),
        },
        Reply::Slow(d, s) => {
            tokio::time::sleep(d).await;
            HttpResponse::build(status(s)).finish()
        }
    }
}

impl Sink {
    /// Start on a random port with a script of answers.
    pub fn start(script: Vec<Reply>) -> Sink {
        Sink::serve(script, None)
    }

    /// The same over HTTPS with `tls` (at `https://localhost:PORT/hook`).
    pub fn start_tls(tls: rustls::ServerConfig) -> Sink {
        Sink::serve(Vec::new(), Some(tls))
    }

    fn serve(script: Vec<Reply>, tls: Option<rustls::ServerConfig>) -> Sink {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(State {
            script: Mutex::new(script.into()),
            ..Default::default()
        });
        let data = web::Data::new(state.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .default_service(web::to(handle))
        })
        .workers(1);
        let (server, url) = match tls {
            Some(tls) => (
                server.listen_rustls_0_23(listener, tls).unwrap(),
                format!("https://localhost:{port}/hook"),
            ),
            None => (
                server.listen(listener).unwrap(),
                format!("http://127.0.0.1:{port}/hook"),
            ),
        };
        tokio::spawn(server.run());
        Sink { url, state }
    }

    /// Answer this whenever the script is empty.
    pub fn always(&self, reply: Reply) {
        *self.state.fallback.lock().unwrap() = Some(reply);
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.received.lock().unwrap().clone()
    }

    /// Wait until at least `n` requests arrived, or panic after `within`.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Received> {
        let got = self.received_within(n, within).await;
        assert!(got.len() >= n, "expected {n} requests, got {}", got.len());
        got
    }

    /// What arrived once at least `n` requests have, or once `within` has
    /// passed, whichever comes first.
    pub async fn received_within(&self, n: usize, within: Duration) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let got = self.received();
            if got.len() >= n || Instant::now() >= deadline {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
