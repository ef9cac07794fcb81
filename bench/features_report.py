"""bench/FEATURES.md and bench/features.json from the feature passes of one
bench/run (bench/lib/features.sh): what a filter + transform and tracing
cost, each against the same node without it, in the same run.

    python3 bench/features_report.py PARTS OUT.md OUT.json COMMIT UPTIME_BEFORE UPTIME_AFTER
"""

import datetime
import glob
import json
import os
import sys

# (feature, what, off variant, on variant, compared figure, target)
COMPARISONS = [
    ("filter-transform", "one handler: filter + 20-line transform against neither",
     "plain", "filtered", "delivered_per_s", 0.80),
    ("tracing", "Redis-only (no handler): OTLP export at sample_ratio 1.0 against off",
     "nohandler-off", "nohandler-on", "accepted_per_s", 0.90),
    ("tracing", "redis + one handler: OTLP export at sample_ratio 1.0 against off",
     "handler-off", "handler-on", "delivered_per_s", 0.90),
]
# bench/lib/features.sh's default BENCH_FEATURES_ROUNDS.
DEFAULT_ROUNDS = 6
FIGURE = {"delivered_per_s": "delivered/s", "accepted_per_s": "new events/s"}

REPRODUCE = """{rounds}BENCH_SCENARIOS= BENCH_SUSTAINED_SCENARIOS= BENCH_BASELINES= BENCH_MEMORY_KEYS=0 \\
BENCH_ISOLATION_SCENARIO= BENCH_SIZE_SCENARIOS= BENCH_BROKERS= BENCH_DURATION={duration} \\
BENCH_OUT=/tmp/f/results.json BENCH_REPORT=/tmp/f/REPORT.md BENCH_PLOT=/tmp/f/t.png \\
BENCH_TIMELINES=/tmp/f/tl.png bench/run"""


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def compare(passes, feature, what, off, on, figure, target):
    def of(variant):
        return sorted((p for p in passes if p["feature"] == feature and p["variant"] == variant),
                      key=lambda p: p["round"])
    offs, ons = of(off), of(on)
    if not offs or not ons:
        return None
    m_off, m_on = mean(p[figure] for p in offs), mean(p[figure] for p in ons)
    ratio = m_on / m_off if m_off and m_on is not None else None
    rounds = [b[figure] / a[figure] if a[figure] and b[figure] is not None else None
              for a, b in zip(offs, ons)]
    acc_off, acc_on = mean(p["accepted_per_s"] for p in offs), mean(p["accepted_per_s"] for p in ons)
    return {
        "feature": feature, "what": what, "figure": figure, "target": target,
        "off": m_off, "on": m_on, "ratio": ratio, "round_ratios": rounds,
        "met": ratio is not None and ratio >= target,
        "accepted_off": acc_off, "accepted_on": acc_on,
        "accepted_ratio": acc_on / acc_off if acc_off else None,
    }


def fmt(x, spec=".0f"):
    return "n/a" if x is None else format(x, spec)


def main():
    parts, md, js, commit, up_before, up_after = sys.argv[1:]
    passes = [json.load(open(f)) for f in sorted(glob.glob(parts + "/features.*.json"))
              if not f.endswith(".load.json") and os.path.basename(f).count(".") == 4]
    results = [r for r in (compare(passes, *c) for c in COMPARISONS) if r]
    today = datetime.date.today().isoformat()
    slim = [{k: v for k, v in p.items() if k != "load"} for p in passes]
    json.dump({"commit": commit, "date": today, "uptime_before": up_before,
               "uptime_after": up_after, "comparisons": results, "passes": slim,
               "loads": {f'{p["feature"]}.{p["variant"]}.{p["round"]}': p["load"] for p in passes}},
              open(js, "w"), indent=2)
    with open(md, "w") as f:
        f.write("# The cost of a filter + transform and of tracing\n\n")
        f.write(f"bench/run of {today} at {commit} (bench/lib/features.sh says how): "
                "closed-loop passes, redis store, non-critical events, each on a fresh node "
                "and store, off and on alternating.\n\n")
        f.write(f"Load average before: `{up_before.strip()}`; after: `{up_after.strip()}`.\n\n")
        f.write("| comparison | figure | off | on | on / off | per round | new events/s on / off | target | |\n"
                "|---|---|---|---|---|---|---|---|---|\n")
        for r in results:
            per = ", ".join(fmt(x, ".2f") for x in r["round_ratios"])
            f.write(f'| {r["what"]} | {FIGURE[r["figure"]]} | {fmt(r["off"])} | {fmt(r["on"])} '
                    f'| **{fmt(r["ratio"], ".2f")}** | {per} | {fmt(r["accepted_ratio"], ".2f")} | {r["target"]:.0%} '
                    f'| {"met" if r["met"] else "**missed**"} |\n')
        f.write("\nEvery pass:\n\n| pass | round | new events/s | delivered/s | p99 ms | errors "
                "| busy cores | filtered | OTLP posts | spans dropped |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n")
        for p in sorted(slim, key=lambda p: (p["feature"], p["variant"], p["round"])):
            f.write(f'| {p["feature"]} {p["variant"]} | {p["round"]} | {fmt(p["accepted_per_s"])} '
                    f'| {fmt(p["delivered_per_s"])} | {fmt(p["p99_ms"], ".1f")} | {p["errors"]} '
                    f'| {fmt(p["busy_cores"], ".2f")} | {p["filtered_total"]:.0f} '
                    f'| {p["collector_posts"]} | {p["spans_dropped_total"]:.0f} |\n')
        rounds = max((p["round"] for p in passes), default=DEFAULT_ROUNDS)
        duration = round(passes[0]["load"].get("duration_s") or 15) if passes else 15
        ran = sorted({p["feature"] for p in passes})
        command = REPRODUCE.format(
            rounds=("" if ran == ["filter-transform", "tracing"] else f"BENCH_FEATURES='{' '.join(ran)}' ")
            + ("" if rounds == DEFAULT_ROUNDS else f"BENCH_FEATURES_ROUNDS={rounds} "),
            duration=duration)
        f.write(f"\nReproduce (feature passes only, {duration} s each):\n\n```sh\n{command}\n```\n\n"
                "Raw figures: `bench/features.json`.\n")


if __name__ == "__main__":
    main()
