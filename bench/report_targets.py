"""Issue 12's targets, judged from bench/results.json (used by report.py)."""


def f0(v):
    return "n/a" if v is None else f"{v:,.0f}"


def f2(v):
    return "n/a" if v is None else f"{v:.2f}"


def pct(v):
    # Small shares keep a decimal: 0.4% and 0.8% are not both "0%".
    if v is None:
        return "n/a"
    return f"{100 * v:.1f}%" if abs(v) < 0.1 else f"{100 * v:.0f}%"


def bare_rate(res, size=None):
    """The bare endpoint's rate at this body size: the higher of its passes
    (the main one and the size sweep's), so a ratio is never flattered by
    a slow baseline pass. None without a bare pass."""
    b = res["baselines"]
    size = str(size or res["settings"]["body_bytes"])
    rates = []
    if "bare" in b and str(b["bare"]["body_bytes"]) == size:
        rates.append(b["bare"]["requests_per_s"])
    if size in b.get("bare_sizes", {}):
        rates.append(b["bare_sizes"][size]["requests_per_s"])
    return max(rates) if rates else None


def pg_rate(res):
    """pgbench tps: the higher of the runs at the start and at the end."""
    b = res["baselines"]
    rates = [b[k]["tps"] for k in ("pgbench", "pgbench_end") if k in b]
    return max(rates) if rates else None


# (scenario, what, baseline, share): issue 12, "Targets".
SUSTAINED_TARGETS = [
    ("redis-noncritical", "redis store, non-critical events, one handler", "bare", 0.10),
    ("redis-noncritical-streams", "redis store, non-critical events, one handler, deliveries in Redis Streams", "bare", 0.10),
    ("redis-critical", "redis + PostgreSQL, critical events, one handler", "pgbench", 0.50),
    ("embedded", "embedded store, critical events, one handler", "bare", 0.05),
    ("redis-noncritical-nohandler", "redis store, no handler, non-critical (the Redis-only path)", "bare", 0.40),
]
BASELINE_NAMES = {"bare": "the bare endpoint", "pgbench": "pgbench's single-row insert rate"}
MEMORY_LIMIT = 150
ISOLATION_SHARE = 0.90


def limited_by(sus):
    """What failed at the lowest rate tried above the sustained one: the
    measured limit of a search."""
    steps = sus["search"]["steps"]
    lo = sus["sustained_rate"] or 0
    above = [s for s in steps if not s["ok"] and s["rate"] > lo]
    if not above:
        return None
    first = min(above, key=lambda s: s["rate"])
    failed = [c for c in first["checks"] if not c["ok"]]
    return f"at {f0(first['rate'])}/s: " + "; ".join(
        f"{c['name']} {c['measured']:.3g} (limit {c['limit']:g})" for c in failed)


def isolation_ratio(res):
    iso = res.get("isolation")
    if not iso:
        return None, None, None
    alone = (iso["alone"].get("deliveries") or {}).get("per_second")
    slow = (iso["with_slow"].get("deliveries") or {}).get("per_second")
    if not alone or slow is None:
        return alone, slow, None
    return alone, slow, slow / alone


def targets(res):
    """(target, measured, verdict, limited by) for each target of issue 12;
    verdict is met, missed or not measured."""
    out = []
    for name, what, base, share in SUSTAINED_TARGETS:
        target = f"{what}: sustained rate >= {pct(share)} of {BASELINE_NAMES[base]}"
        sus = res.get("sustained", {}).get(name)
        ref = bare_rate(res) if base == "bare" else pg_rate(res)
        if sus is None or ref is None:
            out.append((target, "not in this run", "not measured", None))
            continue
        rate = sus["sustained_rate"]
        unit = "req/s" if base == "bare" else "tps"
        measured = (f"{f0(rate or 0)}/s = {pct((rate or 0) / ref)} of {f0(ref)} {unit}"
                    if rate else f"no rate sustained (lowest tried "
                    f"{f0(min(s['rate'] for s in sus['search']['steps']))}/s); {f0(ref)} {unit}")
        ok = rate is not None and rate >= share * ref
        out.append((target, measured, "met" if ok else "missed", None if ok else limited_by(sus)))
    mem = res.get("memory")
    target = f"Redis memory per completed dedup key < {MEMORY_LIMIT} B by `used_memory` growth"
    if mem and mem.get("used_memory_per_key") is not None:
        per = mem["used_memory_per_key"]
        out.append((target, f"{per:.0f} B over {f0(mem['keys_after'] - mem['keys_before'])} keys "
                    f"(`MEMORY USAGE`: {f0(mem.get('memory_usage_mean'))} B)",
                    "met" if per < MEMORY_LIMIT else "missed",
                    None if per < MEMORY_LIMIT else f"key of {mem['key_bytes']} B, e.g. `{mem['key_example']}`"))
    else:
        out.append((target, "not in this run", "not measured", None))
    target = (f"isolation: with one handler timing out, a healthy handler's delivered rate "
              f">= {pct(ISOLATION_SHARE)} of its rate alone")
    alone, slow, ratio = isolation_ratio(res)
    if ratio is None:
        out.append((target, "not in this run", "not measured", None))
    else:
        ok = ratio >= ISOLATION_SHARE
        out.append((target, f"{f0(slow)}/s against {f0(alone)}/s alone = {pct(ratio)} "
                    f"at {f0(res['isolation']['rate'])}/s offered",
                    "met" if ok else "missed", None))
    return out
