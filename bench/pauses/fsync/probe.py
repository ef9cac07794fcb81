#!/usr/bin/env python3
"""How long the disk takes to flush a small write, over and over, with
nothing else asked of it: what a commit's WAL flush waits for (issue 25,
item 4). Appends 8 KiB to a file on the disk PostgreSQL and SQLite write
to and calls fdatasync, as a committing backend does, at most every 2 ms,
for SECONDS; prints the latencies' quantiles and every flush of 20 ms or
more with when it ended.
  python3 bench/pauses/fsync/probe.py [SECONDS] [DIR]  (defaults 60, /var/tmp)
"""
import os
import sys
import tempfile
import time

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
where = sys.argv[2] if len(sys.argv) > 2 else "/var/tmp"
block = os.urandom(8192)
fd, path = tempfile.mkstemp(prefix="fsync-probe.", dir=where)
lat, slow = [], []
start = time.monotonic()
try:
    while time.monotonic() - start < seconds:
        t = time.monotonic()
        os.write(fd, block)
        os.fdatasync(fd)
        d = (time.monotonic() - t) * 1000
        lat.append(d)
        if d >= 20:
            slow.append((time.time(), d))
        if os.lseek(fd, 0, os.SEEK_CUR) > 64 << 20:
            os.lseek(fd, 0, os.SEEK_SET)  # stay within 64 MiB, as a WAL segment set does
        time.sleep(max(0.0, 0.002 - (time.monotonic() - t)))
finally:
    os.close(fd)
    os.unlink(path)
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print(f"{len(lat)} flushes in {seconds:.0f} s on {where}: p50 {q(0.5):.2f} ms, p90 {q(0.9):.2f} ms, "
      f"p99 {q(0.99):.2f} ms, p99.9 {q(0.999):.2f} ms, max {lat[-1]:.1f} ms")
for lim in (20, 50, 100, 200):
    print(f"  flushes of {lim} ms or more: {sum(1 for x in lat if x >= lim)}")
for when, d in slow:
    print(f"  slow: ended {time.strftime('%H:%M:%S', time.gmtime(when))}.{int(when % 1 * 1000):03d} UTC, {d:.1f} ms")
