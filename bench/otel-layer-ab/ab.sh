#!/usr/bin/env bash
# A/B: Redis-only closed-loop pass, OTel layer on (A) vs left out (B), alternated.
cd /work/main
for arm in A B B A A B; do
  i=$((i+1))
  if [ $arm = B ]; then export HOOKLINE_EXPERIMENT_NO_OTEL=1; else unset HOOKLINE_EXPERIMENT_NO_OTEL; fi
  BENCH_BASELINES=bare BENCH_SCENARIOS=redis-noncritical-nohandler BENCH_SUSTAINED_SCENARIOS= \
  BENCH_ISOLATION_SCENARIO= BENCH_MEMORY_KEYS=0 BENCH_BROKERS= BENCH_FEATURES= BENCH_SIZE_SCENARIOS= \
  BENCH_OUT=/work/ab/ro-$i-$arm.json BENCH_REPORT=/work/ab/ro-$i-$arm.md BENCH_PLOT=/work/ab/ro-$i.png BENCH_TIMELINES=/work/ab/ro-$i-t.png \
  bench/run > /work/ab/ro-$i-$arm.log 2>&1
  echo "$i $arm done $(date +%T) load=$(cut -d' ' -f1 /proc/loadavg)"
done
