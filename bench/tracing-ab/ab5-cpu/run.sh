#!/usr/bin/env bash
# One Redis-only pass on the shared Redis and PostgreSQL (prefix hlprof,
# database hlprof), tracing on (OTLP to a bench-sink stand-in, ratio 1.0)
# or off, printing new events/s, p99, busy cores and the CPU ticks of
# hookline and the collector; `perf` records hookline for 8 s.
# usage: [BIN=dir] [RATE=n CONC=n] [OUT=dir] run.sh LABEL on|off [perf]
# The A/B of bench/FEATURES.md's fifth section ran, with binb/ and binn/
# holding each build's hookline beside the bench tools:
#   for r in 1 2 3; do for arm in b n; do for m in off on; do
#     RATE=8000 CONC=64 BIN=binARM run.sh $arm-$m-$r $m; done; done; done
set -u
cd "$(dirname "$0")/../../.." 
B=${BIN:-target/release}
label=$1; mode=$2; perf=${3:-}
d=${OUT:-/tmp/prof}/$label; rm -rf $d; mkdir -p $d
cport=18431; port=18432
$B/bench-sink --listen 127.0.0.1:$cport --workers 1 > $d/collector.log 2>&1 &
CP=$!
clear() { redis-cli --no-raw --scan --pattern "hlprof:*" | awk 'NR % 1000 == 1 { if (NR > 1) print ""; printf "UNLINK" } { printf " %s", $0 } END { if (NR) print "" }' | redis-cli >/dev/null; }
clear
psql -q -h 127.0.0.1 -U postgres -c 'drop database if exists hlprof' -c 'create database hlprof' postgres
cat > $d/hookline.toml <<T
[server]
listen = "127.0.0.1:$port"
[store]
kind = "redis"
redis_url = "redis://127.0.0.1:6379/0"
key_prefix = "hlprof"
database_url = "postgres://postgres@127.0.0.1:5432/hlprof"
[providers.stripe]
kind = "stripe"
critical = []
ack = "durable"
[providers.stripe.tenants.default]
secrets = ["whsec_bench_secret"]
T
if [ "$mode" = on ]; then printf '[telemetry]\notlp_endpoint = "http://127.0.0.1:%s"\nsample_ratio = 1.0\n' $cport >> $d/hookline.toml; fi
$B/hookline migrate --config $d/hookline.toml > $d/migrate.log 2>&1
RUST_LOG=info $B/hookline serve --config $d/hookline.toml > $d/serve.log 2>&1 &
HP=$!
for i in $(seq 50); do curl -fsS http://127.0.0.1:$port/readyz >/dev/null 2>&1 && break; sleep 0.2; done
PF=; if [ -n "$perf" ]; then (sleep 3; perf record -F 999 -g -p $HP -o $d/perf.data -- sleep 8 >/dev/null 2>&1) & PF=$!; fi
$B/bench-load --label $label --secret whsec_bench_secret --warmup 1 --url http://127.0.0.1:$port/webhooks/stripe/default ${RATE:+--rate $RATE} --concurrency ${CONC:-32} --duration 12 --body-bytes 1024 --watch-pid $HP --max-requests 400000 > $d/load.json 2> $d/load.err
[ -n "$PF" ] && wait $PF
python3 -c "import json;l=json.load(open('$d/load.json'));print('$label', l['accepted_per_s'], l['latency_ms']['p99'], (l.get('machine') or {}).get('busy_cores'))"
echo "cpu hookline $(awk "{print \$14+\$15}" /proc/$HP/stat) collector $(awk "{print \$14+\$15}" /proc/$CP/stat) redis $(awk "{print \$14+\$15}" /proc/$(pgrep -f "redis-server 127.0.0.1:6379")/stat)"
kill $HP $CP; wait $HP $CP 2>/dev/null; clear
