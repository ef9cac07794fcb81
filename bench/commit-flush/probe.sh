#!/usr/bin/env bash
# WAL flushes of 200 one-row updates, committed as usual and then with
# `synchronous_commit = off` set inside the statement for its own
# transaction; then the session's setting, unchanged. Against the shared
# server (BENCH_PG_URL, default the machine's `test` database).
#   bench/commit-flush/probe.sh
set -euo pipefail
url=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/test}
export PGOPTIONS="-c client_min_messages=warning"
P=(psql "$url" -qAt)
flushes() { "${P[@]}" -c "SELECT wal_sync FROM pg_stat_wal"; }
"${P[@]}" -c "DROP TABLE IF EXISTS commit_probe" -c "CREATE TABLE commit_probe (id int PRIMARY KEY, v int)" \
  -c "INSERT INTO commit_probe VALUES (1, 0)"
s0=$(flushes)
for _ in $(seq 200); do echo "UPDATE commit_probe SET v = v + 1 WHERE id = 1;"; done | "${P[@]}"
s1=$(flushes)
for _ in $(seq 200); do
  echo "UPDATE commit_probe SET v = v + 1 WHERE id = 1 AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off';"
done | "${P[@]}"
s2=$(flushes)
echo "200 plain commits: $((s1 - s0)) WAL flushes; 200 unflushed: $((s2 - s1))"
printf "UPDATE commit_probe SET v = v + 1 WHERE id = 1 AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off';\nSHOW synchronous_commit;\n" \
  | "${P[@]}" | sed 's/^/the session afterwards: synchronous_commit = /'
"${P[@]}" -c "DROP TABLE commit_probe"
