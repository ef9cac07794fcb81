#!/usr/bin/env bash
# A/B: records linger under load (var, 793a1c9 + the change) against 793a1c9 (base),
# binaries built with `cargo build --release -p hookline -p hookline-bench --bins`
# and copied to /tmp/bin-base and /tmp/bin-var. Output per pass in ARM-RATE-ROUND/.
cd /work/main
for rate in 1500 400; do
  for round in 1 2; do
    for arm in base var; do
      out=/tmp/ab/$arm-$rate-$round
      rm -rf $out
      PG_EVENTS_RATE=$rate PG_EVENTS_DURATION=15 PG_EVENTS_BIN=/tmp/bin-$arm PG_EVENTS_OUT=$out bench/lib/pg_per_event.sh > /tmp/ab/$arm-$rate-$round.log 2>&1
      echo "== $arm $rate $round"; grep -E "pg-per-event:|pg_stat_statements:|PostgreSQL CPU:" /tmp/ab/$arm-$rate-$round.log
    done
  done
done
