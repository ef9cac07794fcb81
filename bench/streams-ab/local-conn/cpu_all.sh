#!/usr/bin/env bash
# CPU of every process of one bench/lib/pg_per_event.sh pass (hookline, Redis,
# the load generator, the sink, PostgreSQL, and the whole machine), in cores
# over 12 s from 4 s after the load starts.   cpu_all.sh BIN LABEL RATE
# [STORE=redis-streams] [CRITICAL=no] [OUT=/tmp/cpu-all]
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=$1; label=$2; rate=$3; dir=${OUT:-/tmp/cpu-all}; out=$dir/$label; mkdir -p "$dir"
PG_EVENTS_BIN=$bin PG_EVENTS_STORE=${STORE:-redis-streams} PG_EVENTS_CRITICAL=${CRITICAL:-no} \
  PG_EVENTS_RATE=$rate PG_EVENTS_DURATION=20 PG_EVENTS_OUT=$out bench/lib/pg_per_event.sh >"$out.log" 2>&1 &
pass=$!
for _ in $(seq 300); do pgrep -f bench-load >/dev/null && break; sleep 0.1; done
sleep 4
snap() {
  for p in $(pgrep -f "hookline serve") $(pgrep -x redis-server) $(pgrep -f bench-load) \
           $(pgrep -f bench-sink) $(pgrep -x postgres); do
    awk -v p="$p" '{print p, $2, $14+$15}' "/proc/$p/stat" 2>/dev/null || true
  done
  awk '/^cpu /{print "all", "(all)", $2+$3+$4+$7+$8}' /proc/stat
}
snap >"$out.s0"; s0=$(date +%s.%N); sleep 12; snap >"$out.s1"; s1=$(date +%s.%N)
wait "$pass"
python3 - "$s0" "$s1" "$rate" "$label" "$out" "$(getconf CLK_TCK)" <<'PY'
import sys, collections
s0, s1, rate, label, out, tick = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])
read = lambda f: {l.split()[0]: (l.split()[1], int(l.split()[2])) for l in open(f)}
a, b = read(out + ".s0"), read(out + ".s1")
tot = collections.Counter()
for p, (n, t) in b.items():
    if p in a:
        tot[n] += t - a[p][1]
w = s1 - s0
print(label, ' '.join(f"{n}={v/tick/w:.2f}" for n, v in sorted(tot.items())),
      f"(cores; /rate ms: hookline {1000*tot['(hookline)']/tick/w/rate:.4f})")
PY
grep 'pg-per-event:' "$out.log" | sed 's/.*(2xx/    (2xx/' | cut -c1-190
