#!/usr/bin/env bash
# Item 1 (issue 25), 2026-11-29: PostgreSQL's work per delivered critical
# event measured from empty tables (as bench/run does) and after a warm
# pass of 20 s (tables holding ~27,000 events), alternated, two rounds;
# the CPU split by process and kernel time. From the repository's root:
#   bench/pg_per_event/session29/ab.sh
set -euo pipefail
out=bench/pg_per_event/session29
for round in 1 2; do
  for arm in empty warm; do
    warm=0; [ "$arm" = warm ] && warm=20
    PG_EVENTS_OUT="$out/$arm-$round" PG_EVENTS_WARM=$warm PG_EVENTS_RATE=1500 PG_EVENTS_DURATION=15 \
      bench/lib/pg_per_event.sh >"$out/$arm-$round.log" 2>&1
    sed -n '/delivered events/,/top statements/p' "$out/$arm-$round.log"
  done
done
