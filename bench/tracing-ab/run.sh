#!/usr/bin/env bash
# The tracing A/B of bench/FEATURES.md, fourth section. One arm is one
# `bench/run` of the tracing feature passes (3 rounds, off/on alternated),
# with target/release/hookline replaced by the binary under test; the
# benchmark tools are the same build. Usage:
#   bench/tracing-ab/run.sh OUTDIR BINARY [ROUNDS]
# `cargo build --release` inside bench/run finds the tree fresh and keeps
# the copied binary (copy it after building the tree you want compared).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1; bin=$2; rounds=${3:-3}
mkdir -p "$out"
cp "$bin" target/release/hookline
BENCH_FEATURES=tracing BENCH_FEATURES_ROUNDS=$rounds BENCH_SCENARIOS= BENCH_SUSTAINED_SCENARIOS= \
BENCH_BASELINES= BENCH_MEMORY_KEYS=0 BENCH_ISOLATION_SCENARIO= BENCH_SIZE_SCENARIOS= BENCH_BROKERS= \
BENCH_DURATION=10 BENCH_OUT="$out/results.json" BENCH_REPORT="$out/REPORT.md" BENCH_PLOT="$out/t.png" \
BENCH_TIMELINES="$out/tl.png" BENCH_FEATURES_REPORT="$out/FEATURES.md" BENCH_FEATURES_OUT="$out/features.json" \
bench/run
