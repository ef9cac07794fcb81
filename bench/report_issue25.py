"""Issue 25's targets, judged from bench/results.json (used by report.py).

Capacity is the highest offered rate among a scenario's passes (its
closed-loop maximum and its sustained-rate search) where every answer was
2xx, deliveries kept pace at 95% or more of the new events, the backlog at
the end was under 1 s of them and p99 was at most 100 ms. It is judged, as
the issue says, by the new events of that pass (its answers `accepted`
inside the window; the load's retries, answered `duplicate`, are not
counted) against the baseline's rate (every bare request and every pgbench
row is new). The passes are
those of one run, so the capacity is bracketed: the highest pass that met
the bounds, and the lowest above it that did not. Where the search's passes
left the target undecided, `bench/run` added one pass at the target's rate
(bench/capacity_check.py), which counts like the others, and where the
bracket was wide, up to two passes between its ends narrowed it (the same
script's `narrow`).
"""

from report_targets import bare_rate, f0, pct, pg_rate

CAPACITY_P99_MS = 100
DELIVERED_SHARE = 0.95
BACKLOG_S = 1.0
PG_MS_PER_EVENT = 0.08
REDIS_ONLY_SHARE = 0.40

# (scenario, what, baseline, share of the baseline): issue 25, item 3.
CAPACITY_TARGETS = [
    ("redis-noncritical", "redis store, non-critical, one handler (deliveries in PostgreSQL)", "bare", 0.10),
    ("redis-noncritical-streams", "redis store, non-critical, one handler (deliveries in Redis Streams)", "bare", 0.10),
    ("redis-critical", "redis + PostgreSQL, critical, one handler", "pgbench", 1.00),
    ("embedded", "embedded store, critical, one handler", "bare", 0.05),
]


def failed_bounds(p):
    """The capacity bounds pass `p` fails, by name (empty: it meets them)."""
    failed = []
    other = sum(n for s, n in p["status"].items() if not s.startswith("2")) + p["errors"]
    if other or p["answered"] < p["scheduled"]:
        failed.append("answers not 2xx")
    d = p.get("deliveries") or {}
    new = p["accepted_per_s"]
    if new and (d.get("per_second") or 0) < DELIVERED_SHARE * new:
        failed.append(f"delivered {pct((d.get('per_second') or 0) / new)} of new events")
    if new and (d.get("backlog_at_end") or 0) / new >= BACKLOG_S:
        failed.append(f"backlog {d['backlog_at_end'] / new:.1f} s")
    if p["latency_ms"]["p99"] > CAPACITY_P99_MS:
        failed.append(f"p99 {p['latency_ms']['p99']:.0f} ms")
    return failed


def passes(res, name):
    out = []
    if name in res.get("scenarios", {}):
        out.append(res["scenarios"][name]["max"])
    sus = res.get("sustained", {}).get(name)
    if sus:
        out += [s["pass"] for s in sus["search"]["steps"]]
    check = res.get("capacity_checks", {}).get(name)
    if check:
        out.append(check)
    out += res.get("capacity_narrowing", {}).get(name, [])
    return out


def sustained_pass(res, name):
    """The search's pass at the sustained rate, if any."""
    sus = res.get("sustained", {}).get(name) or {}
    rate = sus.get("sustained_rate")
    steps = (sus.get("search") or {}).get("steps", [])
    return next((s["pass"] for s in steps if rate and s["ok"] and s["rate"] == rate), None)


def rate_label(p, res, name):
    """A pass's offered rate, naming the pass at the target's rate."""
    check = res.get("capacity_checks", {}).get(name)
    narrowing = res.get("capacity_narrowing", {}).get(name, [])
    what = (" (the pass at the target's rate)" if p is check
            else " (a pass that narrowed the bracket)" if any(p is n for n in narrowing) else "")
    return f"{f0(p['requests_per_s'])}/s" + what


def capacity(res, name):
    """(highest pass meeting the bounds, lowest failing pass above it);
    either may be None."""
    ps = passes(res, name)
    met = [p for p in ps if not failed_bounds(p)]
    low = max(met, key=lambda p: p["requests_per_s"]) if met else None
    floor = low["requests_per_s"] if low else 0
    above = [p for p in ps if failed_bounds(p) and p["requests_per_s"] > floor]
    high = min(above, key=lambda p: p["requests_per_s"]) if above else None
    return low, high


def describe(low, high, ref, unit, label):
    parts = []
    if low:
        parts.append(f"{label(low)} met the bounds ({f0(low['accepted_per_s'])} new/s, "
                     f"p99 {low['latency_ms']['p99']:.0f} ms)")
    if high:
        parts.append(f"{label(high)} did not ({'; '.join(failed_bounds(high))})")
    if low and high:
        span = f"{pct(low['accepted_per_s'] / ref)}-{pct(high['accepted_per_s'] / ref)}"
    elif low:
        span = f"at least {pct(low['accepted_per_s'] / ref)}"
    elif high:
        span = f"below {pct(high['accepted_per_s'] / ref)}"
    else:
        span = "n/a"
    return "; ".join(parts) + f": **{span}** of {f0(ref)} {unit} (new events ÷ the baseline)"


def targets(res):
    """(target, measured, verdict) for issue 25's capacity, sustained and
    PostgreSQL-per-event targets."""
    out = []
    for name, what, base, share in CAPACITY_TARGETS:
        target = f"{what}: capacity >= {pct(share)} of {'the bare endpoint' if base == 'bare' else 'pgbench'}"
        ref = bare_rate(res) if base == "bare" else pg_rate(res)
        low, high = capacity(res, name)
        if ref is None or not (low or high):
            out.append((target, "not in this run", "not measured"))
            continue
        met = low is not None and low["accepted_per_s"] >= share * ref
        out.append((target, describe(low, high, ref, "req/s" if base == "bare" else "tps",
                                         lambda p: rate_label(p, res, name)),
                    "met" if met else "missed"))
        sus = res.get("sustained", {}).get(name)
        if sus is not None and low is not None:
            need = low["requests_per_s"] / 2
            rate = sus["sustained_rate"] or 0
            out.append((f"{what}: sustained (p99 <= 10 ms) >= half the capacity",
                        f"{f0(rate)}/s against {f0(need)}/s (half the capacity's lower bound)",
                        "met" if rate >= need else "missed"))
    target = f"Redis-only path (no handler, non-critical) >= {pct(REDIS_ONLY_SHARE)} of the bare endpoint"
    only = res.get("scenarios", {}).get("redis-noncritical-nohandler")
    ref = bare_rate(res)
    if only is None or ref is None:
        out.append((target, "not in this run", "not measured"))
    else:
        rate, new = only["max"]["requests_per_s"], only["max"]["accepted_per_s"]
        sus = sustained_pass(res, "redis-noncritical-nohandler")
        out.append((target, f"closed-loop maximum {f0(rate)} req/s, {f0(new)} new events/s = **{pct(new / ref)}**"
                    + (f"; sustained {f0(sus['requests_per_s'])}/s, {f0(sus['accepted_per_s'])} new/s = "
                       f"{pct(sus['accepted_per_s'] / ref)}" if sus else ""),
                    "met" if new >= REDIS_ONLY_SHARE * ref else "missed"))
    pg = res.get("pg_per_event")
    target = f"PostgreSQL time per delivered critical event <= {PG_MS_PER_EVENT} ms"
    if pg is None:
        out.append((target, "not in this run", "not measured"))
    else:
        worst = max(pg["exec_ms_per_event"], pg["cpu_ms_per_event"])
        warm = res.get("pg_per_event_warm")
        out.append((target, f"{pg['exec_ms_per_event']:.3f} ms of statement execution "
                    f"(`pg_stat_statements`), {pg['cpu_ms_per_event']:.3f} ms of PostgreSQL CPU, "
                    f"at {f0(pg['offered_per_s'])} req/s"
                    + (f" (on tables that already hold rows: {warm['exec_ms_per_event']:.3f} and "
                       f"{warm['cpu_ms_per_event']:.3f} ms)" if warm else ""),
                    "met" if worst <= PG_MS_PER_EVENT else "missed"))
    return out


def cpu_split(pg):
    """Which PostgreSQL processes spent the CPU, and how much of it in the
    kernel (runs before 2026-11-29 did not record it)."""
    by = pg.get("cpu_ms_per_event_by_process")
    if not by:
        return ""
    parts = ", ".join(f"{k} {v:.3f}" for k, v in sorted(by.items(), key=lambda kv: -kv[1]) if v > 0)
    return f": by process {parts}; in the kernel {pg['cpu_system_ms_per_event']:.3f}"


def pg_section(res):
    pg = res.get("pg_per_event")
    if pg is None:
        return []
    s = pg["settings"]
    L = ["", "## PostgreSQL time per delivered event (issue 25, item 1)", "",
         f"`PG_EVENTS_RATE={s['rate']} PG_EVENTS_DURATION={s['duration_s']} bench/lib/pg_per_event.sh` "
         f"with this run's binaries: critical {s['critical']}, store {s['store']}, one handler, on a "
         "PostgreSQL of its own with `pg_stat_statements`; the processes' CPU from /proc.", "",
         f"- {f0(pg['delivered'])} events delivered ({f0(pg['offered_per_s'])} req/s offered, "
         f"{f0(pg['new_per_s'])} new/s, p99 {pg['p99_ms']:.1f} ms)",
         f"- statement execution: **{pg['exec_ms_per_event']:.3f} ms per event** "
         f"({pg['calls_per_event']:.2f} statements per event)",
         f"- PostgreSQL CPU: **{pg['cpu_ms_per_event']:.3f} ms per event** (target {PG_MS_PER_EVENT} ms)"
         + cpu_split(pg),
         ]
    warm = res.get("pg_per_event_warm")
    if warm:
        L.append(f"- the same after an unmeasured pass of {warm['settings'].get('warm_s', '?')} s at that "
                 "rate (tables that already hold rows, as a running deployment's do, and so "
                 "fewer `ANALYZE`s of tables growing from empty): "
                 f"**{warm['exec_ms_per_event']:.3f} ms** of execution, "
                 f"**{warm['cpu_ms_per_event']:.3f} ms** of CPU per event" + cpu_split(warm)
                 + f" ({f0(warm['delivered'])} events, p99 {warm['p99_ms']:.1f} ms). "
                 "The target is judged on the first pass.")
    L += ["", "| ms per event | calls per event | statement |", "|---|---|---|"]
    for t in pg["top"]:
        text = t["text"].replace("|", "\\|")
        L.append(f"| {t['ms_per_event']:.4f} | {t['calls_per_event']:.2f} | `{text}` |")
    return L
