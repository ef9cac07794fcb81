#!/usr/bin/env bash
# Non-critical deliveries in PostgreSQL against Redis Streams
# (`store.non_critical_deliveries`), same machine, same build, one
# bench/run per round (bench/NOTES.md, "Non-critical deliveries in Redis
# Streams, measured"). Each round runs the bare endpoint and pgbench, then
# the closed-loop maximum of both scenarios, their order alternated from
# one round to the next; with SEARCH=1 also the sustained-rate search of
# both. Usage:
#   bench/streams-ab/run.sh OUTDIR [ROUNDS] [SEARCH]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1; rounds=${2:-2}; search=${3:-0}
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) -eq 1 ]; then
    order="redis-noncritical redis-noncritical-streams"
  else
    order="redis-noncritical-streams redis-noncritical"
  fi
  sustained=""
  [ "$search" = 1 ] && sustained=$order
  dir="$out/round$i"; mkdir -p "$dir"
  BENCH_SCENARIOS="$order" BENCH_SUSTAINED_SCENARIOS="$sustained" BENCH_BASELINES="bare pgbench" \
  BENCH_MEMORY_KEYS=0 BENCH_ISOLATION_SCENARIO= BENCH_SIZE_SCENARIOS= BENCH_BROKERS= BENCH_FEATURES= \
  BENCH_SEARCH_STEPS=${BENCH_SEARCH_STEPS:-5} BENCH_SUSTAIN_DURATION=${BENCH_SUSTAIN_DURATION:-20} \
  BENCH_OUT="$dir/results.json" BENCH_REPORT="$dir/REPORT.md" BENCH_PLOT="$dir/t.png" \
  BENCH_TIMELINES="$dir/tl.png" bench/run
done
