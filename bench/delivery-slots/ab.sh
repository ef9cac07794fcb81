#!/usr/bin/env bash
# What caps deliveries on the PostgreSQL paths near 4,300/s (run 46's
# capacity passes delivered 4,285-4,353/s of 5,483-15,262 new events/s
# with the machine 1.7-1.8 cores busy)? The closed-loop maximum of the
# critical and the non-critical (deliveries in PostgreSQL) scenarios with
# the default `delivery.concurrency` (16) and with 64, alternated, two
# rounds. From the repository's root:
#   bench/delivery-slots/ab.sh
set -euo pipefail
out=bench/delivery-slots
for round in 1 2; do
  for slots in 16 64; do
    dir="$out/c$slots-$round"; mkdir -p "$dir"
    env=""; [ "$slots" = 16 ] || env="HOOKLINE__DELIVERY__CONCURRENCY=$slots"
    BENCH_HOOKLINE_ENV="$env" BENCH_BASELINES=bare BENCH_SCENARIOS="redis-critical redis-noncritical" \
    BENCH_SUSTAINED_SCENARIOS= BENCH_CAPACITY_CHECKS= BENCH_SIZE_SCENARIOS= BENCH_ISOLATION_SCENARIO= \
    BENCH_MEMORY_KEYS=0 BENCH_FEATURES= BENCH_BROKERS= BENCH_PG_PER_EVENT= BENCH_VCPU_PROBE=0 BENCH_DISK_PROBE=0 \
    BENCH_OUT="$dir/results.json" BENCH_REPORT="$dir/REPORT.md" BENCH_PLOT="$dir/t.png" BENCH_TIMELINES="$dir/tl.png" \
      bench/run >"$dir/run.log" 2>&1
    rm -f "$dir/t.png" "$dir/tl.png"
    echo "concurrency $slots, round $round:"; grep -- "-max:" "$dir/run.log"
  done
done
# Then above the capacity, open loop: 6,000 requests/s for 15 s, critical
# events, one handler, on a private PostgreSQL with pg_stat_statements
# (each arm's statements, CPU and answers in open-6000-cN-R/).
for round in 1 2; do
  for slots in 16 64; do
    env=""; [ "$slots" = 16 ] || env="HOOKLINE__DELIVERY__CONCURRENCY=$slots"
    BENCH_HOOKLINE_ENV="$env" PG_EVENTS_OUT="$out/open-6000-c$slots-$round" PG_EVENTS_RATE=6000 \
      PG_EVENTS_DURATION=15 bench/lib/pg_per_event.sh 2>&1 | grep "pg-per-event:\|^pg_stat\|^PostgreSQL CPU"
    rm -f "$out/open-6000-c$slots-$round/hookline.log"
  done
done
