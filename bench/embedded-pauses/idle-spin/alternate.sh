#!/usr/bin/env bash
# The idle-vCPU lead, as a controlled comparison: one build, ROUNDS rounds,
# each round one ab.sh round (two embedded passes) as the machine is and one
# with two idle-priority spinners (`chrt -i 0 yes`: scheduled only when
# nothing else wants a CPU, they keep the vCPUs from halting), the order
# swapped every round so that neither condition always runs first.
#   BIN=dir bench/embedded-pauses/idle-spin/alternate.sh RATE ROUNDS OUTDIR
# BIN holds hookline, bench-load and bench-sink. Each round's passes land in
# OUTDIR/R-plain and OUTDIR/R-spin (ab.sh's JSON and summary.txt), and a
# vCPU probe (bench/pauses/vcpu/fixed_work.py, 5 s) runs before each round.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rate=${1:?usage: alternate.sh RATE ROUNDS OUTDIR}; rounds=${2:?rounds}; out=${3:?outdir}
bin=${BIN:?BIN=dir with hookline, bench-load, bench-sink}
mkdir -p "$out"
spinners=()
stop_spin() { for p in "${spinners[@]}"; do kill "$p" 2>/dev/null || true; done; spinners=(); }
trap stop_spin EXIT
pass() {  # round condition
  local dir="$out/$1-$2"
  if [ "$2" = spin ]; then
    for _ in 1 2; do chrt -i 0 yes > /dev/null & spinners+=($!); done
  fi
  BASE=$bin NEW=$bin bench/embedded-pauses/ab.sh "$rate" 1 "$dir" > "$dir.log" 2>&1
  stop_spin
}
for r in $(seq "$rounds"); do
  python3 bench/pauses/vcpu/fixed_work.py 5 "$out/$r-probe.json" > "$out/$r-probe.txt" 2>&1
  if [ $((r % 2)) = 1 ]; then pass "$r" plain; pass "$r" spin; else pass "$r" spin; pass "$r" plain; fi
  echo "round $r: $(date -u +%H:%M:%S)"
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, os, sys
out = sys.argv[1]
rows = {"plain": [], "spin": []}
for f in sorted(glob.glob(os.path.join(out, "*-*/*.json"))):
    cond = os.path.basename(os.path.dirname(f)).split("-")[1]
    p = json.load(open(f))
    slow = p.get("slow_answers") or []
    worst = max((ms for _, ms in slow), default=0)
    all64 = 0  # moments where 50 or more answers stalled 50 ms or more within half a second
    times = sorted(t for t, ms in slow if ms >= 50)
    i = 0
    while i < len(times):
        j = i
        while j < len(times) and times[j] - times[i] < 0.5:
            j += 1
        if j - i >= 50:
            all64 += 1
        i = j
    rows[cond].append((os.path.relpath(f, out), p["latency_ms"]["p99"], worst, all64))
for cond, rs in rows.items():
    for name, p99, worst, n in rs:
        print(f"{cond:5} {name}: p99 {p99:.1f} ms, worst answer {worst:.0f} ms, moments of 50+ answers over 50 ms: {n}")
for cond, rs in rows.items():
    if not rs:
        continue
    p99s = sorted(r[1] for r in rs)
    print(f"{cond}: {len(rs)} passes; p99 median {p99s[len(p99s)//2]:.1f} ms, over 10 ms in {sum(r[1] > 10 for r in rs)}, "
          f"worst answer >= 100 ms in {sum(r[2] >= 100 for r in rs)}, with a moment of 50+ answers over 50 ms in {sum(r[3] > 0 for r in rs)}")
PY
