# hookline nodes of bench/run (sourced): a generated config per pass, a
# fresh store under it, the node started and stopped.
#
# The configs use only keys of the contract (../shared/CONTRACT.md) and
# leave every other setting at hookline's default, so the benchmark
# measures what a user gets out of the box.

# The shape of each named scenario: store, critical events, handlers.
scenario_shape() { # scenario -> STORE CRITICAL HANDLERS
  case "$1" in
    embedded)                    STORE=embedded CRITICAL=yes HANDLERS="sink" ;;
    redis-noncritical)           STORE=redis    CRITICAL=no  HANDLERS="sink" ;;
    # The same, its deliveries in Redis Streams (non_critical_deliveries).
    redis-noncritical-streams)   STORE=redis-streams CRITICAL=no HANDLERS="sink" ;;
    redis-critical)              STORE=redis    CRITICAL=yes HANDLERS="sink" ;;
    redis-noncritical-nohandler) STORE=redis    CRITICAL=no  HANDLERS="" ;;
    redis-critical-nohandler)    STORE=redis    CRITICAL=yes HANDLERS="" ;;
    *) die "unknown scenario $1" ;;
  esac
}

# Per-handler in-flight limits (`handlers.NAME.concurrency`, issue 12) are
# written into the configs only once hookline accepts the key: until then
# the isolation scenario measures hookline without them. Checked once.
HANDLER_CONCURRENCY_OK=
handler_concurrency_supported() {
  if [ -z "$HANDLER_CONCURRENCY_OK" ]; then
    local dir="$WORK/probe"; mkdir -p "$dir"
    cat >"$dir/probe.toml" <<TOML
[store]
kind = "embedded"
path = "$dir/probe.db"
[providers.stripe]
kind = "stripe"
[providers.stripe.tenants.default]
secrets = ["$SECRET"]
[handlers.probe]
url = "http://127.0.0.1:9/probe"
events = ["stripe:*"]
signing_secret = "$HANDLER_SIGNING_SECRET"
concurrency = 4
TOML
    if "$BIN/hookline" check-config --config "$dir/probe.toml" >"$dir/probe.log" 2>&1; then
      HANDLER_CONCURRENCY_OK=yes
    else
      HANDLER_CONCURRENCY_OK=no
    fi
  fi
  [ "$HANDLER_CONCURRENCY_OK" = yes ]
}

write_handler() { # name timeout [limited]
  cat <<TOML

[handlers.$1]
url = "$SINK_URL/$1"
events = ["stripe:*"]
timeout = "$2"
signing_secret = "$HANDLER_SIGNING_SECRET"
TOML
  # The per-handler limit, on the isolation scenario's handlers only: the
  # other scenarios measure one handler at the workers' full concurrency.
  if [ -n "${3:-}" ] && [ -n "$HANDLER_CONCURRENCY" ] && handler_concurrency_supported; then
    echo "concurrency = $HANDLER_CONCURRENCY"
  fi
  # Keys a pass adds to its one handler (bench/lib/features.sh).
  if [ -n "${HANDLER_EXTRA:-}" ]; then printf '%s\n' "$HANDLER_EXTRA"; fi
}

write_config() { # out port store critical "handlers" redis-url dir
  local out=$1 port=$2 store=$3 critical=$4 handlers=$5 redis_url=$6 dir=$7 h
  {
    echo "# bench/run: store $store, critical $critical, handlers: ${handlers:-none}"
    printf '[server]\nlisten = "127.0.0.1:%s"\n\n[store]\n' "$port"
    if [ "$store" = embedded ]; then
      printf 'kind = "embedded"\npath = "%s/hookline.db"\n' "$dir"
    else
      printf 'kind = "redis"\nredis_url = "%s"\nkey_prefix = "%s"\ndatabase_url = "%s"\n' \
        "$redis_url" "$PREFIX" "$DB_URL"
      if [ "$store" = redis-streams ]; then printf 'non_critical_deliveries = "redis"\n'; fi
    fi
    # Keys a pass adds to [store] (for example write_concurrency).
    if [ -n "${STORE_EXTRA:-}" ]; then printf '%s\n' "$STORE_EXTRA"; fi
    printf '\n[providers.stripe]\nkind = "stripe"\ncritical = %s\nack = "durable"\n' \
      "$([ "$critical" = yes ] && echo '["*"]' || echo '[]')"
    printf '\n[providers.stripe.tenants.default]\nsecrets = ["%s"]\n' "$SECRET"
    for h in $handlers; do
      case "$h" in
        slow) write_handler slow "$SLOW_TIMEOUT" limited ;;
        healthy) write_handler healthy 5s limited ;;
        broker-*) write_broker_handler "${h#broker-}" ;;
        *) write_handler "$h" 5s ;;
      esac
    done
    # Tables a pass adds (bench/lib/features.sh).
    if [ -n "${CONFIG_EXTRA:-}" ]; then printf '\n%s\n' "$CONFIG_EXTRA"; fi
  } >"$out"
}

# Start a node on a fresh store: new database and no keys under the
# prefix (redis), or a new SQLite file (embedded); the sink forgets what it
# counted. Sets HL_PID, HL_URL, HL_CONFIG, HL_STORE.
NODE_SEQ=0
fresh_node() { # label store critical "handlers" [redis-url]
  local label=$1 store=$2 critical=$3 handlers=$4 redis_url=${5:-$REDIS_URL} dir port
  NODE_SEQ=$((NODE_SEQ + 1))
  dir="$WORK/nodes/$NODE_SEQ-$label"; mkdir -p "$dir"
  port=$(free_port)
  HL_CONFIG="$dir/hookline.toml"
  HL_STORE=$store
  write_config "$HL_CONFIG" "$port" "$store" "$critical" "$handlers" "$redis_url" "$dir"
  if [ "$store" != embedded ]; then
    db_recreate
    redis_clear
    "$BIN/hookline" migrate --config "$HL_CONFIG" >"$dir/migrate.log" 2>&1 || { cat "$dir/migrate.log" >&2; die "migrate failed"; }
  fi
  sink_reset
  # BENCH_HOOKLINE_ENV: NAME=value pairs for the node alone (for example
  # TOKIO_WORKER_THREADS=1), not for the load generator or the sink.
  # shellcheck disable=SC2086
  env ${BENCH_HOOKLINE_ENV:-} RUST_LOG="$LOG_FILTER" "$BIN/hookline" serve --config "$HL_CONFIG" >"$dir/serve.log" 2>&1 &
  HL_PID=$!; PIDS+=("$HL_PID")
  HL_URL="http://127.0.0.1:$port"
  wait_http "$HL_URL/readyz" 30 -f || { tail -n 20 "$dir/serve.log" >&2; die "hookline ($label) not ready"; }
}

stop_node() {
  stop_pid "$HL_PID"
  [ "$HL_STORE" != embedded ] && redis_clear
  return 0
}
