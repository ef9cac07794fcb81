#!/usr/bin/env bash
# Closed-loop A/B of the streams path (scenario redis-noncritical-streams of
# bench/run: non-critical events, one handler answering 200 at once,
# deliveries in Redis Streams): 32 connections for 12 s, a fresh node and
# store per pass, BASE and NEW alternating. Prints each pass's line (its
# load.json kept) and hookline's CPU per new event over the pass.
#   BASE=dir NEW=dir bench/streams-ab/one-script/closed.sh ROUNDS OUT
# Optional: STORE (embedded, redis or redis-streams, the default) and
# CRITICAL (yes or no, the default) pick another scenario of bench/run;
# RATE=n offers n requests/s open-loop over 64 connections for 20 s instead
# (bench/run's sustained passes), latency counted from the scheduled send.
# With a PostgreSQL-backed store, each line also gives the shared server's
# WAL flushes and writes per new event (pg_stat_wal, every process's, read
# once the node has stopped and its connections have reported).
set -euo pipefail
cd "$(dirname "$0")/../../.."
rounds=${1:?rounds}; out=${2:?out}; mkdir -p "$out"
. bench/lib/ab.sh
ticks() { awk '{print $14 + $15}' "/proc/$HL_PID/stat"; }
wal() { psql "$PG_ADMIN_URL" -qAt -c "SELECT wal_sync || ' ' || wal_write FROM pg_stat_wal" 2>/dev/null || echo "0 0"; }
for r in $(seq "$rounds"); do
  for side in BASE NEW; do
    BIN=${!side}
    label="$(echo "$side" | tr 'A-Z' 'a-z')-$r"
    [ -n "${SINK_URL:-}" ] || start_sink
    fresh_node "$label" "${STORE:-redis-streams}" "${CRITICAL:-no}" sink
    t0=$(ticks); w0=$(wal)
    if [ -n "${RATE:-}" ]; then pace=(--rate "$RATE" --concurrency 64 --duration 20); else pace=(--concurrency 32 --duration 12); fi
    load "$label" "$out/$label.json" --url "$HL_URL/webhooks/stripe/default" "${pace[@]}" \
      --body-bytes 1024 --sink "$SINK_URL/_sink/stats/sink" --drain-timeout 10
    t1=$(ticks); stop_node; sleep 2; w1=$(wal)
    python3 - "$out/$label.json" "$t0" "$t1" "$(getconf CLK_TCK)" "$w0" "$w1" "$HL_STORE" <<'PY' | tee -a "$out/summary.txt"
import json, sys
l = json.load(open(sys.argv[1])); t0, t1, hz = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
(s0, r0), (s1, r1) = (map(int, w.split()) for w in sys.argv[5:7])
wal = "" if sys.argv[7] == "embedded" else (
    f", WAL flushes per new event {(s1 - s0) / l['accepted']:.3f}, writes {(r1 - r0) / l['accepted']:.3f}")
new = l["accepted_per_s"] * l["duration_s"] if "duration_s" in l else None
print(f"{l['label']}: {l['requests_per_s']:.0f} req/s, new {l['accepted_per_s']:.0f}/s, "
      f"p99 {l['latency_ms']['p99']:.2f} ms, delivered {(l.get('deliveries') or {}).get('per_second', 0):.0f}/s, "
      f"hookline CPU over the pass and its drain {(t1 - t0) / hz:.1f} s{wal}")
PY
  done
done
