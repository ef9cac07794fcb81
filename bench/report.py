#!/usr/bin/env python3
"""Render bench/REPORT.md and bench/throughput.png from bench/results.json.

    python3 bench/report.py bench/results.json --report bench/REPORT.md --plot bench/throughput.png

Everything in the report comes from the JSON that bench/run writes, so the
report can be re-rendered (e.g. after editing the notes below) without
re-running the benchmark. Hand-written analysis lives in NOTES_FILE
(bench/NOTES.md) and is appended verbatim if present.
"""

import argparse
import json
import os
import sys

TITLES = {
    "embedded": "embedded store (SQLite), all events critical",
    "redis-noncritical": "redis, all events non-critical (deliveries in PostgreSQL)",
    "redis-critical": "redis + PostgreSQL, all events critical",
    "redis-noncritical-nohandler": "redis, non-critical, no handler (Redis only)",
    "redis-critical-nohandler": "redis + PostgreSQL, critical, no handler (no delivery workers competing)",
}


def f0(v):
    return "n/a" if v is None else f"{v:,.0f}"


def f2(v):
    return "n/a" if v is None else f"{v:.2f}"


def pct(v):
    return "n/a" if v is None else f"{100 * v:.0f}%"


def proc(run):
    p = (run.get("processes") or [{}])[0]
    return p.get("cores"), p.get("rss_kib_after"), p.get("rss_kib_peak")


def bare_rate(res, size=None):
    """The bare endpoint's rate: the higher of its passes at this body size
    (the main pass and the size sweep's), so ratios are never flattered by a
    slow baseline pass."""
    b = res["baselines"]
    size = str(size or res["settings"]["body_bytes"])
    rates = [b["bare"]["requests_per_s"]] if str(b["bare"]["body_bytes"]) == size else []
    if size in b.get("bare_sizes", {}):
        rates.append(b["bare_sizes"][size]["requests_per_s"])
    return max(rates) if rates else None


def pg_rate(res):
    """pgbench tps: the higher of the runs at the start and at the end."""
    b = res["baselines"]
    return max(b["pgbench"]["tps"], b.get("pgbench_end", b["pgbench"])["tps"])


def targets(res):
    """(name, figure, met) for each target of issue 5."""
    out = []
    bare = bare_rate(res)
    pg = pg_rate(res)
    sc = res["scenarios"]
    if "redis-noncritical" in sc:
        v = sc["redis-noncritical"]["max"]["ok_per_s"]
        out.append((
            "non-critical redis path >= 40% of the bare endpoint (with one handler: "
            "deliveries recorded in PostgreSQL)",
            f"{f0(v)}/s = {pct(v / bare)} of {f0(bare)}/s", v >= 0.4 * bare))
    if "redis-noncritical-nohandler" in sc:
        v = sc["redis-noncritical-nohandler"]["max"]["ok_per_s"]
        out.append((
            "(same, no handler: the Redis-only path)",
            f"{f0(v)}/s = {pct(v / bare)} of {f0(bare)}/s", v >= 0.4 * bare))
    if "redis-critical" in sc:
        r = sc["redis-critical"]["max"]
        v, new = r["ok_per_s"], r["accepted_per_s"]
        out.append((
            "critical path >= pgbench single-row insert rate (2xx answers/s)",
            f"{f0(v)}/s vs {f0(pg)} tps ({pct(v / pg)})", v >= pg))
        out.append((
            "(same, counting only new events, i.e. rows inserted/s)",
            f"{f0(new)}/s vs {f0(pg)} tps ({pct(new / pg)})", new >= pg))
    if "redis-critical-nohandler" in sc:
        v = sc["redis-critical-nohandler"]["max"]["ok_per_s"]
        out.append((
            "(same, critical with no handler: the insert alone, no delivery rows or workers)",
            f"{f0(v)}/s vs {f0(pg)} tps ({pct(v / pg)})", v >= pg))
    for name, d in sc.items():
        h = d["half"]
        p99 = h["latency_ms"]["p99"]
        svc = h.get("service_latency_ms", {}).get("p99")
        out.append((
            f"p99 < 10 ms at half the maximum rate: {name}",
            f"p99 {f2(p99)} ms at {f0(h['rate_target'])}/s offered "
            f"({f0(h['ok_per_s'])}/s answered 200; from the send: {f2(svc)} ms)",
            p99 < 10.0 and h["errors"] == 0))
    mems = [(n, d["redis_memory"]) for n, d in sc.items() if d.get("redis_memory", {}).get("mean")]
    for n, m in mems:
        out.append((
            f"< 150 bytes of Redis memory per completed dedup key ({n})",
            f"{m['mean']:.0f} B mean by MEMORY USAGE (key of {m['key_bytes']} B, "
            f"{m['sampled']} keys sampled)", m["mean"] < 150))
        per = m.get("used_memory_delta_per_key")
        if per:
            out.append((
                f"(same, {n}, by `used_memory` growth per key: adds the expiry table "
                "entry and hash-table buckets that MEMORY USAGE leaves out)",
                f"{per:.0f} B over {m['keys']:,} keys", per < 150))
    return out


def scenario_table(name, d, res):
    bare = bare_rate(res)
    rb = res["baselines"]["redis_benchmark"]["requests_per_s"]
    pg = pg_rate(res)
    lines = [
        "| pass | offered | 2xx/s | new events/s | duplicates/s | p50 ms | p99 ms | p99.9 ms | p99 from send ms | other statuses, errors | deliveries/s (window) | drained | hookline CPU (cores) | RSS MiB (end / peak) | load gen CPU |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, r in (("max", d["max"]), ("half of max", d["half"])):
        cores, rss, peak = proc(r)
        other = {k: v for k, v in r["status"].items() if k != "200"}
        dl = r.get("deliveries") or {}
        dr = r.get("drain") or {}
        drained = ("n/a (no handler)" if "nohandler" in name else
                   (f"{dr.get('delivered')}/{dr.get('expected')} in {dr.get('seconds_after_load', 0):.1f} s"
                    if dr else "n/a"))
        lines.append(
            f"| {label} | {'closed loop, ' + str(r['concurrency']) + ' conns' if r['rate_target'] is None else f0(r['rate_target']) + '/s'} "
            f"| {f0(r['ok_per_s'])} | {f0(r['accepted_per_s'])} | {f0(r['duplicates'] / r['duration_s'])} "
            f"| {f2(r['latency_ms']['p50'])} | {f2(r['latency_ms']['p99'])} | {f2(r['latency_ms']['p99_9'])} "
            f"| {f2(r.get('service_latency_ms', {}).get('p99'))} "
            f"| {other or '-'}, {r['errors']} | {f0(dl.get('per_second')) if dl and 'nohandler' not in name else 'n/a'} "
            f"| {drained} | {f2(cores)} | {f0(rss / 1024 if rss else None)} / {f0(peak / 1024 if peak else None)} "
            f"| {f2(r.get('loadgen_cores'))} |")
    m = d["max"]["ok_per_s"]
    ratios = [f"÷ bare endpoint: **{pct(m / bare)}**"]
    if name.startswith("redis"):
        ratios.append(f"÷ redis-benchmark claim.lua: **{pct(m / rb)}**")
        ratios.append(f"÷ pgbench insert: **{pct(m / pg)}**")
    else:
        ratios.append(f"÷ pgbench insert (for scale; this store is SQLite): {pct(m / pg)}")
    lines.append("")
    lines.append("Ratios of the maximum 2xx/s: " + "; ".join(ratios) + ".")
    return lines


def render(res):
    m = res["machine"]
    s = res["settings"]
    b = res["baselines"]
    L = []
    L.append("# hookline benchmark report")
    L.append("")
    L.append("Generated by `bench/run` (rendered by `bench/report.py` from "
             f"`bench/results.json`) at {res['generated_at']}, commit `{m['git_commit']}`.")
    L.append("")
    L.append("## Machine")
    L.append("")
    L.append(f"- CPU: {m['cpu_model']}, `nproc` = {m['nproc']}; memory {m['memory_gib']} GiB; Linux {m['kernel']}")
    L.append(f"- {m['rustc']}; Redis {m['redis']}; PostgreSQL {m['postgresql']}; {m['redis_benchmark']}; {m['pgbench']}")
    L.append("- Everything runs on this one machine: the load generator, hookline, the sink, "
             "Redis and PostgreSQL share the same cores, so every figure here is a "
             "lower bound of what hookline does with cores of its own.")
    L.append("")
    L.append("## How it was measured")
    L.append("")
    env = " ".join(f"{k}={v}" for k, v in sorted(s["env"].items()))
    L.append(f"Command: `{(env + ' ') if env else ''}{s['command']}`.")
    L.append("")
    L.append(
        f"- Load generator: `bench-load` (src/bin/bench-load.rs), the same for every HTTP target, "
        f"including the bare baseline. It pre-signs every request (Stripe scheme, "
        f"`hookline::provider::sender_headers`), {s['body_bytes']}-byte JSON bodies, unique "
        f"Stripe-shaped event IDs, and {pct(s['dup_share'])} exact copies of earlier requests "
        f"(provider retries, answered `duplicate`). It keeps {s['concurrency']} keep-alive "
        f"HTTP/1.1 connections, warms up {s['warmup_s']:.0f} s (not recorded), then measures "
        f"{s['duration_s']:.0f} s. `max` is a closed loop (as fast as answered); `half of max` is "
        f"an open loop at half the max 2xx/s, with latency counted from each request's scheduled "
        f"start (no coordinated omission). wrk is not used.")
    L.append("- Latency is the time to the answer to the provider. Deliveries/s is what the sink "
             "(`bench-sink`, the one configured handler, answers 200) received during the "
             "measured window; `drained` is every accepted event of the pass (warm-up included) "
             "delivered, and how long after the load stopped.")
    L.append("- CPU is user + system time of the hookline process from /proc/<pid>/stat over the "
             "window (1.00 = one core); RSS from /proc/<pid>/status (VmRSS, VmHWM).")
    L.append(f"- hookline runs with `RUST_LOG={s['rust_log']}` (its default: one log line per "
             "request and per delivery), stderr to a file.")
    L.append("")
    L.append("## Baselines")
    L.append("")
    bare = b["bare"]
    cores, rss, _ = proc(bare)
    L.append("| baseline | rate | latency | notes |")
    L.append("|---|---|---|---|")
    L.append(f"| bare actix-web endpoint (`bench-bare`: reads the body, answers 200) | "
             f"{f0(bare['requests_per_s'])} req/s | p50 {f2(bare['latency_ms']['p50'])} ms, "
             f"p99 {f2(bare['latency_ms']['p99'])} ms, p99.9 {f2(bare['latency_ms']['p99_9'])} ms | "
             f"{f2(cores)} cores, load generator {f2(bare.get('loadgen_cores'))} cores |")
    rb = b["redis_benchmark"]
    L.append(f"| `redis-benchmark` claim.lua by EVALSHA | {f0(rb['requests_per_s'])} calls/s | "
             f"avg {f2(rb.get('avg_latency_ms'))} ms, p99 {f2(rb.get('p99_latency_ms'))} ms | "
             f"{rb['clients']} clients, {rb['requests']:,} calls, random keys: `{rb['command']}` |")
    pg = b["pgbench"]
    L.append(f"| `pgbench` single-row `INSERT ... ON CONFLICT DO NOTHING` | {f0(pg['tps'])} tps | "
             f"avg {f2(pg.get('latency_avg_ms'))} ms | `{pg['command']}`, "
             f"`processed_event`-shaped table, {s['body_bytes']}-byte body |")
    if "pgbench_end" in b:
        pe = b["pgbench_end"]
        L.append(f"| the same pgbench again, after every scenario (drift check) | {f0(pe['tps'])} tps | "
                 f"avg {f2(pe.get('latency_avg_ms'))} ms | |")
    bs = b.get("bare_sizes", {}).get(str(s["body_bytes"]))
    if bs:
        L.append(f"| the bare endpoint again, after every scenario (drift check) | "
                 f"{f0(bs['requests_per_s'])} req/s | p99 {f2(bs['latency_ms']['p99'])} ms | |")
    L.append("")
    L.append(f"Ratios and targets use the higher of each pair: bare endpoint {f0(bare_rate(res))} req/s, "
             f"pgbench {f0(pg_rate(res))} tps.")
    L.append("")
    L.append("pgbench script:")
    L.append("")
    L.append("```sql")
    L.append(pg["script"].rstrip())
    L.append("```")
    L.append("")
    L.append("## Targets")
    L.append("")
    L.append("| target | measured | |")
    L.append("|---|---|---|")
    for name, fig, ok in targets(res):
        L.append(f"| {name} | {fig} | {'**met**' if ok else '**missed**'} |")
    L.append("")
    L.append("## Scenarios (`ack = \"durable\"`)")
    for name, d in res["scenarios"].items():
        L.append("")
        L.append(f"### {name}: {TITLES.get(name, name)}")
        L.append("")
        L.extend(scenario_table(name, d, res))
        if d.get("redis_memory", {}).get("mean"):
            rm = d["redis_memory"]
            per = rm.get("used_memory_delta_per_key")
            L.append("")
            L.append(
                f"Redis memory per dedup key: **{rm['mean']:.0f} B** mean by `MEMORY USAGE ... SAMPLES 0` "
                f"over {rm['sampled']} keys (min {rm['min']}, median {rm['median']}, max {rm['max']}; "
                f"{rm['completed_in_sample']} of the first 50 COMPLETED), key "
                f"`{rm['key_example']}` ({rm['key_bytes']} B). `used_memory` grew by "
                f"{f0(per)} B per key over {f0(rm['keys'])} keys (this includes the keyspace "
                "and expiry hash tables, which MEMORY USAGE does not count).")
        if d.get("sizes"):
            L.append("")
            L.append("Body sizes (closed loop, max rate):")
            L.append("")
            L.append("| body | 2xx/s | new events/s | p50 ms | p99 ms | p99.9 ms | hookline CPU | bare endpoint req/s | ÷ bare |")
            L.append("|---|---|---|---|---|---|---|---|---|")
            bs = b.get("bare_sizes", {})
            for size, r in sorted(d["sizes"].items(), key=lambda kv: int(kv[0])):
                cores, _, _ = proc(r)
                bare_r = bs.get(size, {}).get("requests_per_s")
                L.append(f"| {int(size) // 1024} KiB | {f0(r['ok_per_s'])} | {f0(r['accepted_per_s'])} | "
                         f"{f2(r['latency_ms']['p50'])} | {f2(r['latency_ms']['p99'])} | "
                         f"{f2(r['latency_ms']['p99_9'])} | {f2(cores)} | {f0(bare_r)} | "
                         f"{pct(r['ok_per_s'] / bare_r) if bare_r else 'n/a'} |")
        L.append("")
        L.append("<details><summary>config</summary>")
        L.append("")
        L.append("```toml")
        L.append(d["config"].rstrip())
        L.append("```")
        L.append("")
        L.append("</details>")
    L.append("")
    L.append("![throughput and p99 per scenario](throughput.png)")
    L.append("")
    return L


def plot(res, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return False
    names = ["bare"] + list(res["scenarios"])
    tput = [res["baselines"]["bare"]["ok_per_s"]] + [d["max"]["ok_per_s"] for d in res["scenarios"].values()]
    p99max = [res["baselines"]["bare"]["latency_ms"]["p99"]] + [d["max"]["latency_ms"]["p99"] for d in res["scenarios"].values()]
    p99half = [None] + [d["half"]["latency_ms"]["p99"] for d in res["scenarios"].values()]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 5))
    xs = range(len(names))
    bars = a1.bar(xs, tput, color=["#999999"] + ["#3b75af"] * (len(names) - 1))
    a1.axhline(res["baselines"]["redis_benchmark"]["requests_per_s"], color="#c44e52", ls="--",
               label="redis-benchmark claim.lua calls/s")
    a1.axhline(pg_rate(res), color="#55a868", ls=":", label="pgbench insert tps")
    for bar, v in zip(bars, tput):
        a1.annotate(f"{v:,.0f}", (bar.get_x() + bar.get_width() / 2, v), ha="center", va="bottom", fontsize=8)
    a1.set_xticks(list(xs), names, rotation=20, ha="right", fontsize=8)
    a1.set_ylabel("2xx answers / s (max, closed loop)")
    a1.set_yscale("log")
    a1.set_title("Throughput")
    a1.legend(fontsize=8)
    w = 0.4
    a2.bar([x - w / 2 for x in xs], p99max, w, label="p99 at max rate", color="#dd8452")
    a2.bar([x + w / 2 for x in list(xs)[1:]], p99half[1:], w, label="p99 at half of max", color="#55a868")
    a2.axhline(10, color="#c44e52", ls="--", label="10 ms target")
    a2.set_xticks(list(xs), names, rotation=20, ha="right", fontsize=8)
    a2.set_ylabel("ms")
    a2.set_title("p99 latency of the answer to the provider")
    a2.legend(fontsize=8)
    m = res["machine"]
    fig.suptitle(f"hookline, {m['nproc']} cores ({m['cpu_model']}), load generator on the same cores", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--report", default="bench/REPORT.md")
    ap.add_argument("--plot", default="bench/throughput.png")
    ap.add_argument("--notes", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "NOTES.md"))
    a = ap.parse_args()
    res = json.load(open(a.results))
    lines = render(res)
    if not plot(res, a.plot):
        lines.append("(No plot: matplotlib could not be installed on this machine.)")
    if os.path.exists(a.notes):
        lines.append(open(a.notes).read().rstrip())
        lines.append("")
    open(a.report, "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
