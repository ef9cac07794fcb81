# What a handler filter + transform and tracing cost, for bench/run
# (sourced; issue 27 item 7, issue 28 item 8). Each feature is measured
# against the same node without it, in the same run: closed-loop passes of
# DURATION seconds on the redis store (non-critical events), each on a
# fresh node and store. A feature's passes alternate, off then on in odd
# rounds and on then off in even ones, so a machine that slows down over
# the run weighs on both sides alike.
#
# - filter-transform: one handler, plain, against the same handler with a
#   filter that passes every bench event and bench/lib/transform.js (20
#   lines of Hookdeck's addHandler("transform", ...)). Compared: delivered/s.
# - tracing: the Redis-only path (no handler; compared: new events/s) and
#   the redis + handler path (compared: delivered/s), with [telemetry]
#   otlp_endpoint set to a collector stand-in (a second bench-sink,
#   answering 200 to every POST) at sample_ratio = 1.0, against no
#   otlp_endpoint.
#
# Six rounds by default: single passes on a 2-core machine spread by
# +-8% and a single pair's ratio over 0.73-1.16 (bench/FEATURES.md), so
# two rounds' ratio could land 0.10 either side of a feature's cost; six
# put its standard error near 0.04.

FEATURE_ROUNDS="${BENCH_FEATURES_ROUNDS:-6}"
FEATURE_FILTER='{"body": {"type": {"$startsWith": "payment_intent."}, "object": "event"}}'
COLLECTOR_URL=

start_collector() {
  local port; port=$(free_port)
  "$BIN/bench-sink" --listen "127.0.0.1:$port" --workers 1 >"$WORK/collector.log" 2>&1 &
  PIDS+=("$!")
  COLLECTOR_URL="http://127.0.0.1:$port"
  wait_http "$COLLECTOR_URL/_sink/stats/collector" 10 || die "collector stand-in did not start"
}

metric_total() { # name: the sum of a counter over its labels on the running node
  curl -fsS "$HL_URL/metrics" 2>/dev/null \
    | awk -v m="$1" '$1 == m || index($1, m "{") == 1 { s += $2 } END { print s + 0 }'
}

# One pass of one variant: sets the extra config, runs the load, keeps the
# load's JSON with the config and two counters beside it.
feature_pass() { # feature variant round handlers
  local feature=$1 variant=$2 round=$3 handlers=$4 out
  out="$PARTS/features.$feature.$variant.$round.json"
  HANDLER_EXTRA=; CONFIG_EXTRA=
  case "$variant" in
    filtered)
      HANDLER_EXTRA=$(printf "filter = '%s'\ntransform = \"%s\"" "$FEATURE_FILTER" "$ROOT/bench/lib/transform.js") ;;
    *-on)
      CONFIG_EXTRA=$(printf '[telemetry]\notlp_endpoint = "%s"\nsample_ratio = 1.0' "$COLLECTOR_URL") ;;
  esac
  fresh_node "$feature-$variant" redis no "$handlers"
  HANDLER_EXTRA=; CONFIG_EXTRA=
  sink_args_for "$handlers" 0
  curl -fsS -X POST -o /dev/null "$COLLECTOR_URL/_sink/reset"
  load "$feature-$variant-$round" "$out.load" --url "$HL_URL$TARGET_PATH" \
    --concurrency "$CONCURRENCY" --duration "$DURATION" --body-bytes "$BODY_BYTES" \
    --watch-pid "$HL_PID" --max-requests 400000 "${SINK_ARGS[@]}"
  local filtered dropped exports
  filtered=$(metric_total hookline_filtered_total)
  dropped=$(metric_total hookline_spans_dropped_total)
  exports=$(curl -fsS "$COLLECTOR_URL/_sink/stats/v1%2Ftraces" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("received",0))')
  cp "$HL_CONFIG" "$out.toml"
  stop_node
  python3 - "$out.load" "$feature" "$variant" "$round" "$filtered" "$dropped" "$exports" >"$out" <<'PY'
import json,sys
load,feature,variant,rnd,filtered,dropped,exports=sys.argv[1:]
l=json.load(open(load))
print(json.dumps({"feature":feature,"variant":variant,"round":int(rnd),
  "accepted_per_s":l["accepted_per_s"],"ok_per_s":l["ok_per_s"],
  "delivered_per_s":(l.get("deliveries") or {}).get("per_second"),
  "p99_ms":l["latency_ms"]["p99"],"errors":l["errors"],
  "busy_cores":(l.get("machine") or {}).get("busy_cores"),
  "steal_share":(l.get("machine") or {}).get("steal_share"),
  "filtered_total":float(filtered),"spans_dropped_total":float(dropped),
  "collector_posts":int(exports),"load":l}))
PY
}

# Every round of one feature's off/on pair.
feature_pairs() { # feature off-variant on-variant handlers
  local r
  for r in $(seq "$FEATURE_ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
      feature_pass "$1" "$2" "$r" "$4"; feature_pass "$1" "$3" "$r" "$4"
    else
      feature_pass "$1" "$3" "$r" "$4"; feature_pass "$1" "$2" "$r" "$4"
    fi
  done
}

run_feature() { # filter-transform | tracing
  [ -n "$COLLECTOR_URL" ] || start_collector
  case "$1" in
    filter-transform)
      log "feature filter + transform: one handler with and without them ($FEATURE_ROUNDS rounds)"
      feature_pairs filter-transform plain filtered sink ;;
    tracing)
      log "feature tracing: Redis-only and redis + handler, OTLP export at sample_ratio 1.0 and off ($FEATURE_ROUNDS rounds)"
      feature_pairs tracing nohandler-off nohandler-on ""
      feature_pairs tracing handler-off handler-on sink ;;
    *) die "unknown feature pass $1" ;;
  esac
}

# bench/FEATURES.md and bench/features.json from this run's feature passes.
write_features_report() { # out.md out.json uptime-before uptime-after
  python3 bench/features_report.py "$PARTS" "$1" "$2" "${BENCH_GIT_COMMIT:-}" "$3" "$4"
}
