//! `bench-bare`: the baseline of `bench/run`. Not part of the service. A bare
//! actix-web endpoint with hookline's server defaults (one worker per core,
//! keep-alive) that reads the whole body and answers `200` with a small JSON
//! body shaped like hookline's: the most any webhook receiver on this
//! framework and machine can do.

use actix_web::{web, App, HttpResponse, HttpServer};
use clap::Parser;

#[derive(Parser)]
#[command(name = "bench-bare", about = "Bare actix-web endpoint for bench/run")]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9001")]
    listen: String,
}

async fn receive(body: web::Bytes) -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({
        "status": "accepted",
        "bytes": body.len(),
    }))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    HttpServer::new(|| {
        App::new()
            // The same cap hookline applies by default.
            .app_data(web::PayloadConfig::new(1024 * 1024))
            .default_service(web::post().to(receive))
    })
    .bind(&args.listen)?
    .run()
    .await
}
