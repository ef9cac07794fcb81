# Baselines of bench/run (sourced): what the same machine does without
# hookline, for the ratios of issue 12's targets.

# (a) A bare actix-web endpoint, driven by the same load generator.
run_bare() { # body-bytes out
  local bytes=$1 out=$2 port pid
  port=$(free_port)
  "$BIN/bench-bare" --listen "127.0.0.1:$port" >"$WORK/bare.log" 2>&1 &
  pid=$!; PIDS+=("$pid")
  wait_http "http://127.0.0.1:$port/" 10 || die "bench-bare did not start"
  load "bare-$bytes" "$out" --url "http://127.0.0.1:$port/webhooks/stripe/default" \
    --concurrency "$CONCURRENCY" --duration "$DURATION" \
    --body-bytes "$bytes" --watch-pid "$pid" --max-requests 300000 --cycle
  stop_pid "$pid"
}

# (b) redis-benchmark running claim.lua by EVALSHA: what Redis alone does
# with hookline's first script.
run_redis_benchmark() { # out
  local out=$1 sha n="${BENCH_RB_REQUESTS:-400000}" c="${BENCH_RB_CLIENTS:-50}"
  redis_clear
  sha=$(redis_cli SCRIPT LOAD "$(cat lua/claim.lua)")
  # Key shaped like hookline's (same prefix, hash tag and ID length); ARGV: a
  # 16-byte digest, a 16-byte owner token, in_progress_ttl in ms.
  local cmd=(EVALSHA "$sha" 1 "$PREFIX:rb:{stripe:default}:evt___rand_int__"
             "0123456789abcdef" "fedcba9876543210" 60000)
  redis-benchmark -h "$REDIS_HOST" -p "$REDIS_PORT" --dbnum "$REDIS_DB" -n "$n" -c "$c" \
    -r 1000000000 --csv "${cmd[@]}" >"$WORK/rb.csv" 2>"$WORK/rb.err" || { cat "$WORK/rb.err" >&2; die "redis-benchmark failed"; }
  python3 - "$WORK/rb.csv" "$n" "$c" "${cmd[*]}" >"$out" <<'PY'
import csv,json,sys
rows=list(csv.reader(open(sys.argv[1])))
d=dict(zip(rows[0],rows[-1]))
out={"requests":int(sys.argv[2]),"clients":int(sys.argv[3]),"command":sys.argv[4],
     "requests_per_s":float(d["rps"])}
for k in ("avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"):
    if k in d: out[k]=float(d[k])
print(json.dumps(out))
PY
  log "    claim.lua: $(jget "$out" 'round(d["requests_per_s"])') calls/s"
  redis_clear
}

# (c) pgbench, a single-row INSERT ... ON CONFLICT DO NOTHING into a
# processed_event-shaped table: the critical scenario's target is half of
# this. Run at the start and again at the end: the second run shows how
# much the machine drifted during the benchmark.
run_pgbench() { # out
  local out=$1 clients="${BENCH_PGBENCH_CLIENTS:-16}"
  db_recreate
  psql "$DB_URL" -Atq >/dev/null <<'SQL'
CREATE TABLE bench_processed_event (
    id           BIGSERIAL   PRIMARY KEY,
    provider     TEXT        NOT NULL,
    tenant       TEXT        NOT NULL,
    event_id     TEXT        NOT NULL,
    event_type   TEXT        NOT NULL,
    body_sha256  BYTEA       NOT NULL,
    body         BYTEA       NOT NULL,
    content_type TEXT,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (provider, tenant, event_id)
);
SQL
  cat >"$WORK/insert.sql" <<SQL
\set id random(1, 1000000000)
INSERT INTO bench_processed_event (provider, tenant, event_id, event_type, body_sha256, body, content_type)
VALUES ('stripe', 'default', 'evt_' || :id, 'payment_intent.succeeded',
        sha256(('evt_' || :id)::bytea), convert_to(repeat('x', $BODY_BYTES), 'UTF8'), 'application/json')
ON CONFLICT (provider, tenant, event_id) DO NOTHING;
SQL
  pgbench -n -M prepared -c "$clients" -j 2 -T "$DURATION" -f "$WORK/insert.sql" "$DB_URL" >"$WORK/pgbench.out" 2>&1 || { cat "$WORK/pgbench.out" >&2; die "pgbench failed"; }
  python3 - "$WORK/pgbench.out" "$clients" "$DURATION" "$WORK/insert.sql" >"$out" <<'PY'
import json,re,sys
t=open(sys.argv[1]).read()
tps=float(re.search(r"tps = ([0-9.]+) \(without initial connection time\)",t).group(1))
lat=re.search(r"latency average = ([0-9.]+) ms",t)
print(json.dumps({"tps":tps,"clients":int(sys.argv[2]),"duration_s":float(sys.argv[3]),
  "latency_avg_ms":float(lat.group(1)) if lat else None,"script":open(sys.argv[4]).read(),
  "command":f"pgbench -n -M prepared -c {sys.argv[2]} -j 2 -T {sys.argv[3]} -f insert.sql"}))
PY
  log "    pgbench: $(jget "$out" 'round(d["tps"])') tps"
}
