#!/usr/bin/env python3
"""How long the disk takes to flush a small write, over and over, with
nothing else asked of it: what a commit's WAL flush waits for (issue 25,
item 4; bench/NOTES.md, "Run 25"). Appends 8 KiB to a file in DIR and
calls fdatasync, as a committing backend does, at most every 2 ms, for
SECONDS; prints the latencies' quantiles and every flush of 20 ms or more
with when it ended, and writes the summary to OUT.json if given
(`bench/run` does, before any pass: the report's Machine section).
  python3 bench/pauses/fsync/probe.py [SECONDS [DIR [OUT.json]]]  (60, /var/tmp)
"""
import json
import os
import sys
import tempfile
import time

BLOCK = 8192
LONG_MS = (20, 50, 100, 200)


def flushes(seconds, where):
    """Each flush's latency in ms, with when it ended."""
    block = os.urandom(BLOCK)
    fd, path = tempfile.mkstemp(prefix="fsync-probe.", dir=where)
    out = []
    start = time.monotonic()
    try:
        while time.monotonic() - start < seconds:
            t = time.monotonic()
            os.write(fd, block)
            os.fdatasync(fd)
            out.append((time.time(), (time.monotonic() - t) * 1000))
            if os.lseek(fd, 0, os.SEEK_CUR) > 64 << 20:
                os.lseek(fd, 0, os.SEEK_SET)  # within 64 MiB, as a WAL's segments are reused
            time.sleep(max(0.0, 0.002 - (time.monotonic() - t)))
    finally:
        os.close(fd)
        os.unlink(path)
    return out


def stats(rows, seconds, where):
    lat = sorted(d for _, d in rows)
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    return {
        "seconds": seconds, "dir": where, "bytes": BLOCK, "flushes": len(lat),
        "p50_ms": q(0.5), "p99_ms": q(0.99), "p999_ms": q(0.999), "max_ms": lat[-1],
        "at_least_ms": {str(lim): sum(1 for x in lat if x >= lim) for lim in LONG_MS},
    }


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    where = sys.argv[2] if len(sys.argv) > 2 else "/var/tmp"
    rows = flushes(seconds, where)
    s = stats(rows, seconds, where)
    print(f"{s['flushes']} flushes in {seconds:.0f} s on {where}: p50 {s['p50_ms']:.2f} ms, "
          f"p99 {s['p99_ms']:.2f} ms, p99.9 {s['p999_ms']:.2f} ms, max {s['max_ms']:.1f} ms")
    for lim in LONG_MS:
        print(f"  flushes of {lim} ms or more: {s['at_least_ms'][str(lim)]}")
    for when, d in rows:
        if d >= 20:
            print(f"  slow: ended {time.strftime('%H:%M:%S', time.gmtime(when))}.{int(when % 1 * 1000):03d} UTC, {d:.1f} ms")
    if len(sys.argv) > 3:
        json.dump(s, open(sys.argv[3], "w"))


if __name__ == "__main__":
    main()
