"""The per-scenario sections of bench/REPORT.md (used by report.py)."""

from report_targets import bare_rate, f0, f2, pct, pg_rate, limited_by, isolation_ratio

TITLES = {
    "embedded": "embedded store (SQLite), all events critical, one handler",
    "redis-noncritical": "redis, all events non-critical, one handler (deliveries in PostgreSQL)",
    "redis-noncritical-streams": "redis, all events non-critical, one handler (deliveries in Redis Streams)",
    "redis-critical": "redis + PostgreSQL, all events critical, one handler",
    "redis-noncritical-nohandler": "redis, non-critical, no handler (Redis only)",
    "redis-critical-nohandler": "redis + PostgreSQL, critical, no handler (no delivery workers competing)",
}


def cores(run):
    p = (run.get("processes") or [{}])[0]
    return p.get("cores"), p.get("rss_kib_after"), p.get("rss_kib_peak")


def machine(run):
    """The whole machine over the pass: cores busy, and the share of CPU
    time the hypervisor stole (absent from runs before 13)."""
    m = run.get("machine") or {}
    if "busy_cores" not in m:
        return "n/a"
    return f"{f2(m['busy_cores'])}, {pct(m['steal_share'])}"


def config_block(text):
    return ["", "<details><summary>config</summary>", "", "```toml", text.rstrip(), "```", "", "</details>"]


def step_row(step):
    r = step["pass"]
    d = r.get("deliveries") or {}
    acc = r["accepted_per_s"]
    other = {k: v for k, v in r["status"].items() if not k.startswith("2")}
    failed = [c["name"] for c in step["checks"] if not c["ok"]]
    backlog = d.get("backlog_at_end")
    c, _, _ = cores(r)
    return (f"| {f0(step['rate'])} | {'**sustained**' if step['ok'] else 'no'} | {f0(r['ok_per_s'])} | {f0(acc)} "
            f"| {f0(d.get('per_second')) if d else 'n/a'} | {pct(d['per_second'] / acc) if d and acc else 'n/a'} "
            f"| {f2(backlog / acc) if d and acc and backlog is not None else 'n/a'} "
            f"| {d.get('repeats_in_window', 'n/a') if d else 'n/a'} "
            f"| {f2(r['latency_ms']['p99'])} | {f2(r['service_latency_ms']['p99'])} "
            f"| {other or '-'}, {r['errors']} | {f2(c)} | {f2(r.get('loadgen_cores'))} "
            f"| {machine(r)} | {'; '.join(failed) or '-'} |")


def sustained_section(name, sus, res):
    bare, pg = bare_rate(res), pg_rate(res)
    rate = sus["sustained_rate"]
    s = sus["search"]
    crit = s["criteria"]
    L = ["", f"### {name}: {TITLES.get(name, name)}", ""]
    if rate:
        ratios = [f"{pct(rate / bare)} of the bare endpoint" if bare else None,
                  f"{pct(rate / pg)} of pgbench" if pg and name.startswith("redis") else None]
        L.append(f"Sustained: **{f0(rate)} requests/s** ({', '.join(r for r in ratios if r) or 'no baseline'}).")
    else:
        L.append("Sustained: **no rate tried held every bound**.")
    lim = limited_by(sus)
    if lim:
        L.append(f"The limit, measured at the lowest rate that failed above it, {lim}.")
    L.append("")
    L.append(f"Search: from {f0(s['estimate'])}/s, {len(s['steps'])} passes of "
             f"{res['settings']['sustain_duration_s']:.0f} s (at most {s['max_steps']}, precision "
             f"{pct(s['precision'])}); bounds: every request 2xx, p99 < {crit['p99_ms']:g} ms from the "
             f"scheduled send" + (f", delivered/s >= {pct(crit['keep_pace'])} of accepted/s, backlog at "
                                  f"the end < {crit['backlog_seconds']:g} s of accepted/s"
                                  if crit["deliveries"] else " (no handler: deliveries not judged)") + ".")
    L.append("")
    L.append("| offered/s | verdict | 2xx/s | new events/s | delivered/s | delivered ÷ new | backlog at end, s "
             "| repeats | p99 from the scheduled send, ms | p99 from the request's write (service), ms | other statuses, errors | hookline CPU | load gen CPU "
             "| machine: cores busy, stolen | failed bounds |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for step in s["steps"]:
        L.append(step_row(step))
    L.extend(config_block(sus["config"]))
    return L


def isolation_section(res):
    iso = res["isolation"]
    alone, slow, ratio = isolation_ratio(res)
    L = ["", "## Isolation between handlers", ""]
    conc = ("`handlers.NAME.concurrency = " + iso["handler_concurrency"] + "` on both handlers"
            if iso["handler_concurrency_applied"] else
            "no per-handler limit (`handlers.NAME.concurrency` is not accepted by this hookline; "
            "bench/lib/hookline.sh writes it once it is)")
    L.append(f"Store: {iso['scenario']}. Offered {f0(iso['rate'])} requests/s in both passes. The slow "
             f"handler's `timeout` is {iso['slow_timeout']}; the sink holds each of its calls "
             f"{iso['slow_hold']}, so every call times out and is retried. {conc}.")
    L.append("")
    L.append("| pass | 2xx/s | p99 ms | healthy: delivered/s | healthy: backlog at end | slow: calls received in window "
             "| hookline CPU |")
    L.append("|---|---|---|---|---|---|---|")
    for key, label in (("alone", "healthy handler alone"), ("with_slow", "healthy + slow handler")):
        r = iso[key]
        d = r.get("deliveries") or {}
        w = (r.get("watched_sinks") or [None])[0] if key == "with_slow" else None
        c, _, _ = cores(r)
        L.append(f"| {label} | {f0(r['ok_per_s'])} | {f2(r['latency_ms']['p99'])} | {f0(d.get('per_second'))} "
                 f"| {d.get('backlog_at_end', 'n/a')} | {w['received_in_window'] if w else '-'} | {f2(c)} |")
    L.append("")
    L.append(f"Healthy handler with the slow one present: **{pct(ratio)}** of its rate alone.")
    L.extend(config_block(iso["with_slow_config"]))
    return L


def memory_section(res):
    m = res["memory"]
    n = m["keys_after"] - m["keys_before"]
    L = ["", "## Redis memory per completed dedup key", ""]
    L.append(f"A Redis of its own ({m['redis']}), empty at the start; {f0(m['requested_keys'])} new events on the "
             f"Redis-only path (no handler, non-critical), closed loop. `used_memory` grew from "
             f"{f0(m['used_memory_before'])} to {f0(m['used_memory_after'])} B over {f0(n)} new keys "
             f"({f0(m['dedup_keys'])} dedup keys, {f0(m['keys_with_expiry'])} with an expiry): "
             f"**{f0(m['used_memory_per_key'])} B per key**. That counts the key, its value, its entry in "
             f"the expiry table and the buckets of both hash tables (which grow by powers of two). "
             f"`MEMORY USAGE ... SAMPLES 0` over {m['memory_usage_sampled']} keys says "
             f"{f0(m.get('memory_usage_mean'))} B (mean), leaving those out. Key example: "
             f"`{m['key_example']}` ({m['key_bytes']} B).")
    return L


def max_table(name, d, res):
    bare, pg = bare_rate(res), pg_rate(res)
    rb = res["baselines"].get("redis_benchmark", {}).get("requests_per_s")
    r = d["max"]
    c, rss, peak = cores(r)
    other = {k: v for k, v in r["status"].items() if not k.startswith("2")}
    dl, dr = r.get("deliveries") or {}, r.get("drain") or {}
    drained = (f"{dr.get('delivered')}/{dr.get('expected')} in {dr.get('seconds_after_load', 0):.1f} s"
               if dr else "n/a (no handler)")
    L = ["", f"### {name}: {TITLES.get(name, name)}", ""]
    L.append("| 2xx/s | new events/s | p50 ms | p99 ms | p99.9 ms | other statuses, errors | delivered/s (window) "
             "| drained | hookline CPU | RSS MiB (end / peak) | load gen CPU |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    L.append(f"| {f0(r['ok_per_s'])} | {f0(r['accepted_per_s'])} | {f2(r['latency_ms']['p50'])} "
             f"| {f2(r['latency_ms']['p99'])} | {f2(r['latency_ms']['p99_9'])} | {other or '-'}, {r['errors']} "
             f"| {f0(dl.get('per_second'))} | {drained} | {f2(c)} "
             f"| {f0(rss / 1024 if rss else None)} / {f0(peak / 1024 if peak else None)} "
             f"| {f2(r.get('loadgen_cores'))} |")
    m = r["ok_per_s"]
    ratios = [f"÷ bare endpoint: **{pct(m / bare)}**" if bare else None,
              f"÷ redis-benchmark claim.lua: {pct(m / rb)}" if rb and name.startswith("redis") else None,
              f"÷ pgbench insert: {pct(m / pg)}" if pg else None]
    L.append("")
    L.append("Ratios of the maximum 2xx/s: " + ("; ".join(x for x in ratios if x) or "no baseline") + ".")
    if d.get("sizes"):
        L.append("")
        L.append("Body sizes (closed loop):")
        L.append("")
        L.append("| body | 2xx/s | new events/s | p50 ms | p99 ms | hookline CPU | bare endpoint req/s | ÷ bare |")
        L.append("|---|---|---|---|---|---|---|---|")
        for size, s in sorted(d["sizes"].items(), key=lambda kv: int(kv[0])):
            c, _, _ = cores(s)
            b = bare_rate(res, size)
            L.append(f"| {int(size) // 1024} KiB | {f0(s['ok_per_s'])} | {f0(s['accepted_per_s'])} "
                     f"| {f2(s['latency_ms']['p50'])} | {f2(s['latency_ms']['p99'])} | {f2(c)} | {f0(b)} "
                     f"| {pct(s['ok_per_s'] / b) if b else 'n/a'} |")
    L.extend(config_block(d["config"]))
    return L
