#!/usr/bin/env bash
# PostgreSQL work per delivered event (issue 25, item 1).
#
#   bench/lib/pg_per_event.sh                      # critical events, 500/s for 20 s
#   PG_EVENTS_RATE=1000 PG_EVENTS_DURATION=30 bench/lib/pg_per_event.sh
#   PG_EVENTS_CRITICAL=no bench/lib/pg_per_event.sh
#
# Starts a private PostgreSQL (initdb and pg_ctl in a temporary directory,
# `shared_preload_libraries = pg_stat_statements`, the shared server is
# never touched), the counting sink (one handler answering 200 at once)
# and a hookline node on the redis store (the local Redis, its own key
# prefix) with that database. Resets `pg_stat_statements`, reads the CPU
# time of every PostgreSQL process (/proc/PID/stat), drives the node with
# bench-load at a fixed rate, waits for the deliveries to drain, and reads
# both again. Prints, per delivered event: statements' total execution
# time and the PostgreSQL processes' CPU time, in ms; then the statements
# that cost the most. Raw output is kept in $PG_EVENTS_OUT if set, with
# the figures as summary.json (what bench/run's report reads).
#
# Knobs (environment): PG_EVENTS_RATE (offered requests/s, 500),
# PG_EVENTS_DURATION (measured s, 20), PG_EVENTS_CRITICAL (yes),
# PG_EVENTS_STORE (redis, or redis-streams: `non_critical_deliveries =
# "redis"`),
# PG_EVENTS_PROFILE (cargo profile of the binaries: release or debug,
# release), BENCH_REDIS_URL, BENCH_PREFIX, BENCH_BODY_BYTES (1024),
# BENCH_DUP_SHARE (0.1), PG_EVENTS_EXPLAIN and PG_EVENTS_PAUSES (see below), PG_EVENTS_OUT (a directory for the raw data),
# PG_EVENTS_SQL (statements run on the migrated database before the load:
# a schema experiment), PG_EVENTS_WARM (seconds of an unmeasured pass
# first, see below),
# PG_EVENTS_BIN (a directory holding hookline, bench-load and bench-sink
# already built, for an A/B against another commit: nothing is built).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

RATE="${PG_EVENTS_RATE:-500}"
DURATION="${PG_EVENTS_DURATION:-20}"
CRITICAL="${PG_EVENTS_CRITICAL:-yes}"
STORE="${PG_EVENTS_STORE:-redis}"  # redis-streams: non-critical deliveries in Redis Streams
PROFILE="${PG_EVENTS_PROFILE:-release}"
REDIS_URL="${BENCH_REDIS_URL:-redis://127.0.0.1:6379/0}"
PREFIX="${BENCH_PREFIX:-hlpgev}"
BODY_BYTES="${BENCH_BODY_BYTES:-1024}"
DUP_SHARE="${BENCH_DUP_SHARE:-0.1}"
WARMUP=1
LOG_FILTER="${BENCH_RUST_LOG:-info}"
DB_NAME=hookline_pg_per_event
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
BIN="${PG_EVENTS_BIN:-$CARGO_TARGET_DIR/$PROFILE}"
[ "$PROFILE" = debug ] || [ "$PROFILE" = release ] || { echo "PG_EVENTS_PROFILE: release or debug" >&2; exit 2; }

CLK_TCK=$(getconf CLK_TCK)
WORK=$(mktemp -d /tmp/hookline-pg-per-event.XXXXXX)
PARTS="$WORK/parts"
mkdir -p "$PARTS"
. bench/lib/common.sh
. bench/lib/hookline.sh

. bench/lib/private_pg.sh
trap 'stop_private_pg; cleanup' EXIT
trap 'exit 130' INT TERM

# ---- the private PostgreSQL --------------------------------------------------
private_pg_init "$WORK"
# PG_EVENTS_PAUSES=1: the server logs what could pause a request, with
# millisecond timestamps (bench/lib/pauses.sh lines them up with the slow
# answers): checkpoints, autovacuum and autoanalyze, statements over
# 20 ms, lock waits over 20 ms.
if [ -n "${PG_EVENTS_PAUSES:-}" ]; then
  cat >>"$PGDATA/postgresql.conf" <<CONF
log_checkpoints = on
log_autovacuum_min_duration = 0
log_min_duration_statement = 20
log_lock_waits = on
deadlock_timeout = '20ms'
log_line_prefix = '%m [%p] '
synchronous_commit = ${PG_EVENTS_SYNC_COMMIT:-on}
CONF
fi
# PG_EVENTS_EXPLAIN=MS: the plans of statements slower than MS in the
# server's log (kept in $PG_EVENTS_OUT), to see why a statement costs.
# PG_EVENTS_EXPLAIN_ANALYZE=1 adds each plan node's actual rows and times.
if [ -n "${PG_EVENTS_EXPLAIN:-}" ]; then
  printf "shared_preload_libraries = 'pg_stat_statements,auto_explain'\nauto_explain.log_min_duration = '%sms'\n" \
    "$PG_EVENTS_EXPLAIN" >>"$PGDATA/postgresql.conf"
  [ -n "${PG_EVENTS_EXPLAIN_ANALYZE:-}" ] \
    && printf "auto_explain.log_analyze = on\nauto_explain.log_buffers = on\n" >>"$PGDATA/postgresql.conf"
fi
private_pg_start "$WORK"
PG_ADMIN_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
DB_URL="postgres://postgres@127.0.0.1:$PG_PORT/$DB_NAME"
POSTMASTER=$(head -n 1 "$PGDATA/postmaster.pid")

url_part() { python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"; }
REDIS_HOST=$(url_part "$REDIS_URL" 'p.hostname or "127.0.0.1"')
REDIS_PORT=$(url_part "$REDIS_URL" 'p.port or 6379')
REDIS_DB=$(url_part "$REDIS_URL" '(p.path or "/0").strip("/") or 0')
redis_cli ping >/dev/null || die "Redis at $REDIS_URL does not answer"

# ---- build, sink, node -------------------------------------------------------
if [ -n "${PG_EVENTS_BIN:-}" ]; then
  log "binaries from $BIN"
elif [ "$PROFILE" = release ]; then
  log "cargo build --release: hookline and the benchmark tools"
  cargo build --release -q -p hookline -p hookline-bench --bins
else
  log "cargo build: hookline and the benchmark tools"
  cargo build -q -p hookline -p hookline-bench --bins
fi
start_sink
fresh_node pg-per-event "$STORE" "$CRITICAL" sink
psql "$DB_URL" -Atqc 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' >/dev/null
# An experiment's schema change, run once the node has migrated the
# database (for example `DROP INDEX delivery_due`): what a row or an
# index costs, measured before a migration is written for it.
if [ -n "${PG_EVENTS_SQL:-}" ]; then
  log "schema experiment: $PG_EVENTS_SQL"
  psql "$DB_URL" -v ON_ERROR_STOP=1 -Atqc "$PG_EVENTS_SQL" >/dev/null
fi

# The CPU ticks of the postmaster and its children, a line each: PID,
# user + system, the process's kind, user, system.
pg_cpu() { # out-file
  local pid
  for pid in "$POSTMASTER" $(pgrep -P "$POSTMASTER"); do
    [ -r "/proc/$pid/stat" ] || continue
    # Its kind, from the process title: `postgres: walwriter` and the like,
    # or a backend's `postgres: USER DB HOST(PORT) STATE`.
    local kind
    kind=$(tr '\0' ' ' <"/proc/$pid/cmdline" | awk '$1 != "postgres:" { print "postmaster"; next }
      $2 ~ /^(checkpointer|walwriter|archiver)$/ { print $2; next }
      $2 ~ /^(autovacuum|background|logical)$/ { print $2 "-" $3; next }
      { print "backend" }')
    # Fields 14 and 15 (utime, stime) after the command in parentheses.
    sed 's/^.*) //' "/proc/$pid/stat" | awk -v pid="$pid" -v kind="$kind" '{ print pid, $12 + $13, kind, $12, $13 }'
  done >"$1"
}

# ---- measure -----------------------------------------------------------------
sleep 2   # the node's start-up statements are not the events'
# PG_EVENTS_WARM=S: an unmeasured pass of S seconds at the same rate first,
# on the same node and database, so that the measured events find tables
# that already hold rows (a running deployment's state): what tables
# growing from empty cost (their first ANALYZEs, src/store/postgres/stats.rs)
# falls outside the measurement.
if [ "${PG_EVENTS_WARM:-0}" != 0 ]; then
  log "warm-up pass: $RATE requests/s for ${PG_EVENTS_WARM}s, not measured"
  load pg-per-event-warm "$WORK/warm.json" --url "$HL_URL/webhooks/stripe/default" --rate "$RATE" \
    --concurrency 64 --duration "$PG_EVENTS_WARM" --body-bytes "$BODY_BYTES" \
    --sink "$SINK_URL/_sink/stats/sink" --drain-timeout 30
  sleep 2
fi
psql "$DB_URL" -Atqc 'SELECT pg_stat_statements_reset()' >/dev/null
sink_reset
pg_cpu "$WORK/cpu.before"
# Which process is which, for bench/lib/pauses.sh (`perf sched` knows
# threads by PID; every tokio program's threads have the same names).
{
  echo "hookline $HL_PID"
  for pid in "$POSTMASTER" $(pgrep -P "$POSTMASTER"); do echo "postgres $pid"; done
  echo "redis $(redis_cli info server | tr -d '\r' | sed -n 's/^process_id://p')"
  for pid in $(pgrep -f "bench-sink --listen 127.0.0.1:$SINK_PORT"); do echo "bench-sink $pid"; done
} >"$WORK/pids"
log "load: $RATE requests/s for ${DURATION}s (+${WARMUP}s warm-up), critical $CRITICAL, $BODY_BYTES-byte bodies"
load pg-per-event "$WORK/load.json" --url "$HL_URL/webhooks/stripe/default" --rate "$RATE" \
  --concurrency 64 --duration "$DURATION" --body-bytes "$BODY_BYTES" \
  --sink "$SINK_URL/_sink/stats/sink" --drain-timeout 30
sleep 1   # outcomes of the last deliveries are group-committed after the answer
pg_cpu "$WORK/cpu.after"
curl -fsS "$SINK_URL/_sink/stats/sink" >"$WORK/sink.json"
psql "$DB_URL" -AtqF $'\t' -c "
  SELECT round(total_exec_time::numeric, 3), calls, rows,
         regexp_replace(left(query, 90), '\s+', ' ', 'g')
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  ORDER BY total_exec_time DESC" >"$WORK/statements.tsv"
psql "$DB_URL" -AtqF $'\t' -c "
  SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, pg_total_relation_size(relid)
  FROM pg_stat_user_tables ORDER BY relname" >"$WORK/tables.tsv"
stop_node

python3 - "$WORK" "$CLK_TCK" "$RATE" "$DURATION" "$CRITICAL" "$STORE" "${PG_EVENTS_WARM:-0}" <<'PY'
import json, sys, os
work, tck = sys.argv[1], int(sys.argv[2])
def cpu(name):
    """PID -> (user + system ticks, kind, system ticks), as pg_cpu wrote them."""
    rows = (l.split() for l in open(os.path.join(work, name)) if l.strip())
    return {r[0]: (int(r[1]), r[2], int(r[4])) for r in rows}
before, after = cpu("cpu.before"), cpu("cpu.after")
# A process that started during the load counts from zero; one that ended
# is lost (the pool keeps its connections, so that is background workers).
ticks, sys_ticks, by_kind = 0, 0, {}
for pid, (t, kind, s) in after.items():
    t0, _, s0 = before.get(pid, (0, kind, 0))
    ticks, sys_ticks = ticks + t - t0, sys_ticks + s - s0
    by_kind[kind] = by_kind.get(kind, 0) + t - t0
delivered = json.load(open(os.path.join(work, "sink.json")))["distinct"]
stmts = [l.rstrip("\n").split("\t") for l in open(os.path.join(work, "statements.tsv")) if l.strip()]
exec_ms = sum(float(s[0]) for s in stmts)
load = json.load(open(os.path.join(work, "load.json")))
print(f"delivered events: {delivered} (offered {load['requests_per_s']:.0f} req/s, "
      f"new {load['accepted_per_s']:.0f}/s, p99 {load['latency_ms']['p99']:.2f} ms)")
if delivered == 0:
    sys.exit("no event delivered")
print(f"pg_stat_statements: {exec_ms / delivered:.4f} ms of execution per delivered event "
      f"({exec_ms:.0f} ms in {sum(int(s[1]) for s in stmts)} calls)")
print(f"PostgreSQL CPU:     {ticks * 1000 / tck / delivered:.4f} ms per delivered event "
      f"({ticks / tck:.2f} s in {len(after)} processes)")
print("  by process: " + ", ".join(f"{k} {v * 1000 / tck / delivered:.4f}"
                                     for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1]) if v)
      + f"; in the kernel (system time) {sys_ticks * 1000 / tck / delivered:.4f}")
print("top statements (ms per event, calls per event, text):")
for s in stmts[:8]:
    print(f"  {float(s[0]) / delivered:.4f}  {int(s[1]) / delivered:.2f}  {s[3]}")
print("tables (inserts, updates, HOT updates, bytes):")
for l in open(os.path.join(work, "tables.tsv")):
    print("  " + l.rstrip("\n").replace("\t", "  "))
# The same figures for bench/run's report (bench/report_issue25.py).
json.dump({
    "delivered": delivered,
    "offered_per_s": load["requests_per_s"],
    "new_per_s": load["accepted_per_s"],
    "p99_ms": load["latency_ms"]["p99"],
    "exec_ms_per_event": exec_ms / delivered,
    "cpu_ms_per_event": ticks * 1000 / tck / delivered,
    "calls_per_event": sum(int(s[1]) for s in stmts) / delivered,
    "cpu_ms_per_event_by_process": {k: v * 1000 / tck / delivered for k, v in by_kind.items()},
    "cpu_system_ms_per_event": sys_ticks * 1000 / tck / delivered,
    "top": [{"ms_per_event": float(s[0]) / delivered, "calls_per_event": int(s[1]) / delivered,
             "text": s[3]} for s in stmts[:5]],
    "settings": dict(zip(("rate", "duration_s", "critical", "store", "warm_s"), sys.argv[3:8])),
}, open(os.path.join(work, "summary.json"), "w"), indent=1)
PY
if [ -n "${PG_EVENTS_OUT:-}" ]; then
  mkdir -p "$PG_EVENTS_OUT"
  cp "$WORK"/{load.json,sink.json,statements.tsv,tables.tsv,cpu.before,cpu.after,summary.json} "$PG_EVENTS_OUT/"
  cp "$(dirname "$HL_CONFIG")/serve.log" "$PG_EVENTS_OUT/hookline.log"
  cp "$WORK/pids" "$PG_EVENTS_OUT/pids"
  cp "$HL_CONFIG" "$PG_EVENTS_OUT/hookline.toml"
  cp "$WORK/postgres.log" "$PG_EVENTS_OUT/postgres.log"
fi
