#!/usr/bin/env bash
# What the pauses are (issue 25, item 4): one bench/lib/pg_per_event.sh
# pass (critical events, one handler, a private PostgreSQL) with the
# server logging what could stall a request (PG_EVENTS_PAUSES=1), while
# `perf sched record` records every context switch of every CPU. Then
# bench/pauses.py lines the answers slower than 20 ms (bench-load's
# `slow_answers`) up with the scheduler's record (`perf sched timehist`:
# how long each thread waited for a CPU once runnable, and how long it
# slept in uninterruptible sleep, I/O as a rule), the PostgreSQL log
# and Redis's LATENCY events, and says what each pause coincides with.
#
#   bench/lib/pauses.sh                                   # 800/s for 30 s
#   PG_EVENTS_RATE=1100 PAUSES_OUT=bench/pauses/run1 bench/lib/pauses.sh
#
# Knobs: PG_EVENTS_RATE (800), PG_EVENTS_DURATION (30),
# PG_EVENTS_SYNC_COMMIT (the private server's synchronous_commit, on:
# `off` shows what the WAL flush on commit costs), PAUSES_OUT (a
# directory for the raw data; a temporary one by default), and
# pg_per_event.sh's own. Needs perf (linux-perf) and root for the
# scheduler tracepoints; the shared Redis's latency monitor is set to
# 10 ms for the pass and put back after.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v perf >/dev/null || { echo "pauses.sh: perf is needed (Debian's linux-perf)" >&2; exit 1; }
export PG_EVENTS_RATE="${PG_EVENTS_RATE:-800}" PG_EVENTS_DURATION="${PG_EVENTS_DURATION:-30}"
export PG_EVENTS_PAUSES=1
OUT="${PAUSES_OUT:-$(mktemp -d /tmp/hookline-pauses.XXXXXX)}"
mkdir -p "$OUT"
export PG_EVENTS_OUT="$OUT"
REDIS=(redis-cli -u "${BENCH_REDIS_URL:-redis://127.0.0.1:6379/0}")
old_threshold=$("${REDIS[@]}" config get latency-monitor-threshold | tail -n 1)
"${REDIS[@]}" config set latency-monitor-threshold 10 >/dev/null
"${REDIS[@]}" latency reset >/dev/null
python3 -c 'import time; print(time.time(), time.clock_gettime(time.CLOCK_MONOTONIC))' >"$OUT/clocks"
perf sched record -k CLOCK_MONOTONIC -a -o "$OUT/sched.data" >"$OUT/perf.log" 2>&1 &
PERF=$!
trap 'kill -INT $PERF 2>/dev/null || true; "${REDIS[@]}" config set latency-monitor-threshold "$old_threshold" >/dev/null' EXIT
bench/lib/pg_per_event.sh | tee "$OUT/summary.txt"
kill -INT $PERF; wait $PERF || true
"${REDIS[@]}" --raw latency latest >"$OUT/redis-latency.txt"
# Only the waits for a CPU of 1 ms or more, and the uninterruptible
# sleeps of 5 ms or more.
perf sched timehist --state -i "$OUT/sched.data" 2>/dev/null \
  | python3 bench/pauses.py --keep-switches >"$OUT/switches.txt"
rm -f "$OUT/sched.data"
python3 bench/pauses.py "$OUT" | tee "$OUT/pauses.txt"
