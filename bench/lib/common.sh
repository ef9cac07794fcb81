# Helpers of bench/run (sourced): logging, processes, the shared stores,
# the sink, and the load generator wrapper. Expects bench/run's knobs
# (REDIS_*, PG_ADMIN_URL, DB_URL, PREFIX, BIN, WORK, PARTS, SECRET, ...).

# What every pass signs with: the load generator's Stripe secret and the
# handlers' signing secret (the sink checks neither). Where a script sets
# no sink knobs: the slow handler held 30 s, no per-handler limit.
SECRET="whsec_bench_secret"
HANDLER_SIGNING_SECRET="whsec_YmVuY2gtc2luay1zaWduaW5nLWtleQ=="
SLOW_HOLD="${SLOW_HOLD:-30s}"
HANDLER_CONCURRENCY="${HANDLER_CONCURRENCY-}"

log() { printf '==> %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Every process bench/run starts, stopped on exit whatever happens.
PIDS=()

cleanup() {
  local rc=$?
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  # Bounded wait, then force.
  for _ in $(seq 50); do
    local alive=0
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  redis_clear || true
  if [ "$rc" -ne 0 ]; then log "failed; logs kept in $WORK"; else rm -rf "$WORK"; fi
  exit "$rc"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_http() { # url seconds [curl flags]: an answer (with -f: a 2xx) means up
  local url=$1 n=$(( $2 * 10 )); shift 2
  for _ in $(seq "$n"); do
    curl -sS "$@" -o /dev/null "$url" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

stop_pid() { # pid: TERM, bounded wait, KILL
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

# A JSON field of a file: jget FILE EXPR, EXPR in Python over `d`.
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ---- the shared stores ---------------------------------------------------------
redis_cli() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" -n "$REDIS_DB" "$@"; }

redis_clear() { # delete every key under our prefix (bounded: SCAN ends)
  # Dedup keys are binary: --no-raw prints each one quoted, and redis-cli
  # reads quoted arguments back from stdin; 1000 keys per UNLINK.
  redis_cli --no-raw --scan --pattern "$PREFIX:*" \
    | awk 'NR % 1000 == 1 { if (NR > 1) print ""; printf "UNLINK" } { printf " %s", $0 } END { if (NR) print "" }' \
    | redis_cli >/dev/null
}

db_recreate() {
  # CHECKPOINT after the drop: dropping the previous pass's database (a
  # million rows and more) leaves the checkpointer and the disk busy, and
  # the next pass measured 10k instead of 20k pgbench tps. Each pass starts
  # from a flushed, quiet server instead.
  # (client_min_messages: no NOTICE that the database did not exist yet.)
  PGOPTIONS='-c client_min_messages=warning' psql "$PG_ADMIN_URL" -Atq -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" -c "CREATE DATABASE $DB_NAME" -c "CHECKPOINT" >/dev/null
  sleep 1
}

# ---- the sink: one for the whole run, one path per handler -------------------
start_sink() {
  SINK_PORT=$(free_port)
  # The slow handler of the isolation scenario is held past its timeout.
  "$BIN/bench-sink" --listen "127.0.0.1:$SINK_PORT" --workers 1 --hold "slow=$SLOW_HOLD" >"$WORK/sink.log" 2>&1 &
  PIDS+=("$!")
  SINK_URL="http://127.0.0.1:$SINK_PORT"
  wait_http "$SINK_URL/_sink/stats/sink" 10 || die "sink did not start"
}

sink_reset() { curl -fsS -X POST -o /dev/null "$SINK_URL/_sink/reset"; }

# ---- the load generator --------------------------------------------------------
load() { # label out-file [bench-load args...]
  local label=$1 out=$2; shift 2
  "$BIN/bench-load" --label "$label" --secret "$SECRET" --warmup "$WARMUP" \
    --dup-share "$DUP_SHARE" "$@" >"$out" 2>"$out.err" || { cat "$out.err" >&2; die "load $label failed"; }
  python3 - "$out" <<'PY' >&2
import json,sys
r=json.load(open(sys.argv[1]))
l=r["latency_ms"]; d=r.get("deliveries") or {}
line=(f'    {r["label"]}: {r["requests_per_s"]:.0f} req/s (2xx {r["ok_per_s"]:.0f}/s, new {r["accepted_per_s"]:.0f}/s), '
      f'p50 {l["p50"]:.2f} ms, p99 {l["p99"]:.2f} ms, status {r["status"]}, errors {r["errors"]}')
if d:
    line+=f', delivered {d["per_second"]:.0f}/s, backlog at end {d.get("backlog_at_end")}'
print(line)
PY
}
