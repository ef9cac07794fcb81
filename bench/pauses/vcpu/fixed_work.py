"""Fixed work, timed: each round runs the same loop (about 0.4 ms on this
machine's CPU), then sleeps 2 ms, and records unix time, wall time and
this thread's CPU time. When the same work takes more CPU time in some
stretches, the CPU itself was slower then: a host that takes a vCPU away
is counted as the guest task's own time when no steal time is reported.

    python3 fixed_work.py SECONDS OUT.json [STATS.json]  # run, summarise
    python3 fixed_work.py --summary OUT.json[.gz]
"""
import gzip, json, sys, time


def work():
    s = 0
    for i in range(6000):
        s += i * i
    return s


def stats(rows):
    """What bench/run keeps of a probe (results.json, machine.vcpu)."""
    n = len(rows)
    cpu = sorted(r[2] for r in rows)
    med = cpu[n // 2]
    runs = stretches(rows, med)
    spans = sorted((rr[-1][0] + rr[-1][1] / 1000 - rr[0][0]) * 1000 for rr in runs)
    return {"seconds": round(rows[-1][0] - rows[0][0], 1), "rounds": n,
            "median_cpu_ms": round(med, 3), "slow_rounds": sum(len(r) for r in runs),
            "stretches": len(runs), "longest_ms": round(spans[-1], 1) if spans else 0.0,
            "extra_cpu_share": round((sum(cpu) - med * n) / (med * n), 3)}


def stretches(rows, med):
    """Runs of consecutive rounds over three times the median CPU time."""
    runs, prev = [], False
    for r in rows:
        slow = r[2] > 3 * med
        if slow and prev:
            runs[-1].append(r)
        elif slow:
            runs.append([r])
        prev = slow
    return runs


def summary(rows):
    n = len(rows)
    cpu = sorted(r[2] for r in rows); wall = sorted(r[1] for r in rows)
    med = cpu[n // 2]
    runs = stretches(rows, med)
    spans = sorted((rr[-1][0] + rr[-1][1] / 1000 - rr[0][0]) * 1000 for rr in runs)
    extra = (sum(cpu) - med * n) / (med * n)
    return (f"{n} rounds; CPU ms p50 {med:.3f} p99 {cpu[int(n * .99)]:.3f} max {cpu[-1]:.3f}; "
            f"wall ms p50 {wall[n // 2]:.3f} p99 {wall[int(n * .99)]:.3f} max {wall[-1]:.3f}; "
            f"{sum(len(r) for r in runs)} rounds over 3x the median CPU in {len(runs)} "
            f"{'stretch' if len(runs) == 1 else 'stretches'}, "
            + (f"the longest {', '.join(f'{s:.0f}' for s in spans[-3:])} ms; " if spans else "")
            + f"{100 * extra:.0f}% more CPU time than at the median pace")


def main():
    if sys.argv[1] == "--summary":
        path = sys.argv[2]
        opener = gzip.open if path.endswith(".gz") else open
        print(summary(json.load(opener(path, "rt"))))
        return
    dur, out = float(sys.argv[1]), sys.argv[2]
    rows = []
    end = time.time() + dur
    while time.time() < end:
        t0 = time.time(); w0 = time.perf_counter_ns(); c0 = time.thread_time_ns()
        work()
        rows.append((t0, (time.perf_counter_ns() - w0) / 1e6, (time.thread_time_ns() - c0) / 1e6))
        time.sleep(0.002)
    json.dump(rows, open(out, "w"))
    if len(sys.argv) > 3:
        json.dump(stats(rows), open(sys.argv[3], "w"))
    print(summary(rows))


if __name__ == "__main__":
    main()
