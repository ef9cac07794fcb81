#!/usr/bin/env bash
# The Redis-only path's closed-loop maximum (redis store, non-critical, no
# handler: what bench/run's redis-noncritical-nohandler scenario runs first:
# 32 connections, 15 s), alternating two builds on fresh nodes, with
# hookline's CPU per request from the load generator's watch.
#   BASE=dir NEW=dir redis_only.sh ROUNDS OUTDIR
# Each dir holds hookline, bench-load and bench-sink. Uses the shared Redis
# (BENCH_REDIS_URL) and PostgreSQL (BENCH_PG_URL, as bench/run; a database of its own).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
rounds=${1:?usage: redis_only.sh ROUNDS OUTDIR}; outdir=${2:?outdir}; mkdir -p "$outdir"
REDIS_URL="${BENCH_REDIS_URL:-redis://127.0.0.1:6379/0}"
PREFIX=hlonly; BODY_BYTES=1024; DUP_SHARE=0.1; WARMUP=2; LOG_FILTER=info
DB_NAME=hookline_redis_only
PG_ADMIN_URL="${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
DB_URL="${PG_ADMIN_URL%/*}/$DB_NAME"
WORK=$(mktemp -d /tmp/hookline-redis-only.XXXXXX); PARTS=$WORK
. bench/lib/common.sh
. bench/lib/hookline.sh
trap cleanup EXIT
REDIS_HOST=127.0.0.1; REDIS_PORT=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).port or 6379)' "$REDIS_URL"); REDIS_DB=0
BIN=${BASE:?}; start_sink
for r in $(seq "$rounds"); do
  for arm in base new; do
    if [ "$arm" = base ]; then BIN=$BASE; else BIN=${NEW:?}; fi
    fresh_node "$arm" redis no ""
    load "$arm-$r" "$outdir/$arm-$r.json" --url "$HL_URL/webhooks/stripe/default" \
      --concurrency 32 --duration 15 --body-bytes "$BODY_BYTES" --watch-pid "$HL_PID"
    stop_node
  done
done
python3 - "$outdir" <<'PY'
import json, glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(f)); procs = r.get("processes") or [{}]
    cpu = procs[0].get("cores")
    per = f", hookline {cpu:.2f} cores = {1000 * cpu / r['ok_per_s']:.4f} ms CPU per request" if cpu else ""
    print(f"{os.path.basename(f)[:-5]}: {r['ok_per_s']:.0f} 2xx/s, new {r['accepted_per_s']:.0f}/s, p99 {r['latency_ms']['p99']:.2f} ms{per}")
PY
