#!/usr/bin/env bash
# Is the CPU itself slower during the answers' pauses? (issue 25, item 4;
# bench/NOTES.md, "Run 23".) fixed_work.py times the same small loop
# every 2 ms by this thread's CPU time: first 15 s on the idle machine,
# then beside a Redis-only probe (bench/tracing-ab/ab5-cpu/run.sh: 2,300
# requests/s offered for 12 s, no PostgreSQL on the path, tracing off);
# coincide.py says whether each pause of 20 ms or more in the probe's
# answers holds rounds of that loop that took over three times its
# median CPU time, against how often a random 50 ms window does.
#   bench/pauses/vcpu/run.sh [OUT]     # default bench/pauses/vcpu/<date-time>
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=bench/pauses/vcpu
out=${1:-$here/$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
python3 $here/fixed_work.py 15 "$out/idle.json" | sed 's/^/idle: /' | tee "$out/results.txt"
python3 $here/fixed_work.py 22 "$out/under-load.json" > "$out/under-load.txt" &
work=$!
RATE=2300 CONC=64 OUT=/tmp/hookline-vcpu bench/tracing-ab/ab5-cpu/run.sh probe off | sed 's/^/probe: /' | tee -a "$out/results.txt"
wait $work
sed 's/^/beside the probe: /' "$out/under-load.txt" | tee -a "$out/results.txt"
rm "$out/under-load.txt"
cp /tmp/hookline-vcpu/probe/load.json "$out/probe-load.json"
python3 $here/coincide.py "$out/under-load.json" "$out/probe-load.json" | tee -a "$out/results.txt"
gzip -f "$out/idle.json" "$out/under-load.json"
