#!/usr/bin/env bash
# usage: [OUT=dir] [TOKIO_WORKER_THREADS=n] [STORE=redis|redis-streams] [CRITICAL=yes|no] bench/streams-ab/runtime-threads/cpu_ab.sh ARM ROUND RATE  (binaries in /tmp/bin-ARM)
# hookline's CPU (utime+stime from /proc) over 12 s of a pg_per_event.sh pass on the streams
# path, 4 s after the load starts, per offered request. cpu-4500.txt: ARM h (the head), rounds tN (default) and oneN (TOKIO_WORKER_THREADS=1), alternated.
cd "$(dirname "$0")/../../.."
arm=$1; r=$2; rate=$3; out=${OUT:-/tmp/box-cpu}/$arm-$r; mkdir -p ${OUT:-/tmp/box-cpu}
PG_EVENTS_BIN=/tmp/bin-$arm PG_EVENTS_STORE=${STORE:-redis-streams} PG_EVENTS_CRITICAL=${CRITICAL:-no} PG_EVENTS_RATE=$rate PG_EVENTS_DURATION=20 PG_EVENTS_OUT=$out bench/lib/pg_per_event.sh > $out.log 2>&1 &
bg=$!
pid=
for i in $(seq 1 200); do pid=$(pgrep -f "hookline serve" | head -1); [ -n "$pid" ] && break; sleep 0.1; done
# wait for the load to start (bench-load process), then 4 s more
for i in $(seq 1 300); do pgrep -f "bench-load" >/dev/null && break; sleep 0.1; done
sleep 4
t0=$(awk '{print $14+$15}' /proc/$pid/stat); s0=$(date +%s.%N)
sleep 12
t1=$(awk '{print $14+$15}' /proc/$pid/stat); s1=$(date +%s.%N)
wait $bg
python3 -c "
hz=100; c=($t1-$t0)/hz; w=$s1-$s0
print(f'$arm-$r: hookline {c/w:.3f} cores at $rate req/s: {1000*c/w/$rate:.4f} ms CPU per request')"
grep 'pg-per-event:' $out.log | sed 's/.*(2xx/    (2xx/' | cut -c1-190
