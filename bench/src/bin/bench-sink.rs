//! `bench-sink`: the handler of `bench/run` (see `hookline_bench::sink`).
//! Every POST is counted per path and answered 200, at once or after the
//! hold given for its path (a handler that times out).

use std::collections::HashMap;
use std::time::Duration;

use actix_web::{web, App, HttpServer};
use clap::Parser;
use hookline_bench::sink::{parse_hold, routes, Sink};

#[derive(Parser)]
#[command(name = "bench-sink", about = "Counting handler for bench/run")]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9000")]
    listen: String,
    /// actix-web worker threads.
    #[arg(long, default_value_t = 1)]
    workers: usize,
    /// Hold every request to a path this long before answering, e.g.
    /// `--hold slow=30s` for `POST /slow` (repeatable).
    #[arg(long, value_parser = parse_hold)]
    hold: Vec<(String, Duration)>,
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let sink = web::Data::new(Sink::new(args.hold.into_iter().collect::<HashMap<_, _>>()));
    HttpServer::new(move || App::new().app_data(sink.clone()).configure(routes))
        .workers(args.workers.max(1))
        .bind(&args.listen)?
        .run()
        .await
}
