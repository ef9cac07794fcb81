//! The sink: the handler every benchmark scenario delivers to. Each POST
//! path is one handler (`/healthy`, `/slow`, ...). It counts what arrives,
//! per second, and the distinct `webhook-id`s (so at-least-once repeats
//! show), and answers 200 at once, or after holding the request when that
//! path is told to (a handler that times out).
//!
//! - `POST /{name}`: a delivery to handler `name`.
//! - `GET /_sink/stats/{name}`: that handler's counts (zero if none came).
//! - `POST /_sink/reset`: forget everything (between passes).

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::time::Duration;

use actix_web::{web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};

use crate::timeline::{unix_now, Timeline};

/// What one handler received.
#[derive(Default, Serialize, Deserialize)]
pub struct HandlerStats {
    /// Requests that arrived.
    pub received: u64,
    /// Distinct `webhook-id`s among them; `received - distinct -
    /// without_id` are repeats of a delivery that had arrived before.
    pub distinct: u64,
    /// Requests without a `webhook-id` header.
    pub without_id: u64,
    /// Requests answered (a held one is answered when its hold ends, if
    /// the caller is still waiting).
    pub answered: u64,
    /// Arrivals per second.
    pub received_per_second: Timeline,
    /// First arrivals of a `webhook-id` per second: deliveries done, with
    /// repeats left out.
    pub first_seen_per_second: Timeline,
}

#[derive(Default)]
struct Handler {
    stats: HandlerStats,
    /// Hashes of the `webhook-id`s seen, not the IDs themselves: 8 bytes
    /// each keeps millions of deliveries in a few tens of MiB, and at 64
    /// bits a collision among a few million IDs is a one-in-a-million
    /// event that would undercount `distinct` by one.
    seen: HashSet<u64>,
}

/// The sink's state, shared by its workers.
pub struct Sink {
    handlers: Mutex<HashMap<String, Handler>>,
    /// How long to hold requests to each handler before answering.
    holds: HashMap<String, Duration>,
    /// One fixed hasher, so one ID always hashes the same.
    hasher: std::collections::hash_map::RandomState,
}

impl Sink {
    pub fn new(holds: HashMap<String, Duration>) -> Sink {
        Sink {
            handlers: Mutex::new(HashMap::new()),
            holds,
            hasher: Default::default(),
        }
    }

    fn arrive(&self, name: &str, webhook_id: Option<&[u8]>) {
        let second = unix_now() as u64;
        let id_hash = webhook_id.map(|id| self.hasher.hash_one(id));
        let mut all = self.handlers.lock().expect("sink lock");
        let h = all.entry(name.to_owned()).or_default();
        h.stats.received += 1;
        h.stats.received_per_second.add(second, 1);
        match id_hash {
            Some(x) if h.seen.insert(x) => {
                h.stats.distinct += 1;
                h.stats.first_seen_per_second.add(second, 1);
            }
            Some(_) => {}
            None => h.stats.without_id += 1,
        }
    }

    fn answered(&self, name: &str) {
        let mut all = self.handlers.lock().expect("sink lock");
        all.entry(name.to_owned()).or_default().stats.answered += 1;
    }

    fn stats_json(&self, name: &str) -> serde_json::Value {
        let all = self.handlers.lock().expect("sink lock");
        match all.get(name) {
            Some(h) => serde_json::to_value(&h.stats),
            None => serde_json::to_value(HandlerStats::default()),
        }
        .expect("stats serialise")
    }
}

async fn receive(req: HttpRequest, _body: web::Bytes, sink: web::Data<Sink>) -> HttpResponse {
    let name = req.path().trim_start_matches('/');
    let id = req.headers().get("webhook-id").map(|v| v.as_bytes());
    sink.arrive(name, id);
    if let Some(hold) = sink.holds.get(name) {
        tokio::time::sleep(*hold).await;
    }
    sink.answered(name);
    HttpResponse::Ok().finish()
}

async fn stats(name: web::Path<String>, sink: web::Data<Sink>) -> HttpResponse {
    HttpResponse::Ok().json(sink.stats_json(&name))
}

async fn reset(sink: web::Data<Sink>) -> HttpResponse {
    sink.handlers.lock().expect("sink lock").clear();
    HttpResponse::NoContent().finish()
}

/// The sink's routes, for an `App`.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/_sink/stats/{name}", web::get().to(stats))
        .route("/_sink/reset", web::post().to(reset))
        .default_service(web::post().to(receive));
}

/// Parse `--hold NAME=DURATION` (e.g. `slow=3s`).
pub fn parse_hold(s: &str) -> Result<(String, Duration), String> {
    let (name, d) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=DURATION, got {s:?}"))?;
    let d = humantime::parse_duration(d).map_err(|e| format!("{d:?}: {e}"))?;
    Ok((name.trim_start_matches('/').to_owned(), d))
}
