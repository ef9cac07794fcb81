#!/usr/bin/env bash
# What the rows of a critical event cost PostgreSQL on this machine, apart
# from hookline (issue 25, item 1): pgbench drives a private PostgreSQL
# (initdb in a temporary directory; the shared server is not touched) with
# statements shaped like hookline's record statement, K events each, on
# two schemas:
#   cur  migrations/postgres as shipped (a processed_event row with the
#        body, a 17-column delivery row with five indexes);
#   nar  narrow_schema.sql: the event's columns once in processed_event,
#        a delivery row keyed by the event's bigint id (10 columns).
# and pgbench's own single-row insert of a processed_event row (`base`,
# the baseline bench/run measures). For each: events/s, statements'
# execution time per event (pg_stat_statements) and PostgreSQL's CPU per
# event (the machine's busy time less pgbench's own, nothing else
# running). Output: results.txt beside this script.
#
#   bench/pg_schema_probe/run.sh            # PROBE_SECONDS=12 PROBE_CLIENTS=2
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
T="${PROBE_SECONDS:-12}"
C="${PROBE_CLIENTS:-2}"
W=$(mktemp -d /tmp/hookline-schema-probe.XXXXXX)
. ../lib/common.sh
. ../lib/private_pg.sh
trap 'stop_private_pg; rm -rf "$W"' EXIT
private_pg_init "$W"
private_pg_start "$W"
PORT=$PG_PORT
psql_() { psql -h 127.0.0.1 -p "$PORT" -U postgres -v ON_ERROR_STOP=1 -Atq "$@"; }
for db in cur nar; do psql_ -c "CREATE DATABASE $db"; psql_ -d $db -c 'CREATE EXTENSION pg_stat_statements'; done
cat ../../migrations/postgres/*.sql | psql_ -d cur >/dev/null
psql_ -d nar -f narrow_schema.sql >/dev/null

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
probe() { # db kind k [body_bytes]
  local db=$1 kind=$2 k=$3 bytes=${4:-1024}
  python3 gen.py "$kind" "$k" "$bytes" >"$W/script.sql"
  psql_ -d "$db" -c "TRUNCATE processed_event, delivery; CHECKPOINT" -c "SELECT pg_stat_statements_reset()" >/dev/null
  local b0 b1
  b0=$(busy)
  /usr/bin/time -f '%U %S' -o "$W/time" pgbench -h 127.0.0.1 -p "$PORT" -U postgres -n -M prepared \
    -c "$C" -j 2 -T "$T" -f "$W/script.sql" "$db" >"$W/pgbench.out" 2>&1 || { cat "$W/pgbench.out" >&2; exit 1; }
  b1=$(busy)
  local exec ev
  exec=$(psql_ -d "$db" -c "SELECT sum(total_exec_time) FROM pg_stat_statements WHERE query ILIKE '%processed_event%'")
  ev=$(psql_ -d "$db" -c "SELECT count(*) FROM processed_event")
  python3 - "$db" "$kind" "$k" "$bytes" "$ev" "$exec" "$b0" "$b1" "$(getconf CLK_TCK)" "$W/time" "$T" <<'PY'
import sys
db, kind, k, size, ev, ex, b0, b1, hz, tf, t = sys.argv[1:]
u, s = map(float, open(tf).read().split())
pg = ((int(b1) - int(b0)) / int(hz) - (u + s)) * 1000
ev = int(ev)
print(f"{db}\t{kind}\t{k}\t{size}\t{ev / float(t):.0f}\t{float(ex) / ev:.4f}\t{pg / ev:.4f}\t{ev}", flush=True)
PY
}
{
  echo "# $(date -u +%FT%TZ) $(nproc) cores, PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}'), pgbench -c $C -j 2 -T $T -M prepared"
  printf 'schema\tstatement\tevents_per_statement\tbody_bytes\tevents_per_s\texec_ms_per_event\tpg_cpu_ms_per_event\tevents\n'
  for round in 1 2; do
    probe cur base 1
    probe cur base 1 130
    for k in 1 3 10 30; do probe cur cur "$k"; probe nar nar "$k"; done
    probe nar nar 10 130
  done
} | tee results.txt
