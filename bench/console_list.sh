#!/usr/bin/env bash
# How fast the console lists events on a store holding a million events
# (issue 14): fills an embedded (SQLite) store and a PostgreSQL database
# with ROWS accepted critical events (processed_event), ROWS deliveries and
# ROWS verdict log entries (request_verdict), serves each with `hookline serve`, signs
# in and times the console's pages with curl (median of 5, whole request).
#
#   bench/console_list.sh [ROWS]        (default 1000000)
#
# Needs sqlite3, psql, curl, a local Redis and PostgreSQL (as scripts/test),
# and a hookline built from this checkout (HOOKLINE, default
# $CARGO_TARGET_DIR/debug/hookline). Prints one Markdown table per store.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=${1:-1000000}
target=${CARGO_TARGET_DIR:-target}
bin=${HOOKLINE:-$target/debug/hookline}
pg_admin=${HOOKLINE_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
redis=${HOOKLINE_TEST_REDIS_URL:-redis://127.0.0.1:6379/0}
token=bench-console-token-0123456789
work=$(mktemp -d)
db=hookline_console_bench_$$
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  psql "$pg_admin" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The deliveries: 4 providers x 10 tenants, 20 event types (one of them rare:
# 1 row in 10,000), 1 in 49 dead, the rest delivered, created over 30 days.
fill_sql() {
  local series=$1
  cat <<SQL
INSERT INTO delivery (provider, tenant, event_id, handler, event_type, body, state, attempts,
                      next_attempt_ms, created_ms, updated_ms, last_status)
SELECT (ARRAY['stripe','github','shopify','slack'])[1 + n % 4],
       't' || (n % 10), 'evt_' || n, 'billing',
       CASE WHEN n % 10000 = 7 THEN 'rare.type' ELSE 'type.' || (n % 19) END,
       '{}',
       CASE WHEN n % 49 = 0 THEN 'dead' ELSE 'delivered' END, 1,
       0, $now - ($rows - n) * 2592, $now - ($rows - n) * 2592,
       CASE WHEN n % 49 = 0 THEN 500 ELSE 200 END
FROM $series;
SQL
}
now=$(($(date +%s) * 1000))

config() {
  cat <<TOML
[server]
listen = "127.0.0.1:$1"
$2
[admin]
token = "$token"
[dedup]
window = "60d"
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.t1]
secrets = ["whsec_bench"]
TOML
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Median seconds of 5 GETs of $1 with the session.
timed() {
  for _ in 1 2 3 4 5; do
    curl -s -o /dev/null -b "$work/jar" -w '%{time_total}\n' "$base$1"
  done | sort -n | sed -n 3p
}

measure() {
  local name=$1 store=$2 port
  port=$(free_port)
  config "$port" "$store" >"$work/$name.toml"
  "$bin" migrate --config "$work/$name.toml" >/dev/null
  "$3"
  "$bin" serve --config "$work/$name.toml" >"$work/$name.log" 2>&1 &
  server=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
  curl -s -o /dev/null -c "$work/jar" -H "Origin: $base" --data-urlencode "token=$token" "$base/console/sign-in"
  # Signed in: both lists answer with rows.
  for list in deliveries accepted requests; do
    curl -s -b "$work/jar" -o "$work/page.html" "$base/console/events?list=$list"
    grep -q 'evt_' "$work/page.html" || { echo "no rows listed:" >&2; cat "$work/page.html" "$work/$name.log" >&2; exit 1; }
  done
  local since
  since=$(date -u -d @$(((now / 1000) - 86400)) +%Y-%m-%dT%H:%M)
  echo
  echo "### $name, $rows accepted events, $rows deliveries and $rows verdicts ($bin)"
  echo
  echo "| page | median |"
  echo "|---|---|"
  for page in \
    "/console/live" \
    "/console/events" \
    "/console/events?tenant=t3" \
    "/console/events?provider=github&state=dead" \
    "/console/events?since=$since" \
    "/console/events?before=$((rows / 2))" \
    "/console/events?event_id=evt_$((rows / 3))" \
    "/console/events?event_type=rare.type" \
    "/console/events?list=accepted" \
    "/console/events?list=accepted&tenant=t3&before=$((rows / 2))" \
    "/console/events?list=accepted&event_type=rare.type" \
    "/console/events?list=requests" \
    "/console/events?list=requests&outcome=duplicate" \
    "/console/events?list=requests&outcome=conflict&tenant=t1" \
    "/console/events?list=requests&outcome=replay" \
    "/console/events?list=requests&since=$since" \
    "/console/events?list=requests&outcome=duplicate&before=$((rows / 2))" \
    "/console/events?list=requests&provider=github&tenant=t1&event_id=evt_$((rows / 3 / 20 * 20 + 1))" \
    "/console/events/stripe/t1/evt_$((rows - 3))" \
    "/console/dead-letters?tenant=t1" \
    "/console/dead-letters/replay-all?provider=github"; do
    printf '| `%s` | %.0f ms |\n' "$page" "$(echo "$(timed "$page") * 1000" | bc -l)"
  done
  kill "$server"; wait "$server" 2>/dev/null || true; server=
}

# The same events accepted as critical: one processed_event row each.
# $1 is the provider expression, $2 the received_at expression (of ms),
# $3 the series.
processed_sql() {
  cat <<SQL
INSERT INTO processed_event (provider, tenant, event_id, event_type, body_sha256, body, received_at)
SELECT $1, 't' || (n % 10), 'evt_' || n,
       CASE WHEN n % 10000 = 7 THEN 'rare.type' ELSE 'type.' || (n % 19) END,
       '00', '{}', $2
FROM $3;
SQL
}

# The verdict log: one entry per request over 30 days, 1 in 5 a duplicate,
# 1 in 100 a conflict, 1 in 10,000 a replay, the rest accepted. $1 is the
# provider expression, $2 the digest expression, $3 the series.
verdict_sql() {
  cat <<SQL
INSERT INTO request_verdict (provider, tenant, event_id, event_type, verdict, body_sha256,
                             body_bytes, received_ms)
SELECT $1, 't' || (n % 10), 'evt_' || n,
       CASE WHEN n % 10000 = 7 THEN 'rare.type' ELSE 'type.' || (n % 19) END,
       CASE WHEN n % 10000 = 3 THEN 'replay' WHEN n % 100 = 1 THEN 'conflict'
            WHEN n % 5 = 0 THEN 'duplicate' ELSE 'accepted' END,
       $2, 120, $now - ($rows - n) * 2592
FROM $3;
SQL
}

fill_embedded() {
  sqlite3 "$work/hookline.db" "$(processed_sql "CASE n % 4 WHEN 0 THEN 'stripe' WHEN 1 THEN 'github' WHEN 2 THEN 'shopify' ELSE 'slack' END" \
    "strftime('%Y-%m-%dT%H:%M:%fZ', ($now - ($rows - n) * 2592) / 1000.0, 'unixepoch')" \
    "(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < $rows) SELECT n FROM s)")"
  sqlite3 "$work/hookline.db" "$(verdict_sql "CASE n % 4 WHEN 0 THEN 'stripe' WHEN 1 THEN 'github' WHEN 2 THEN 'shopify' ELSE 'slack' END" \
    "zeroblob(32)" \
    "(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < $rows) SELECT n FROM s)")"
  sqlite3 "$work/hookline.db" "$(fill_sql "(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < $rows) SELECT n FROM s)" | sed "s/(ARRAY\['stripe','github','shopify','slack'\])\[1 + n % 4\]/CASE n % 4 WHEN 0 THEN 'stripe' WHEN 1 THEN 'github' WHEN 2 THEN 'shopify' ELSE 'slack' END/")"
}
fill_postgres() {
  psql "${pg_admin%/*}/$db" -q -c "$(fill_sql "generate_series(CAST(1 AS BIGINT), $rows) AS n")" \
    -c "$(processed_sql "(ARRAY['stripe','github','shopify','slack'])[1 + n % 4]" \
      "to_timestamp(($now - ($rows - n) * 2592) / 1000.0)" "generate_series(CAST(1 AS BIGINT), $rows) AS n")" \
    -c "$(verdict_sql "(ARRAY['stripe','github','shopify','slack'])[1 + n % 4]" \
      "decode(repeat('00', 32), 'hex')" "generate_series(CAST(1 AS BIGINT), $rows) AS n")" \
    -c "VACUUM ANALYZE delivery" -c "VACUUM ANALYZE processed_event" \
    -c "VACUUM ANALYZE request_verdict" >/dev/null
}

measure embedded "[store]
kind = \"embedded\"
path = \"$work/hookline.db\"" fill_embedded

psql "$pg_admin" -qc "CREATE DATABASE $db" >/dev/null
measure postgres "[store]
kind = \"redis\"
redis_url = \"$redis\"
key_prefix = \"bench$$\"
database_url = \"${pg_admin%/*}/$db\"" fill_postgres
