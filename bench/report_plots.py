"""The plots of bench/REPORT.md (used by report.py): throughput per
scenario, and accepted against delivered per second over time."""

import sys

from report_targets import bare_rate, pg_rate


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return None


def throughput(res, path):
    """Closed-loop maximum and sustained rate per scenario, with the
    baselines as lines. False without matplotlib."""
    plt = _pyplot()
    if plt is None:
        return False
    names = sorted(set(res["scenarios"]) | set(res.get("sustained", {})))
    mx = [res["scenarios"].get(n, {}).get("max", {}).get("ok_per_s", 0) for n in names]
    sus = [res.get("sustained", {}).get(n, {}).get("sustained_rate") or 0 for n in names]
    fig, ax = plt.subplots(figsize=(12, 5))
    xs = range(len(names))
    w = 0.4
    ax.bar([x - w / 2 for x in xs], mx, w, label="closed-loop maximum, 2xx/s", color="#9bb7d4")
    ax.bar([x + w / 2 for x in xs], sus, w, label="sustained rate (issue 12 bounds)", color="#3b75af")
    for x, v in zip(xs, sus):
        if v:
            ax.annotate(f"{v:,.0f}", (x + w / 2, v), ha="center", va="bottom", fontsize=8)
    if bare_rate(res):
        ax.axhline(bare_rate(res), color="#999999", ls="-", label="bare endpoint req/s")
    rb = res["baselines"].get("redis_benchmark")
    if rb:
        ax.axhline(rb["requests_per_s"], color="#c44e52", ls="--", label="redis-benchmark claim.lua calls/s")
    if pg_rate(res):
        ax.axhline(pg_rate(res), color="#55a868", ls=":", label="pgbench insert tps")
    ax.set_xticks(list(xs), names, rotation=15, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("requests / s")
    ax.legend(fontsize=8)
    m = res["machine"]
    ax.set_title(f"hookline throughput, {m['nproc']} cores ({m['cpu_model']}), load generator on the same cores",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def _shown_steps(sus):
    """The winning pass and the lowest failing one above it (the backlog
    that made it fail), or the lowest pass tried when none held."""
    steps = sus["search"]["steps"]
    rate = sus["sustained_rate"]
    if rate is None:
        return [("lowest rate tried, not sustained", min(steps, key=lambda s: s["rate"]))]
    win = [s for s in steps if s["ok"] and s["rate"] == rate][0]
    shown = [("sustained", win)]
    above = [s for s in steps if not s["ok"] and s["rate"] > rate]
    if above:
        shown.append(("next rate tried, not sustained", min(above, key=lambda s: s["rate"])))
    return shown


def _timeline(ax, title, r):
    t = r["timeline"]
    n = len(t["accepted"])
    # Each count covers a whole second: plot it at the second's middle, so
    # it lines up with the measured window's edges.
    xs = [i + 0.5 for i in range(n)]
    ax.plot(xs, t["accepted"], label="accepted (new events) / s", color="#3b75af")
    if "delivered" in t:
        ax.plot(xs, t["delivered"], label="delivered / s", color="#dd8452")
        backlog, total = [], 0
        for a, d in zip(t["accepted"], t["delivered"]):
            total += a - d
            backlog.append(total)
        ax2 = ax.twinx()
        ax2.fill_between(xs, backlog, color="#c44e52", alpha=0.15, label="backlog (accepted - delivered)")
        handles = ax2.get_legend_handles_labels()
        ax2.set_ylim(bottom=0)
        ax2.set_ylabel("backlog", fontsize=8)
        ax2.tick_params(labelsize=7)
    ax.axvspan(t["window_from_s"], t["window_to_s"], color="#999999", alpha=0.1, label="measured window")
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("seconds since the load started", fontsize=8)
    ax.tick_params(labelsize=7)
    h, labels = ax.get_legend_handles_labels()
    if "delivered" in t:
        h, labels = h + handles[0], labels + handles[1]
    ax.legend(h, labels, fontsize=7, loc="lower center")


def timelines(res, path):
    """Per sustained scenario (and the isolation passes), accepted and
    delivered per second over time. False without matplotlib or data."""
    rows = []
    for name, sus in res.get("sustained", {}).items():
        for label, step in _shown_steps(sus):
            rows.append((f"{name}: {step['rate']:,.0f}/s offered ({label})", step["pass"]))
    iso = res.get("isolation")
    if iso:
        rows.append((f"isolation: healthy handler alone, {iso['rate']:,.0f}/s", iso["alone"]))
        rows.append((f"isolation: healthy handler with a timing-out one, {iso['rate']:,.0f}/s", iso["with_slow"]))
    if not rows:
        return False
    plt = _pyplot()
    if plt is None:
        return False
    cols = 2
    nrows = (len(rows) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(13, 3.2 * nrows), squeeze=False)
    for ax, (title, r) in zip([a for row in axes for a in row], rows):
        _timeline(ax, title, r)
    for ax in [a for row in axes for a in row][len(rows):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True
