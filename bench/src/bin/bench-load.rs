//! `bench-load`: the load generator of `bench/run` (see `hookline_bench::load`).

use clap::Parser;

fn main() -> anyhow::Result<()> {
    hookline_bench::load::main(hookline_bench::load::Args::parse())
}
