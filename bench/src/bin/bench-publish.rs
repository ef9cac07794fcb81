//! `bench-publish`: a minimal publisher to one broker (see
//! `hookline_bench::publish`), the baseline `bench/run` sets hookline's
//! broker destinations against. `setup` and `teardown` make and remove
//! what a pass publishes to; `run` publishes for a while and writes
//! `{"kind", "acknowledged", "per_second", "concurrency", "duration_s"}`.

use std::time::Duration;

use clap::{Parser, Subcommand};
use hookline_bench::publish::{publish, setup, teardown, Target};

#[derive(Parser)]
#[command(
    name = "bench-publish",
    about = "Minimal broker publisher for bench/run"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct On {
    /// nats, rabbitmq, redis-stream or mqtt.
    #[arg(long)]
    kind: String,
    #[arg(long)]
    url: String,
    /// The stream / exchange and queue / key and topic prefix.
    #[arg(long)]
    name: String,
}

#[derive(Subcommand)]
enum Command {
    Setup(On),
    Teardown(On),
    Run {
        #[command(flatten)]
        on: On,
        /// Publishes in flight, each waiting for its acknowledgement.
        #[arg(long, default_value_t = 16)]
        concurrency: usize,
        #[arg(long, default_value = "15s", value_parser = humantime::parse_duration)]
        duration: Duration,
        #[arg(long, default_value_t = 1024)]
        body_bytes: usize,
        /// Where to write the JSON result.
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

fn target(on: On) -> Target {
    Target {
        kind: on.kind,
        url: on.url,
        name: on.name,
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Args::parse().command {
        Command::Setup(on) => setup(&target(on)).await,
        Command::Teardown(on) => teardown(&target(on)).await,
        Command::Run {
            on,
            concurrency,
            duration,
            body_bytes,
            out,
        } => {
            let t = target(on);
            let body = bytes::Bytes::from(vec![b'x'; body_bytes]);
            let (acknowledged, per_second) = publish(&t, concurrency, duration, body).await?;
            let json = serde_json::json!({
                "kind": t.kind,
                "acknowledged": acknowledged,
                "per_second": per_second,
                "concurrency": concurrency,
                "duration_s": duration.as_secs_f64(),
            });
            std::fs::write(out, serde_json::to_vec_pretty(&json)?)?;
            Ok(())
        }
    }
}
