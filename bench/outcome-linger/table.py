"""One row per pg_per_event.sh pass directory: offered, 2xx, new and
delivered per second in the load's window, p99, PostgreSQL per event."""
import json
import os
import sys

print("| pass | offered/s | 2xx/s | new/s | delivered/s in the window | delivered ÷ new | p99 ms | exec ms / event | PG CPU ms / event |")
print("|---|---|---|---|---|---|---|---|---|")
for d in sys.argv[1:]:
    load = json.load(open(os.path.join(d, "load.json")))
    s = json.load(open(os.path.join(d, "summary.json")))
    new, dl = load["accepted_per_s"], load["deliveries"]["per_second"]
    print(f"| {os.path.basename(d.rstrip('/'))} | {load['rate_target'] or 0:,.0f} | {load['ok_per_s']:,.0f} | {new:,.0f} "
          f"| {dl:,.0f} | {dl / new:.0%} | {load['latency_ms']['p99']:.1f} "
          f"| {s['exec_ms_per_event']:.3f} | {s['cpu_ms_per_event']:.3f} |")
