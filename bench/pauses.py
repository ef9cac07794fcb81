#!/usr/bin/env python3
"""What each pause of a bench/lib/pauses.sh pass coincides with.

    python3 bench/pauses.py DIR
    perf sched timehist --state ... | python3 bench/pauses.py --keep-switches

DIR holds what pauses.sh kept: load.json (bench-load's `slow_answers`:
[unix seconds written, ms] of every measured answer of 20 ms or more),
switches.txt (from `perf sched timehist --state`, on the monotonic
clock: the threads that waited 1 ms or more for a CPU once runnable, and
those that slept 5 ms or more in uninterruptible sleep), clocks (one unix
and one monotonic reading taken together), postgres.log and
redis-latency.txt, and pids (`program pid` lines: hookline, the private
PostgreSQL's processes, the shared Redis, the sink).

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


def process_of(task, pids):
    """The program a `perf sched` task (`name[tid/pid]` or `name[pid]`)
    belongs to: by its PID where pg_per_event.sh wrote it down, else the
    load generator by its name, else `other` (the machine's other work:
    the shared stores, compilers, kernel threads)."""
    name, _, ids = task.rpartition("[")
    pid = ids.rstrip("]").split("/")[-1]
    if pid in pids:
        return pids[pid]
    return "bench-load" if name.startswith("bench-load") else "other"


def keep_switches(lines, out):
    """`perf sched timehist --state` rows on `lines`, kept on `out` as
    `time task kind ms`: `cpu` where a runnable thread waited 1 ms or more
    for a CPU, `disk` where a thread slept 5 ms or more in uninterruptible
    sleep (state D when it last left the CPU: I/O, usually)."""
    last_state = {}
    for line in lines:
        f = line.split()
        if len(f) < 7:
            continue
        try:
            t, wait, delay = float(f[0]), float(f[-4]), float(f[-3])
        except ValueError:
            continue
        task = " ".join(f[2:-4])
        if delay >= 1.0:
            out.write(f"{t:.6f} {task} cpu {delay:.3f}\n")
        if last_state.get(task) == "D" and wait >= 5.0:
            out.write(f"{t:.6f} {task} disk {wait:.3f}\n")
        last_state[task] = f[-1]


def read_pids(path):
    """`program pid` lines, as {pid: program}."""
    if not os.path.exists(path):
        return {}
    return {f[1]: f[0] for f in (l.split() for l in open(path)) if len(f) == 2}


def switches(path, offset, pids):
    """(unix time the thread ran again, how long it waited in s, what for:
    `cpu` or `disk`, its program, its task)."""
    rows = []
    if not os.path.exists(path):
        return rows
    for line in open(path):
        f = line.split()
        if len(f) < 4:
            continue
        task = " ".join(f[1:-2])
        rows.append((float(f[0]) + offset, float(f[-1]) / 1000, f[-2], process_of(task, pids), task))
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
    pids = read_pids(os.path.join(d, "pids"))
    delays = switches(os.path.join(d, "switches.txt"), unix0 - mono0, pids)
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
    explained = on_disk = 0
    summary = []
    for r in runs:
        length = r["end"] - r["start"]
        # A wait that overlaps the pause: it ended after the pause began,
        # and began before it ended.
        within = [
            x for x in delays
            if x[0] >= r["start"] - SLACK and x[0] - x[1] <= r["end"] + SLACK
        ]
        worst, disk = {}, {}
        for _, wait, kind, program, _task in within:
            into = worst if kind == "cpu" else disk
            into[program] = max(into.get(program, 0.0), wait)
        near = [e for e in events if r["start"] - 0.1 <= e[0] <= r["end"] + 0.1]
        starved = max((v for k, v in worst.items() if k != "other"), default=0.0)
        if starved >= length / 2:
            explained += 1
        when = datetime.fromtimestamp(r["start"], timezone.utc).strftime("%H:%M:%S.%f")[:-3]
        print(
            f"- {when} {length * 1000:.0f} ms, {r['answers']} answers (max {r['max_ms']:.0f} ms); "
            "longest wait for a CPU: "
            + (", ".join(f"{k} {v * 1000:.1f} ms" for k, v in sorted(worst.items())) or "none")
            + "; longest uninterruptible sleep: "
            + (", ".join(f"{k} {v * 1000:.1f} ms" for k, v in sorted(disk.items())) or "none")
        )
        for _, text in near:
            print(f"    {text}")
        if disk.get("postgres", 0.0) >= length / 2:
            on_disk += 1
        summary.append({**r, "cpu_wait_s": worst, "disk_wait_s": disk, "events": [t for _, t in near]})
    print(
        f"{explained} of {len(runs)} pauses coincide with a thread of hookline, PostgreSQL, "
        "Redis or the load tools waiting for a CPU at least half the pause's length; "
        f"{on_disk} with a PostgreSQL process in uninterruptible sleep that long"
    )
    json.dump(summary, open(os.path.join(d, "pauses.json"), "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1:] == ["--keep-switches"]:
        keep_switches(sys.stdin, sys.stdout)
    else:
        main(sys.argv[1])
