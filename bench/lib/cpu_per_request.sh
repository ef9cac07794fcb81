#!/usr/bin/env bash
# hookline's CPU per request below saturation: one bench/lib/pg_per_event.sh
# pass, and the CPU time (utime + stime from /proc) over 12 s of it, from
# 4 s after the load starts, of hookline (divided by the offered rate) and
# of every other process of the pass (Redis, the load generator, the sink,
# PostgreSQL) and the whole machine, in cores. Rounds of one build spread
# by about 6% (bench/NOTES.md, "Run 25"), where the delivered rate at
# saturation spreads by a third: an A/B alternates two BIN directories, a
# round each.
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
# "PID NAME TICKS" per process of the pass, and the machine's busy ticks.
snap() {
  for p in "$pid" $(pgrep -x redis-server) $(pgrep -f bench-load) $(pgrep -f bench-sink) $(pgrep -x postgres); do
    sed 's/^[0-9]* (\([^)]*\)) /\1 /' "/proc/$p/stat" 2>/dev/null | awk -v p="$p" '{print p, $1, $13 + $14}' || true
  done
  awk '/^cpu /{print "all", "machine", $2 + $3 + $4 + $7 + $8}' /proc/stat
}
snap >"$out.cpu0"; s0=$(date +%s.%N); sleep 12; snap >"$out.cpu1"; s1=$(date +%s.%N)
wait "$pass"
python3 - "$out" "$label" "$rate" "$s0" "$s1" "$(getconf CLK_TCK)" "$pid" <<'PY'
import collections, sys
out, label, rate, s0, s1, tick, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
read = lambda f: {l.split()[0]: (l.split()[1], int(l.split()[2])) for l in open(f)}
a, b = read(out + ".cpu0"), read(out + ".cpu1")
w = s1 - s0
cores = collections.Counter()
for p, (name, t) in b.items():
    if p in a:
        cores["hookline" if p == pid else name] += (t - a[p][1]) / tick / w
print(f"{label}: hookline {cores['hookline']:.3f} cores at {rate} req/s: "
      f"{1000 * cores['hookline'] / rate:.4f} ms CPU per request")
print("    cores: " + " ".join(f"{n} {c:.2f}" for n, c in sorted(cores.items())))
PY
grep 'pg-per-event:' "$out.log" | sed 's/.*(2xx/    (2xx/' | cut -c1-190
