#!/usr/bin/env python3
"""What each pause of a bench/lib/pauses.sh pass coincides with.

    python3 bench/pauses.py DIR

DIR holds what pauses.sh kept: load.json (bench-load's `slow_answers`:
[unix seconds written, ms] of every measured answer of 20 ms or more),
sched-delays.txt (`perf sched timehist` rows whose thread waited 1 ms or
more for a CPU once runnable, on the monotonic clock), clocks (one unix
and one monotonic reading taken together), postgres.log and
redis-latency.txt.

A pause is a run of slow answers whose intervals [written, answered]
overlap. For each pause: when, how long, how many answers it held, the
longest scheduler delay of each process in it (hookline's threads,
PostgreSQL's, Redis's, the load generator's and the sink's), and the
PostgreSQL log lines (checkpoints, autovacuum, slow statements, lock
waits) and Redis latency events within it. The verdict counts the pauses
that a scheduler delay of at least half the pause's length explains.
"""

import json
import os
import re
import sys
from datetime import datetime, timezone

SLACK = 0.005  # s: clocks of different processes, read apart


def pauses(slow):
    """Runs of overlapping [start, end] intervals, each with its answers."""
    runs = []
    for t, ms in sorted(slow):
        end = t + ms / 1000
        if runs and t <= runs[-1]["end"] + SLACK:
            r = runs[-1]
            r["end"] = max(r["end"], end)
            r["answers"] += 1
            r["max_ms"] = max(r["max_ms"], ms)
        else:
            runs.append({"start": t, "end": end, "answers": 1, "max_ms": ms})
    return runs


def process_of(task):
    """The program a `perf sched` task belongs to, from its thread name."""
    name = task.rsplit("[", 1)[0]
    for prefix, program in (
        ("postgres", "postgres"),
        ("redis", "redis"),
        ("bench-load", "bench-load"),
        ("bench-sink", "bench-sink"),
        ("hookline", "hookline"),
        ("actix", "hookline"),
        ("tokio", "hookline"),
    ):
        if name.startswith(prefix):
            return program
    return "other"


def sched_delays(path, offset):
    """(unix time the thread ran, its wait for a CPU in s, program, task)."""
    rows = []
    if not os.path.exists(path):
        return rows
    for line in open(path):
        f = line.split()
        if len(f) < 6:
            continue
        try:
            t, delay = float(f[0]), float(f[-2]) / 1000
        except ValueError:
            continue
        task = " ".join(f[2:-3])
        rows.append((t + offset, delay, process_of(task), task))
    return rows


PG_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) UTC \[\d+\] (\w+):\s+(.*)$")
PG_WORTH = ("checkpoint", "automatic vacuum", "automatic analyze", "duration:", "still waiting")


def pg_events(path):
    """(unix time, text) of the PostgreSQL log lines that could stall."""
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        m = PG_LINE.match(line)
        if not m or not any(w in m.group(3) for w in PG_WORTH):
            continue
        at = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)
        out.append((at.timestamp(), m.group(3)[:100]))
    return out


def redis_events(path):
    """(unix time, text) of Redis's latest latency event per kind."""
    out = []
    if not os.path.exists(path):
        return out
    f = open(path).read().split()
    # `--raw latency latest`: name, unix time, latest ms, max ms, per event.
    for i in range(0, len(f) - 3, 4):
        out.append((float(f[i + 1]), f"redis {f[i]}: {f[i + 2]} ms (max {f[i + 3]})"))
    return out


def main(d):
    load = json.load(open(os.path.join(d, "load.json")))
    slow = load.get("slow_answers") or []
    unix0, mono0 = map(float, open(os.path.join(d, "clocks")).read().split())
    delays = sched_delays(os.path.join(d, "sched-delays.txt"), unix0 - mono0)
    events = pg_events(os.path.join(d, "postgres.log")) + redis_events(
        os.path.join(d, "redis-latency.txt")
    )
    runs = pauses(slow)
    lat = load["latency_ms"]
    print(
        f"{load['answered']} answers at {load['rate_target']:.0f}/s offered, "
        f"p99 {lat['p99']:.2f} ms, max {lat['max']:.2f} ms; "
        f"{len(slow)} answers of 20 ms or more in {len(runs)} pauses"
    )
    explained = 0
    summary = []
    for r in runs:
        length = r["end"] - r["start"]
        within = [x for x in delays if r["start"] - SLACK <= x[0] <= r["end"] + SLACK]
        worst = {}
        for _, delay, program, _task in within:
            worst[program] = max(worst.get(program, 0.0), delay)
        near = [e for e in events if r["start"] - 0.1 <= e[0] <= r["end"] + 0.1]
        starved = max((v for k, v in worst.items() if k != "other"), default=0.0)
        if starved >= length / 2:
            explained += 1
        when = datetime.fromtimestamp(r["start"], timezone.utc).strftime("%H:%M:%S.%f")[:-3]
        print(
            f"- {when} {length * 1000:.0f} ms, {r['answers']} answers (max {r['max_ms']:.0f} ms); "
            "longest wait for a CPU: "
            + (", ".join(f"{k} {v * 1000:.1f} ms" for k, v in sorted(worst.items())) or "none")
        )
        for _, text in near:
            print(f"    {text}")
        summary.append({**r, "cpu_wait_s": worst, "events": [t for _, t in near]})
    print(
        f"{explained} of {len(runs)} pauses coincide with a thread of hookline, PostgreSQL, "
        "Redis or the load tools waiting for a CPU at least half the pause's length"
    )
    json.dump(summary, open(os.path.join(d, "pauses.json"), "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
