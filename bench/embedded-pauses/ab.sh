#!/usr/bin/env bash
# The embedded store's answers at a fixed rate, two builds alternated: one
# open-loop pass each (critical events, one handler; bench/run's config,
# sink and load: 64 connections, 20 s), and per pass the p99 from the
# scheduled send and the stretches of answers over 20 ms (start, count,
# worst), to see when the pauses come and how long they last.
#   BASE=dir NEW=dir bench/embedded-pauses/ab.sh RATE ROUNDS OUTDIR
# Each dir holds hookline, bench-load and bench-sink.
set -euo pipefail
cd "$(dirname "$0")/../.."
rate=${1:?usage: ab.sh RATE ROUNDS OUTDIR}; rounds=${2:?rounds}; outdir=${3:?outdir}; mkdir -p "$outdir"
WARMUP=2; DUP_SHARE=0.1; LOG_FILTER=info
REDIS_URL=  # the embedded store uses none
WORK=$(mktemp -d /tmp/hookline-embedded-pauses.XXXXXX)
. bench/lib/common.sh
. bench/lib/hookline.sh
redis_clear() { :; }
trap cleanup EXIT
trap 'exit 130' INT TERM
BIN=${BASE:?}; start_sink
for r in $(seq "$rounds"); do
  for arm in base new; do
    if [ "$arm" = base ]; then BIN=$BASE; else BIN=${NEW:?}; fi
    fresh_node "$arm" embedded yes sink
    load "$arm-$r" "$outdir/$arm-$r.json" --url "$HL_URL/webhooks/stripe/default" --rate "$rate" \
      --concurrency 64 --duration 20 --body-bytes 1024 --watch-pid "$HL_PID" \
      --sink "$SINK_URL/_sink/stats/sink" --drain-timeout 10
    stop_node
  done
done
python3 - "$outdir" <<'PY' | tee "$outdir/summary.txt"
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    p = json.load(open(f))
    slow = p.get("slow_answers") or []
    groups = []
    for t, ms in slow:
        if groups and t - groups[-1][1] < 0.5:
            g = groups[-1]; g[1] = t; g[2] += 1; g[3] = max(g[3], ms)
        else:
            groups.append([t, t, 1, ms])
    t0 = p["timeline"]["start_unix"]
    stretches = ", ".join(f"{g[0] - t0:.1f} s: {g[2]} over {g[3]:.0f} ms" for g in groups) or "none"
    print(f"{os.path.basename(f)[:-5]}: {p['ok_per_s']:.0f} 2xx/s, p99 {p['latency_ms']['p99']:.1f} ms, "
          f"p99.9 {p['latency_ms']['p99_9']:.1f} ms; stretches over 20 ms: {stretches}")
PY
