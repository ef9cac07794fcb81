//! `bench-search`: the sustained-rate search of `bench/run`, one decision
//! per call (see `hookline_bench::search`). `bench/run` starts a fresh
//! hookline for every pass, so the search keeps its state in a file:
//!
//! ```sh
//! rate=$(bench-search init --state s.json --estimate 4000)
//! while [ -n "$rate" ]; do
//!   bench-load --rate "$rate" ... > pass.json
//!   rate=$(bench-search record --state s.json --rate "$rate" --pass pass.json)
//! done
//! ```
//!
//! Each call prints the next rate to try, or nothing when the search is done.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};
use hookline_bench::search::{Criteria, Search};

#[derive(Parser)]
#[command(name = "bench-search", about = "Sustained-rate search for bench/run")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start a search; prints the first rate.
    Init {
        #[arg(long)]
        state: PathBuf,
        /// First rate to try (requests/s).
        #[arg(long)]
        estimate: f64,
        /// Give up below this rate.
        #[arg(long, default_value_t = 10.0)]
        min_rate: f64,
        /// Passes at most.
        #[arg(long, default_value_t = 6)]
        max_steps: usize,
        /// Stop when the lowest fail is within this factor of the highest pass.
        #[arg(long, default_value_t = 0.1)]
        precision: f64,
        /// p99 bound of the answer, from the scheduled send, in ms.
        #[arg(long, default_value_t = 10.0)]
        p99_ms: f64,
        /// Delivered/s at least this share of accepted/s.
        #[arg(long, default_value_t = 0.95)]
        keep_pace: f64,
        /// Backlog at the end under this many seconds of accepted/s.
        #[arg(long, default_value_t = 1.0)]
        backlog_seconds: f64,
        /// The scenario has no handler: deliveries are not judged.
        #[arg(long)]
        no_deliveries: bool,
    },
    /// Judge a pass, keep it; prints the next rate.
    Record {
        #[arg(long)]
        state: PathBuf,
        /// The rate the pass was run at.
        #[arg(long)]
        rate: f64,
        /// The pass's `bench-load` output.
        #[arg(long)]
        pass: PathBuf,
    },
}

fn save(path: &Path, s: &Search) -> anyhow::Result<()> {
    std::fs::write(path, serde_json::to_vec_pretty(s)?)?;
    Ok(())
}

fn print_next(s: &Search) {
    if let Some(r) = s.next_rate() {
        println!("{r}");
    }
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Init {
            state,
            estimate,
            min_rate,
            max_steps,
            precision,
            p99_ms,
            keep_pace,
            backlog_seconds,
            no_deliveries,
        } => {
            anyhow::ensure!(
                estimate.is_finite() && estimate > 0.0,
                "--estimate must be positive"
            );
            let s = Search {
                estimate,
                min_rate,
                max_steps,
                precision,
                criteria: Criteria {
                    p99_ms,
                    keep_pace,
                    backlog_seconds,
                    deliveries: !no_deliveries,
                },
                steps: vec![],
            };
            save(&state, &s)?;
            print_next(&s);
        }
        Command::Record { state, rate, pass } => {
            let mut s: Search = serde_json::from_slice(&std::fs::read(&state)?)?;
            let p: serde_json::Value = serde_json::from_slice(&std::fs::read(&pass)?)?;
            let step = s.record(rate, &p, &pass.to_string_lossy());
            // The verdict, for the person watching the run.
            let failed: Vec<_> = step
                .checks
                .iter()
                .filter(|c| !c.ok)
                .map(|c| format!("{} {:.3} (limit {})", c.name, c.measured, c.limit))
                .collect();
            eprintln!(
                "    {rate}/s: {}",
                if failed.is_empty() {
                    "sustained".into()
                } else {
                    format!("not sustained: {}", failed.join("; "))
                }
            );
            save(&state, &s)?;
            print_next(&s);
        }
    }
    Ok(())
}
