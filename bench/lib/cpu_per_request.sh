#!/usr/bin/env bash
# hookline's CPU per request below saturation: one bench/lib/pg_per_event.sh
# pass, and hookline's CPU time (utime + stime from /proc) over 12 s of it,
# from 4 s after the load starts, divided by the offered rate. Rounds of one
# build spread by about 6% (bench/NOTES.md, "Run 25"), where the delivered
# rate at saturation spreads by a third: an A/B alternates two BIN
# directories, a round each.
#   [OUT=dir] [STORE=redis|redis-streams] [CRITICAL=yes|no] [BENCH_HOOKLINE_ENV=...] \
#     bench/lib/cpu_per_request.sh BIN LABEL RATE
# BIN holds hookline, bench-load and bench-sink; the pass's raw output goes
# to OUT/LABEL (default OUT /tmp/cpu-per-request).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:?usage: cpu_per_request.sh BIN LABEL RATE}; label=${2:?label}; rate=${3:?rate}
out=${OUT:-/tmp/cpu-per-request}/$label; mkdir -p "$(dirname "$out")"
PG_EVENTS_BIN=$bin PG_EVENTS_STORE=${STORE:-redis-streams} PG_EVENTS_CRITICAL=${CRITICAL:-no} \
  PG_EVENTS_RATE=$rate PG_EVENTS_DURATION=20 PG_EVENTS_OUT=$out bench/lib/pg_per_event.sh >"$out.log" 2>&1 &
pass=$!
pid=
for _ in $(seq 200); do pid=$(pgrep -f "hookline serve" | head -1) && break; sleep 0.1; done
[ -n "$pid" ] || { echo "hookline did not start (see $out.log)" >&2; exit 1; }
for _ in $(seq 300); do pgrep -f bench-load >/dev/null && break; sleep 0.1; done
sleep 4
t0=$(awk '{print $14+$15}' "/proc/$pid/stat"); s0=$(date +%s.%N)
sleep 12
t1=$(awk '{print $14+$15}' "/proc/$pid/stat"); s1=$(date +%s.%N)
wait "$pass"
python3 -c "
c = ($t1 - $t0) / $(getconf CLK_TCK); w = $s1 - $s0
print(f'$label: hookline {c / w:.3f} cores at $rate req/s: {1000 * c / w / $rate:.4f} ms CPU per request')"
grep 'pg-per-event:' "$out.log" | sed 's/.*(2xx/    (2xx/' | cut -c1-190
