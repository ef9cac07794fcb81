# What the A/B scripts share (bench/streams-ab/one-script/closed.sh,
# bench/handler-places/ab.sh): two builds' passes, alternated, against the
# shared Redis and PostgreSQL (BENCH_REDIS_URL, BENCH_PG_URL), in a
# database and key prefix of their own, one warm-up second, a tenth of the
# requests retries. Sourced from the repository's root, after `set -euo
# pipefail`; WORK is a fresh directory under /tmp, removed on a clean exit
# (kept, with hookline's logs, when the script fails).
WARMUP=1
DUP_SHARE=0.1
LOG_FILTER=info
REDIS_URL=${BENCH_REDIS_URL:-redis://127.0.0.1:6379/0}
REDIS_HOST=127.0.0.1; REDIS_PORT=6379; REDIS_DB=0
PG_ADMIN_URL=${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
DB_NAME=hookline_ab; PREFIX=hlab
DB_URL="${PG_ADMIN_URL%/*}/$DB_NAME"
WORK=$(mktemp -d /tmp/hookline-ab.XXXXXX)
. bench/lib/common.sh
. bench/lib/hookline.sh
trap cleanup EXIT
trap 'exit 130' INT TERM
