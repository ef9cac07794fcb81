#!/usr/bin/env bash
# Where the embedded store's time goes at its closed-loop maximum (issue
# 25, item 3): one node on a fresh SQLite file (critical events, one
# handler answering 200 at once; bench/run's config and sink), 32
# connections as fast as answered for 12 s, and the CPU of each of
# hookline's threads over the pass, by name, from /proc/PID/task/*/stat.
# bench/NOTES.md, "The embedded store at its maximum", reads it.
# RATE=n offers n requests/s open-loop over 64 connections instead (as
# bench/run's sustained passes do).
#   [BIN=dir] [CONC=n] [RATE=n] [HL_LOG=filter] bench/embedded-threads/run.sh OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release}
d=${1:?usage: run.sh OUT}; rm -rf "$d"; mkdir -p "$d"
WARMUP=1
DUP_SHARE=0.1
LOG_FILTER=${HL_LOG:-info}
REDIS_URL=  # fresh_node's default; the embedded store uses none
WORK=$(mktemp -d /tmp/hookline-embedded-threads.XXXXXX)
. bench/lib/common.sh
. bench/lib/hookline.sh
redis_clear() { :; }  # the embedded store keeps nothing in Redis
trap cleanup EXIT
trap 'exit 130' INT TERM

start_sink
fresh_node embedded-threads embedded yes sink
cp "$HL_CONFIG" "$d/hookline.toml"
threads() { for t in /proc/$HL_PID/task/*; do echo "$(cat "$t/comm")|$(awk '{print $14+$15}' "$t/stat")"; done; }
# With perf, the WAL syncs (one per committed lane transaction) and
# writes over the same 10 s.
PERF=(sleep 10)
if command -v perf >/dev/null; then
  PERF=(perf stat -x, -o "$d/syscalls.csv" -e syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync,syscalls:sys_enter_pwrite64 -p "$HL_PID" -- sleep 10)
fi
# The warm-up (1 s) runs before the window; sample the threads around it.
( sleep 1.5; threads > "$d/threads.before"; "${PERF[@]}" >/dev/null 2>&1 || sleep 10; threads > "$d/threads.after" ) &
sampler=$!
pace=(--concurrency "${CONC:-32}")
[ -z "${RATE:-}" ] || pace=(--rate "$RATE" --concurrency 64)
load embedded-threads "$d/load.json" --url "$HL_URL/webhooks/stripe/default" "${pace[@]}" \
  --duration 12 --body-bytes 1024 --watch-pid "$HL_PID" --sink "$SINK_URL/_sink/stats/sink" --drain-timeout 10
wait "$sampler"
python3 - "$d" "$(getconf CLK_TCK)" <<'PY' | tee "$d/summary.txt"
import collections, json, sys
d, hz = sys.argv[1], int(sys.argv[2])
def read(f):
    out = collections.Counter()
    for line in open(f"{d}/{f}"):
        name, ticks = line.rstrip("\n").rsplit("|", 1)
        out[name] += int(ticks)
    return out
b, a = read("threads.before"), read("threads.after")
l = json.load(open(f"{d}/load.json"))
dl = l.get("deliveries") or {}
print(f"answered {l['requests_per_s']:.0f}/s, new {l['accepted_per_s']:.0f}/s, delivered "
      f"{dl.get('per_second', 0):.0f}/s, p50 {l['latency_ms']['p50']:.2f} ms, p99 {l['latency_ms']['p99']:.2f} ms, "
      f"machine busy {(l.get('machine') or {}).get('busy_cores')}")
print("cores over 10 s, by thread name:")
total = 0
for name in sorted(a, key=lambda n: -(a[n] - b.get(n, 0))):
    cores = (a[name] - b.get(name, 0)) / hz / 10
    total += cores
    if cores >= 0.005:
        print(f"  {name:24} {cores:.3f}")
print(f"  {'all':24} {total:.3f}")
try:
    for line in open(f"{d}/syscalls.csv"):
        parts = line.strip().split(",")
        if len(parts) > 2 and parts[0].replace(".", "").isdigit():
            n = float(parts[0])
            print(f"{parts[2].split(':')[-1]}: {n / 10:.0f}/s, {n / 10 / max(l['accepted_per_s'], 1):.2f} per new event")
except FileNotFoundError:
    pass
PY
