# hookline scenarios of bench/run (sourced): the closed-loop maximum, the
# sustained-rate search, isolation between handlers, and Redis memory per
# dedup key. Every pass writes its bench-load JSON under $PARTS.

TARGET_PATH="/webhooks/stripe/default"

sink_args_for() { # "handlers" drain-seconds -> SINK_ARGS
  SINK_ARGS=()
  [ -n "$1" ] && SINK_ARGS=(--sink "$SINK_URL/_sink/stats/sink" --drain-timeout "$2")
  return 0
}

# Closed loop, as fast as answered: the figure issue 5 compared, and the
# starting point of the search. Then the body size sweep on the same node.
run_max() { # scenario
  local s=$1 size
  scenario_shape "$s"
  log "scenario $s: closed-loop maximum"
  fresh_node "$s-max" "$STORE" "$CRITICAL" "$HANDLERS"
  sink_args_for "$HANDLERS" "$MAX_DRAIN"
  load "$s-max" "$PARTS/$s.max.json" --url "$HL_URL$TARGET_PATH" --concurrency "$CONCURRENCY" \
    --duration "$DURATION" --body-bytes "$BODY_BYTES" --watch-pid "$HL_PID" "${SINK_ARGS[@]}" \
    --max-requests 650000
  cp "$HL_CONFIG" "$PARTS/$s.config.toml"
  for size in $SIZES; do
    case " $SIZE_SCENARIOS " in *" $s "*) ;; *) continue ;; esac
    load "$s-size-$size" "$PARTS/$s.size.$size.json" --url "$HL_URL$TARGET_PATH" \
      --concurrency "$CONCURRENCY" --duration "$DURATION" --body-bytes "$size" \
      --watch-pid "$HL_PID" "${SINK_ARGS[@]}" --max-requests 500000
  done
  stop_node
}

# The first rate the search tries: a share of the closed-loop maximum, and
# no more than the deliveries kept up with during it (a handler scenario is
# limited by whichever is slower). Without a maximum pass of this run, a
# short closed-loop pass gives the figure.
search_estimate() { # scenario -> sets EST
  local s=$1 f="$PARTS/$1.max.json"
  if [ ! -f "$f" ]; then
    f="$PARTS/$s.estimate.json"
    fresh_node "$s-estimate" "$STORE" "$CRITICAL" "$HANDLERS"
    sink_args_for "$HANDLERS" 0
    load "$s-estimate" "$f" --url "$HL_URL$TARGET_PATH" --concurrency "$CONCURRENCY" \
      --duration "$ESTIMATE_DURATION" --body-bytes "$BODY_BYTES" "${SINK_ARGS[@]}"
    stop_node
  fi
  EST=$(python3 - "$f" "$SEARCH_START" <<'PY'
import json,sys
r=json.load(open(sys.argv[1])); share=float(sys.argv[2])
est=share*r["ok_per_s"]
d=(r.get("deliveries") or {}).get("per_second")
# Deliveries are one per new event; the offered rate counts the copies too.
if d: est=min(est, d/(1-r["dup_share"]))
print(max(10, round(est)))
PY
)
}

# Issue 12's sustained rate: open-loop passes of SUSTAIN_DURATION seconds,
# each on a fresh node and store (a failed pass's backlog must not weigh on
# the next), until bench-search has bracketed the highest rate that keeps
# every bound.
run_search() { # scenario
  local s=$1 state="$PARTS/$1.search.json" rate i=0 flags=()
  scenario_shape "$s"
  search_estimate "$s"
  [ -z "$HANDLERS" ] && flags=(--no-deliveries)
  log "scenario $s: sustained-rate search from $EST/s ($SUSTAIN_DURATION s passes, $SEARCH_STEPS at most)"
  rate=$("$BIN/bench-search" init --state "$state" --estimate "$EST" --max-steps "$SEARCH_STEPS" \
    --precision "$SEARCH_PRECISION" "${flags[@]}")
  while [ -n "$rate" ]; do
    i=$((i + 1))
    open_pass "$s" "sustain-$rate" "$rate" "$PARTS/$s.step$i.json"
    rate=$("$BIN/bench-search" record --state "$state" --rate "$rate" --pass "$PARTS/$s.step$i.json")
  done
  cp "$HL_CONFIG" "$PARTS/$s.config.toml"
  log "    sustained: $(jget "$state" 'max([x["rate"] for x in d["steps"] if x["ok"]], default="none")')"
}

# One open-loop pass of SUSTAIN_DURATION seconds at a fixed rate, on a
# fresh node and store (scenario_shape already set).
open_pass() { # scenario label rate out-file
  local s=$1 label=$2 rate=$3 out=$4
  fresh_node "$s-$rate" "$STORE" "$CRITICAL" "$HANDLERS"
  sink_args_for "$HANDLERS" "$SUSTAIN_DRAIN"
  load "$s-$label" "$out" --url "$HL_URL$TARGET_PATH" --rate "$rate" \
    --concurrency "$OPEN_CONCURRENCY" --duration "$SUSTAIN_DURATION" --body-bytes "$BODY_BYTES" \
    --watch-pid "$HL_PID" "${SINK_ARGS[@]}"
  stop_node
}

# Issue 25's capacity target of a scenario, decided: when the passes so far
# (its maximum and its search) leave it open, one more pass at the target's
# rate (bench/capacity_check.py says which, or that none is needed). Then up
# to CAPACITY_NARROW passes between the highest pass that met the bounds and
# the lowest that failed above it, while they lie far apart, so that a
# missed target's measured limit is a bracket worth reading.
run_capacity_check() { # scenario
  local s=$1 rate i
  rate=$(python3 bench/capacity_check.py "$PARTS" "$s" "$BODY_BYTES" "$DUP_SHARE" 2>"$PARTS/$s.target.why") \
    || { cat "$PARTS/$s.target.why" >&2; die "capacity check of $s failed"; }
  scenario_shape "$s"
  if [ -z "$rate" ]; then
    log "scenario $s: capacity target $(cat "$PARTS/$s.target.why")"
  else
    log "scenario $s: one pass at the capacity target's rate, $rate/s"
    open_pass "$s" "target-$rate" "$rate" "$PARTS/$s.target.json"
  fi
  for i in $(seq "$CAPACITY_NARROW"); do
    rate=$(python3 bench/capacity_check.py "$PARTS" "$s" "$BODY_BYTES" "$DUP_SHARE" narrow 2>"$PARTS/$s.narrow.why") \
      || { cat "$PARTS/$s.narrow.why" >&2; die "narrowing the capacity of $s failed"; }
    if [ -z "$rate" ]; then
      log "scenario $s: capacity $(cat "$PARTS/$s.narrow.why")"
      break
    fi
    log "scenario $s: a pass that narrows the capacity's bracket, $rate/s"
    open_pass "$s" "narrow-$rate" "$rate" "$PARTS/$s.narrow$i.json"
  done
}

# Issue 12, "what must work" 3: a healthy handler's deliveries alone, then
# with a second handler on the same events that times out every call, at
# the same offered rate.
run_isolation() {
  local rate=$ISOLATION_RATE state="$PARTS/$ISOLATION_SCENARIO.search.json"
  if [ -z "$rate" ] && [ -f "$state" ]; then
    rate=$(jget "$state" 'max([x["rate"] for x in d["steps"] if x["ok"]], default="")')
  fi
  if [ -z "$rate" ] && [ -f "$PARTS/$ISOLATION_SCENARIO.max.json" ]; then
    rate=$(jget "$PARTS/$ISOLATION_SCENARIO.max.json" 'round(d["ok_per_s"] / 2)')
  fi
  [ -n "$rate" ] || die "isolation: no rate (set BENCH_ISOLATION_RATE, or run $ISOLATION_SCENARIO first)"
  scenario_shape "$ISOLATION_SCENARIO"
  log "isolation ($ISOLATION_SCENARIO store) at $rate/s: healthy handler alone, then with one timing out"
  local pass handlers
  for pass in alone with_slow; do
    handlers="healthy"; [ "$pass" = with_slow ] && handlers="healthy slow"
    fresh_node "isolation-$pass" "$STORE" "$CRITICAL" "$handlers"
    load "isolation-$pass" "$PARTS/isolation.$pass.json" --url "$HL_URL$TARGET_PATH" --rate "$rate" \
      --concurrency "$OPEN_CONCURRENCY" --duration "$SUSTAIN_DURATION" --body-bytes "$BODY_BYTES" \
      --watch-pid "$HL_PID" --sink "$SINK_URL/_sink/stats/healthy" --drain-timeout "$SUSTAIN_DRAIN" \
      --watch-sink "$SINK_URL/_sink/stats/slow"
    cp "$HL_CONFIG" "$PARTS/isolation.$pass.config.toml"
    stop_node
  done
  local applied=no
  [ -n "$HANDLER_CONCURRENCY" ] && handler_concurrency_supported && applied=yes
  [ -n "$HANDLER_CONCURRENCY" ] && [ "$applied" = no ] && \
    log "    handlers.NAME.concurrency is not accepted by this hookline: left out of the configs"
  python3 -c 'import json,sys; print(json.dumps({"rate":float(sys.argv[1]),"scenario":sys.argv[2],
    "slow_timeout":sys.argv[3],"slow_hold":sys.argv[4],"handler_concurrency":sys.argv[5] or None,
    "handler_concurrency_applied":sys.argv[6]=="yes"}))' \
    "$rate" "$ISOLATION_SCENARIO" "$SLOW_TIMEOUT" "$SLOW_HOLD" "$HANDLER_CONCURRENCY" "$applied" \
    >"$PARTS/isolation.json"
}

# Redis memory per completed dedup key, by the growth of `used_memory`
# (what the server pays: the key, its value, its expiry entry, and the
# buckets of both hash tables) over MEMORY_KEYS new events on the
# Redis-only path. A Redis server of its own, empty at the start, so
# nothing else's keys or tables move the figure.
run_memory() {
  local port pid dir="$WORK/memory-redis" url out="$PARTS/memory.json"
  mkdir -p "$dir"
  port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" \
    --logfile "$dir/redis.log" &
  pid=$!; PIDS+=("$pid")
  for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
  url="redis://127.0.0.1:$port/0"
  log "memory: $MEMORY_KEYS completed dedup keys on a Redis of its own"
  fresh_node memory redis no "" "$url"
  local mc=(redis-cli -p "$port")
  "${mc[@]}" INFO memory >"$dir/before.txt"; "${mc[@]}" DBSIZE >"$dir/dbsize.before"
  load memory "$PARTS/memory.load.json" --url "$HL_URL$TARGET_PATH" --concurrency "$CONCURRENCY" \
    --duration 3600 --max-requests "$MEMORY_KEYS" --dup-share 0 --body-bytes 256 --watch-pid "$HL_PID"
  "${mc[@]}" INFO memory >"$dir/after.txt"; "${mc[@]}" DBSIZE >"$dir/dbsize.after"
  "${mc[@]}" INFO keyspace >"$dir/keyspace.txt"
  # Keys are binary: --no-raw prints each quoted, as MEMORY USAGE reads it back.
  "${mc[@]}" --no-raw --scan --pattern "$PREFIX:{*" >"$dir/keys.txt"
  head -n 500 "$dir/keys.txt" | sed 's/^/MEMORY USAGE /; s/$/ SAMPLES 0/' | "${mc[@]}" >"$dir/usage.txt"
  stop_node
  python3 - "$dir" "$MEMORY_KEYS" "$(redis-server --version)" >"$out" <<'PY'
import json,re,sys
d=sys.argv[1]
def info(f,k):
    m=re.search(rf"^{k}:(\d+)",open(f"{d}/{f}").read(),re.M); return int(m.group(1)) if m else None
b,a=info("before.txt","used_memory"),info("after.txt","used_memory")
kb,ka=int(open(f"{d}/dbsize.before").read()),int(open(f"{d}/dbsize.after").read())
ks=open(f"{d}/keyspace.txt").read()
expires=int(m.group(1)) if (m:=re.search(r"expires=(\d+)",ks)) else 0
def unquote(k):  # redis-cli's quoted form: "..." with \\xNN and C escapes
    import ast; return ast.literal_eval("b" + k) if k.startswith('"') else k.encode()
keys=[unquote(k) for k in open(f"{d}/keys.txt").read().split("\n") if k]
usage=sorted(int(v) for v in open(f"{d}/usage.txt").read().split() if v.isdigit())
print(json.dumps({"requested_keys":int(sys.argv[2]),"redis":sys.argv[3],
  "used_memory_before":b,"used_memory_after":a,"keys_before":kb,"keys_after":ka,
  "dedup_keys":len(keys),"keys_with_expiry":expires,
  "used_memory_per_key":(a-b)/(ka-kb) if ka>kb else None,
  "key_example":repr(keys[0])[2:-1] if keys else None,"key_bytes":len(keys[0]) if keys else None,
  "memory_usage_sampled":len(usage),"memory_usage_mean":sum(usage)/len(usage) if usage else None,
  "memory_usage_median":usage[len(usage)//2] if usage else None}))
PY
  stop_pid "$pid"
  log "    used_memory growth per key: $(jget "$out" 'round(d["used_memory_per_key"] or 0)') B over $(jget "$out" 'd["keys_after"]-d["keys_before"]') keys"
}
