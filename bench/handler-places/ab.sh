#!/usr/bin/env bash
# A/B of bench/run's isolation passes (redis store, non-critical events,
# deliveries in PostgreSQL, `handlers.NAME.concurrency = 4`): the healthy
# handler alone, then with a second handler on the same events whose calls
# all time out (timeout 2 s, the sink holds them 30 s). RATE requests/s
# open-loop over 64 connections for 20 s, a fresh node and store per pass,
# BASE and NEW alternating. Prints each pass's line (its load.json kept)
# and the deliveries handed back to the queue unattempted
# (`hookline_deliveries_handed_back_total`, where the build has it).
#   RATE=2516 BASE=dir NEW=dir bench/handler-places/ab.sh ROUNDS OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:?rounds}; out=${2:?out}; mkdir -p "$out"
SLOW_TIMEOUT=2s
SLOW_HOLD=30s
HANDLER_CONCURRENCY=4
. bench/lib/ab.sh
rate=${RATE:?RATE}
for r in $(seq "$rounds"); do
  for pass in alone with_slow; do
    handlers="healthy"; [ "$pass" = with_slow ] && handlers="healthy slow"
    for side in BASE NEW; do
      BIN=${!side}
      HANDLER_CONCURRENCY_OK=   # each build is asked whether it takes the key
      label="$(echo "$side" | tr 'A-Z' 'a-z')-$pass-$r"
      [ -n "${SINK_URL:-}" ] || start_sink
      fresh_node "$label" redis no "$handlers"
      grep -q "concurrency = 4" "$HL_CONFIG" || die "no handler limit in $HL_CONFIG"
      load "$label" "$out/$label.json" --url "$HL_URL/webhooks/stripe/default" --rate "$rate" \
        --concurrency 64 --duration 20 --body-bytes 1024 --watch-pid "$HL_PID" \
        --sink "$SINK_URL/_sink/stats/healthy" --watch-sink "$SINK_URL/_sink/stats/slow" --drain-timeout 10
      back=$(curl -s "$HL_URL/metrics" | awk '/^hookline_deliveries_handed_back_total\{handler="healthy"\}/ {print $2}')
      python3 - "$out/$label.json" "${back:--}" <<'PY' | tee -a "$out/summary.txt"
import json, sys
l = json.load(open(sys.argv[1])); d = l.get("deliveries") or {}
print(f"{l['label']}: {l['requests_per_s']:.0f} req/s, new {l['accepted_per_s']:.0f}/s, "
      f"p99 {l['latency_ms']['p99']:.2f} ms, healthy delivered {d.get('per_second', 0):.0f}/s, "
      f"backlog at end {d.get('backlog_at_end')}, handed back {sys.argv[2]}")
PY
      cp "$HL_CONFIG" "$out/$label.config.toml"
      stop_node
    done
  done
done
