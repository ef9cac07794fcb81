"""The rate of one more pass that decides a capacity target of issue 25,
or that narrows its measured limit.

    python3 bench/capacity_check.py PARTS_DIR SCENARIO BODY_BYTES DUP_SHARE [narrow]

DUP_SHARE is the share of the load's requests that repeat an earlier one
(bench/run's BENCH_DUP_SHARE): a pass offering R requests/s brings about
R * (1 - DUP_SHARE) new events/s.

The sustained-rate search picks its rates for the 10 ms bound, so its
passes can leave a capacity target undecided: the highest pass that met
the capacity bounds below the target's rate, and either no pass above it
or the lowest failing one above the target's rate (run 21's streams:
6,151/s met, 8,784/s did not, the target 7,366/s between them). Then
`bench/run` offers one pass at the target's rate (MARGIN above it, so the
higher bare or pgbench figure measured at the end of the run still counts
it), judged by the same bounds as every other pass. The target counts new
events, so the pass offers that many plus the load's retries.

Prints that rate, or nothing when the run's passes already decide the
target (one met the bounds at or above it, or one failed at or below it)
or the run has no pass of the scenario, with the reason on stderr.

With `narrow`, the rate of a pass that narrows the bracket the passes so
far leave (the highest pass that met the bounds, the lowest that failed
above it): their geometric mean, while the failing pass offers more than
NARROW_RATIO times the met one. Run 38 bracketed the critical scenario's
capacity between 3,624/s and the target's pass at 15,892/s ("24%-105% of
pgbench"), a limit too wide to say how far the target is. Prints nothing,
with the reason on stderr, when the bracket is narrow enough or open.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from assemble import baselines, load, narrowing_passes, sustained  # noqa: E402
from report_issue25 import CAPACITY_TARGETS, capacity  # noqa: E402
from report_targets import bare_rate, pg_rate  # noqa: E402

MARGIN = 1.05
NARROW_RATIO = 1.25


def partial_results(parts, name, body_bytes):
    """The part of bench/results.json that `capacity` reads, from the
    run's parts so far (bench/assemble.py reads them the same way)."""
    res = {"settings": {"body_bytes": body_bytes}, "baselines": baselines(parts),
           "scenarios": {}, "sustained": {}}
    if os.path.exists(f"{parts}/{name}.max.json"):
        res["scenarios"][name] = {"max": load(f"{parts}/{name}.max.json")}
    if os.path.exists(f"{parts}/{name}.search.json"):
        res["sustained"][name] = sustained(parts, name)
    if os.path.exists(f"{parts}/{name}.target.json"):
        res["capacity_checks"] = {name: load(f"{parts}/{name}.target.json")}
    narrowing = narrowing_passes(parts, name)
    if narrowing:
        res["capacity_narrowing"] = {name: narrowing}
    return res


def narrow(res, name):
    """The offered rate between the bracket's ends, or None (why on stderr)."""
    low, high = capacity(res, name)
    if low is None or high is None:
        print("no bracket to narrow (no pass met the bounds, or none failed above)", file=sys.stderr)
        return None
    lo, hi = low["requests_per_s"], high["requests_per_s"]
    if hi <= lo * NARROW_RATIO:
        print(f"bracket {lo:.0f}-{hi:.0f}/s is narrow enough", file=sys.stderr)
        return None
    return round(math.sqrt(lo * hi))


def main():
    parts, name, body_bytes, dup_share = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    mode = sys.argv[5] if len(sys.argv) > 5 else "decide"
    if mode not in ("decide", "narrow"):
        sys.exit(f"unknown mode {mode!r} (decide or narrow)")
    target = next((t for t in CAPACITY_TARGETS if t[0] == name), None)
    if target is None:
        sys.exit(f"{name} has no capacity target (issue 25 names: "
                 f"{', '.join(t[0] for t in CAPACITY_TARGETS)})")
    _, _, base, share = target
    res = partial_results(parts, name, body_bytes)
    if mode == "narrow":
        rate = narrow(res, name)
        if rate is not None:
            print(rate)
        return
    ref = bare_rate(res) if base == "bare" else pg_rate(res)
    if name in res.get("capacity_checks", {}):
        print("decided: the pass at the target's rate was made", file=sys.stderr)
        return
    if ref is None:
        print(f"no {base} baseline in this run: the capacity target has no rate", file=sys.stderr)
        return
    # The target counts new events; the load's retries come on top.
    new = share * ref
    low, high = capacity(res, name)
    if not (res["scenarios"] or res["sustained"]):
        print("no pass of this scenario in this run", file=sys.stderr)
    elif low is not None and low["accepted_per_s"] >= new:
        print(f"decided: {low['accepted_per_s']:.0f} new/s met the bounds (target {new:.0f} new/s)", file=sys.stderr)
    elif high is not None and high["accepted_per_s"] <= new:
        print(f"decided: {high['accepted_per_s']:.0f} new/s failed the bounds (target {new:.0f} new/s)", file=sys.stderr)
    else:
        print(math.ceil(new / (1 - dup_share) * MARGIN))


if __name__ == "__main__":
    main()
