//! `bench-sink`: the acknowledging handler of `bench/run`. Not part of the
//! service. Every POST is answered `200` at once and counted; `GET /count`
//! answers `{"count": N}` so the load generator can measure the delivery
//! rate end to end.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use actix_web::{web, App, HttpResponse, HttpServer};
use clap::Parser;

#[derive(Parser)]
#[command(
    name = "bench-sink",
    about = "Counting 200-answering handler for bench/run"
)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9000")]
    listen: String,
    /// actix-web worker threads.
    #[arg(long, default_value_t = 1)]
    workers: usize,
}

async fn receive(_body: web::Bytes, count: web::Data<Arc<AtomicU64>>) -> HttpResponse {
    count.fetch_add(1, Ordering::Relaxed);
    HttpResponse::Ok().finish()
}

async fn count(count: web::Data<Arc<AtomicU64>>) -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"count": count.load(Ordering::Relaxed)}))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let counter = web::Data::new(Arc::new(AtomicU64::new(0)));
    HttpServer::new(move || {
        App::new()
            .app_data(counter.clone())
            .route("/count", web::get().to(count))
            .default_service(web::post().to(receive))
    })
    .workers(args.workers.max(1))
    .bind(&args.listen)?
    .run()
    .await
}
