# Broker destinations of bench/run (sourced; issue 26). Per broker kind:
# hookline with one destination of that kind (redis store, non-critical
# events, the closed-loop load of the maximum passes) and its delivered/s,
# measured from hookline's own counter over the loaded seconds; then, in
# the same run, bench-publish, a minimal publisher with the same client,
# the same acknowledgement settings and the same message, with as many
# publishes in flight as hookline's workers (delivery.concurrency, 16).
# Each pass has its own stream / exchange and queue / key prefix / topic,
# removed after; MQTT gets a mosquitto_sub subscriber (a PUBACK without a
# matching subscriber is a failed attempt for hookline).

NATS_URL="${BENCH_NATS_URL:-nats://127.0.0.1:4222}"
AMQP_URL="${BENCH_AMQP_URL:-amqp://guest:guest@127.0.0.1:5672/%2f}"
MQTT_URL="${BENCH_MQTT_URL:-mqtt://127.0.0.1:1883}"
WORKER_CONCURRENCY=16   # hookline's default delivery.concurrency
BROKER_NAME=

broker_url() {
  case "$1" in
    nats) echo "$NATS_URL" ;; rabbitmq) echo "$AMQP_URL" ;;
    redis-stream) echo "$REDIS_URL" ;; mqtt) echo "$MQTT_URL" ;;
    *) die "unknown broker $1" ;;
  esac
}

write_broker_handler() { # kind
  printf '\n[handlers.broker]\nkind = "%s"\nurl = "%s"\nevents = ["stripe:*"]\ntimeout = "5s"\n' \
    "$1" "$(broker_url "$1")"
  case "$1" in
    nats) printf 'subject = "%s.{provider}.{event_type}"\n' "$BROKER_NAME" ;;
    rabbitmq) printf 'exchange = "%s"\nrouting_key = "{provider}.{event_type}"\n' "$BROKER_NAME" ;;
    redis-stream) printf 'stream = "%s:{provider}"\n' "$BROKER_NAME" ;;
    mqtt) printf 'topic = "%s/{provider}/{event_type}"\n' "$BROKER_NAME" ;;
  esac
}

delivered_count() {
  curl -fsS "$HL_URL/metrics" 2>/dev/null \
    | awk '/^hookline_delivery_attempts_total\{handler="broker",outcome="delivered"\}/ {print $2; found=1} END {if (!found) print 0}'
}

run_broker() { # kind
  local kind=$1 url sub_pid="" t0 t1 d0 d1
  url=$(broker_url "$kind")
  BROKER_NAME="${PREFIX}broker$(date +%s%N)"
  log "broker $kind: hookline's delivered/s, then bench-publish's acknowledged/s"
  "$BIN/bench-publish" setup --kind "$kind" --url "$url" --name "$BROKER_NAME"
  if [ "$kind" = mqtt ]; then
    mosquitto_sub -h "$(url_part "$url" 'p.hostname')" -p "$(url_part "$url" 'p.port or 1883')" \
      -V mqttv5 -q 1 -t "$BROKER_NAME/#" >/dev/null 2>&1 &
    sub_pid=$!; PIDS+=("$sub_pid")
    sleep 1
  fi
  fresh_node "broker-$kind" redis no "broker-$kind"
  d0=$(delivered_count); t0=$(date +%s.%N)
  load "broker-$kind" "$PARTS/brokers.$kind.load.json" --url "$HL_URL$TARGET_PATH" \
    --concurrency "$CONCURRENCY" --duration "$DURATION" --body-bytes "$BODY_BYTES" --watch-pid "$HL_PID"
  d1=$(delivered_count); t1=$(date +%s.%N)
  stop_node
  "$BIN/bench-publish" run --kind "$kind" --url "$url" --name "$BROKER_NAME" \
    --concurrency "$WORKER_CONCURRENCY" --duration "${DURATION}s" --body-bytes "$BODY_BYTES" \
    --out "$PARTS/brokers.$kind.publish.json"
  [ -n "$sub_pid" ] && stop_pid "$sub_pid"
  "$BIN/bench-publish" teardown --kind "$kind" --url "$url" --name "$BROKER_NAME"
  python3 - "$kind" "$d0" "$d1" "$t0" "$t1" "$PARTS/brokers.$kind.load.json" \
    "$PARTS/brokers.$kind.publish.json" >"$PARTS/brokers.$kind.json" <<'PY'
import json,sys
kind,d0,d1,t0,t1,load,pub=sys.argv[1:]
l=json.load(open(load)); p=json.load(open(pub))
r={"kind":kind,
  "hookline_delivered_per_s":(float(d1)-float(d0))/(float(t1)-float(t0)),
  "hookline_accepted_per_s":l["accepted_per_s"],
  "publisher_per_s":p["per_second"],"publisher_concurrency":p["concurrency"]}
print(json.dumps(r))
print(f'    {kind}: hookline delivered {r["hookline_delivered_per_s"]:.0f}/s, '
      f'minimal publisher {r["publisher_per_s"]:.0f}/s', file=sys.stderr)
PY
}

# bench/BROKERS.md from this run's broker passes.
write_brokers_report() { # out.md out.json
  python3 - "$PARTS" "$1" "$2" "${BENCH_GIT_COMMIT:-}" <<'PY'
import glob,json,os,sys,datetime
parts,md,js,commit=sys.argv[1:]
rows=[json.load(open(f)) for f in sorted(glob.glob(parts+"/brokers.*.json"))
      if os.path.basename(f).count(".")==2]
json.dump({"commit":commit,"date":datetime.date.today().isoformat(),"brokers":rows},open(js,"w"),indent=2)
with open(md,"w") as f:
    f.write("# Broker destinations: delivered/s against the broker's own publish rate\n\n")
    f.write(f"bench/run of {datetime.date.today().isoformat()} at {commit} (bench/lib/brokers.sh says how).\n\n")
    f.write("| broker | hookline delivered/s | hookline accepted/s | minimal publisher acknowledged/s | hookline / publisher |\n|---|---|---|---|---|\n")
    for r in rows:
        ratio=r["hookline_delivered_per_s"]/r["publisher_per_s"] if r["publisher_per_s"] else 0
        f.write(f'| {r["kind"]} | {r["hookline_delivered_per_s"]:.0f} | {r["hookline_accepted_per_s"]:.0f} | {r["publisher_per_s"]:.0f} | {ratio:.2f} |\n')
PY
}
