#!/usr/bin/env bash
# The embedded store's stalls against its flushes (issue 25, item 4): one
# round of bench/embedded-pauses/ab.sh (BASE and NEW the same build) while
# `perf record` takes every fsync and fdatasync on the machine (syscall
# tracepoints, no ptrace: the pass runs as without it), then each
# node's answers that stalled over 50 ms (bench-load's slow_answers),
# grouped, lined up with the node's flushes of 20 ms or more under way
# then, per file (the database, its write-ahead log).
#   BIN=dir bench/embedded-pauses/fsync-probe.sh RATE OUTDIR
# Needs perf (Debian's linux-perf) and root for the tracepoints.
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:?usage: fsync-probe.sh RATE OUTDIR}; out=${2:?outdir}; mkdir -p "$out"
python3 -c 'import time; print(time.time() - time.clock_gettime(time.CLOCK_MONOTONIC))' >"$out/clock-offset"
perf record -q -k CLOCK_MONOTONIC -a -o "$out/flushes.data" \
  -e syscalls:sys_enter_fsync,syscalls:sys_exit_fsync,syscalls:sys_enter_fdatasync,syscalls:sys_exit_fdatasync \
  >"$out/perf.log" 2>&1 &
perf=$!
BASE=${BIN:?} NEW=$BIN bench/embedded-pauses/ab.sh "$rate" 1 "$out" >"$out/ab.log" 2>&1 &
ab=$!
seen=
while kill -0 "$ab" 2>/dev/null; do
  pid=$(pgrep -f 'hookline serve' | head -1 || true)
  if [ -n "$pid" ] && [[ " $seen " != *" $pid "* ]]; then
    seen="$seen $pid"
    echo "$pid" >>"$out/nodes"
    sleep 0.5
    ls -l "/proc/$pid/fd" >"$out/fds-$pid.txt" 2>/dev/null || true
  fi
  sleep 0.2
done
wait "$ab"
kill -INT "$perf"; wait "$perf" || true
perf script -i "$out/flushes.data" -F pid,tid,time,event,trace >"$out/flushes.txt" 2>/dev/null
rm -f "$out/flushes.data"
python3 - "$out" <<'PY' | tee "$out/summary-flushes.txt"
import json, os, re, sys
out = sys.argv[1]
offset = float(open(os.path.join(out, "clock-offset")).read())
nodes = open(os.path.join(out, "nodes")).read().split()
ev = re.compile(r'^\s*(\d+)/(\d+)\s+([\d.]+):\s+syscalls:sys_(enter|exit)_(fsync|fdatasync):\s*(?:fd: (0x[0-9a-f]+))?')
calls = {}
open_calls = {}
for l in open(os.path.join(out, "flushes.txt")):
    m = ev.match(l)
    if not m: continue
    pid, tid, t, kind = m.group(1), m.group(2), float(m.group(3)) + offset, m.group(4)
    if kind == "enter":
        open_calls[tid] = (t, int(m.group(6), 16), m.group(5))
    elif tid in open_calls:
        s, fd, name = open_calls.pop(tid)
        calls.setdefault(pid, []).append((s, t, fd, name))
for pid, arm in zip(nodes, ["base", "new"]):
    fds = {}
    for l in open(os.path.join(out, f"fds-{pid}.txt")):
        m = re.search(r' (\d+) -> (.*)$', l)
        if m: fds[int(m.group(1))] = os.path.basename(m.group(2))
    flushes = [(s, e, fds.get(fd, str(fd)), k) for s, e, fd, k in calls.get(pid, [])]
    print(f"{arm} (node {pid}): {len(flushes)} flushes")
    by = {}
    for s, e, f, k in flushes:
        by.setdefault((k, f), []).append((e - s) * 1000)
    for (k, f), ms in sorted(by.items()):
        ms.sort()
        print(f"  {k} {f}: {len(ms)}, p50 {ms[len(ms)//2]:.2f} ms, p99 {ms[int(len(ms)*0.99)]:.2f} ms, "
              f"max {ms[-1]:.1f} ms, 20 ms or more {sum(1 for x in ms if x >= 20)}")
    p = json.load(open(os.path.join(out, f"{arm}-1.json")))
    t0 = p["timeline"]["start_unix"]
    print(f"  p99 from the scheduled send {p['latency_ms']['p99']:.1f} ms; stalls of 50 ms or more "
          "(seconds from the pass's start, answers, worst) and the flushes of 20 ms or more under way:")
    groups = []
    for t, ms in p.get("slow_answers") or []:
        if ms < 50: continue
        if groups and t - groups[-1][1] < 0.5:
            g = groups[-1]; g[1] = t; g[2] += 1; g[3] = max(g[3], ms)
        else:
            groups.append([t, t, 1, ms])
    for a, b, n, worst in groups:
        lo = a - worst / 1000
        under = [(s, e, f, k) for s, e, f, k in flushes if e >= lo and s <= b and e - s >= 0.02]
        desc = "; ".join(f"{k} {f} {1000*(e-s):.0f} ms from {s-t0:.2f}s" for s, e, f, k in under) or "none"
        print(f"    {a-t0:6.2f}s {n:3d} answers, worst {worst:.0f} ms: {desc}")
PY
