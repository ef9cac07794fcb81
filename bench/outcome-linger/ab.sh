#!/usr/bin/env bash
# Alternating A/B of the delivered rate with deliveries in PostgreSQL:
# bench/lib/pg_per_event.sh passes (a private PostgreSQL, the sink, one
# hookline node on the redis store, one handler), BASE and NEW directories
# holding hookline, bench-load and bench-sink (release builds without and
# with the change), a round each, then a table of what each pass offered,
# answered 2xx, accepted as new, delivered in the window, and its p99.
#   BASE=dir NEW=dir [CRITICAL=yes|no] [CONFIG_EXTRA=toml] ab.sh RATE ROUNDS OUTDIR
# (CONFIG_EXTRA: tables added to the node's config, bench/lib/hookline.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=$1; rounds=$2; out=$3
for r in $(seq "$rounds"); do
  for arm in base new; do
    bin=$BASE; [ "$arm" = new ] && bin=$NEW
    PG_EVENTS_BIN=$bin PG_EVENTS_STORE=redis PG_EVENTS_CRITICAL=${CRITICAL:-yes} \
      PG_EVENTS_RATE=$rate PG_EVENTS_DURATION=15 PG_EVENTS_OUT="$out/$arm-$rate-$r" \
      bench/lib/pg_per_event.sh >"$out/$arm-$rate-$r.log" 2>&1
  done
done
python3 bench/outcome-linger/table.py "$out"/*-"$rate"-*/
