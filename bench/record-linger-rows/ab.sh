#!/usr/bin/env bash
# A critical event's record statement that stops waiting for company once
# 16 events share it (RecordBatch::LINGER_ROWS), against the head before
# it (a full 2 ms wait on every statement under load). Critical events,
# one handler, bench/lib/pg_per_event.sh (a private PostgreSQL with
# pg_stat_statements), 15 s per pass, arms alternated, two rounds, at
# 1,500/s (item 1's measure), 4,500/s and 6,000/s. From the repository's
# root, with each arm's release binaries (hookline, bench-load,
# bench-sink) built beforehand in BASE and NEW:
#   BASE=/tmp/base-bin NEW=/tmp/new-bin bench/record-linger-rows/ab.sh
# and then two more rounds at 4,500/s and 5,000/s:
#   ROUNDS="3 4" RATES="4500 5000" BASE=... NEW=... bench/record-linger-rows/ab.sh
set -euo pipefail
out=bench/record-linger-rows
for round in ${ROUNDS:-1 2}; do
  for rate in ${RATES:-1500 4500 6000}; do
    for arm in base new; do
      bin=$BASE; [ "$arm" = new ] && bin=$NEW
      dir="$out/$arm-$rate-$round"
      PG_EVENTS_BIN="$bin" PG_EVENTS_OUT="$dir" PG_EVENTS_RATE=$rate PG_EVENTS_DURATION=15 \
        bench/lib/pg_per_event.sh >"$dir.log" 2>&1
      rm -f "$dir/hookline.log"
      echo "$arm $rate round $round: $(grep 'pg-per-event:' "$dir.log" | sed 's/^ *//')"
      grep '^pg_stat\|^PostgreSQL CPU' "$dir.log"
    done
  done
done
