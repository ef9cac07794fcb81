#!/usr/bin/env bash
# System calls per request on the Redis-only path: one redis_only.sh pass
# per build, with `perf stat` counting hookline's system calls (all, and
# getrandom alone) over 5 s of it.
#   BASE=dir NEW=dir bench/owner-token/syscalls.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: syscalls.sh OUTDIR}; mkdir -p "$out"
for arm in base new; do
  if [ "$arm" = base ]; then bin=${BASE:?}; else bin=${NEW:?}; fi
  BASE=$bin NEW=$bin bench/streams-ab/local-conn/redis_only.sh 1 "$out/$arm-pass" > "$out/$arm-pass.log" 2>&1 &
  runner=$!
  pid=
  for _ in $(seq 120); do pid=$(pgrep -n -f "^[^ ]*/hookline serve --config .*/nodes/1-base/" || true); [ -n "$pid" ] && break; sleep 0.5; done
  [ -n "$pid" ] || { echo "no hookline node of $arm" >&2; exit 1; }
  sleep 6
  perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_getrandom -p "$pid" -o "$out/$arm-perf.csv" -- sleep 5
  wait "$runner"
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import csv, glob, json, os, sys
out = sys.argv[1]
for arm in ("base", "new"):
    counts = {r[2]: float(r[0]) for r in csv.reader(open(f"{out}/{arm}-perf.csv")) if len(r) > 2 and r[0] and r[0][0].isdigit()}
    p = json.load(open(sorted(glob.glob(f"{out}/{arm}-pass/base-1.json"))[0]))
    rate = p["ok_per_s"]
    print(f"{arm}: {rate:.0f} 2xx/s; per request over the 5 s counted: "
          f"{counts.get('raw_syscalls:sys_enter', 0) / (rate * 5):.2f} system calls, "
          f"{counts.get('syscalls:sys_enter_getrandom', 0) / (rate * 5):.3f} getrandom")
PY
