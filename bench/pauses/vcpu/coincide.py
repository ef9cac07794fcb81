# Do the answers' pauses of a probe coincide with stretches in which the
# same fixed work took more CPU time?  python3 coincide.py WORK.json LOAD.json
import json, random, sys
rows = json.load(open(sys.argv[1]))
l = json.load(open(sys.argv[2]))
med = sorted(r[2] for r in rows)[len(rows) // 2]
s = sorted(l["slow_answers"]); runs = []
for t, ms in s:
    e = t + ms / 1000
    if runs and t <= runs[-1][1] + 0.005:
        runs[-1][1] = max(runs[-1][1], e); runs[-1][2] += 1
    else:
        runs.append([t, e, 1])
runs = [r for r in runs if r[1] - r[0] >= 0.02]
print("work rounds %d, median CPU %.3f ms; probe p99 %.1f ms, pauses of 20 ms or more: %d"
      % (len(rows), med, l["latency_ms"]["p99"], len(runs)))
hit = 0
for r in runs:
    inw = [x for x in rows if r[0] - 0.01 <= x[0] <= r[1]]
    worst = max((x[2] for x in inw), default=0)
    slow = sum(1 for x in inw if x[2] > 3 * med)
    hit += slow > 0
    print("  pause %3.0f ms, %3d answers: %2d work rounds, %2d over 3x the median CPU, worst %.2f ms (%.1fx)"
          % ((r[1] - r[0]) * 1000, r[2], len(inw), slow, worst, worst / med))
random.seed(1)
t0, t1 = rows[0][0], rows[-1][0]; k = 0; n = 2000
for _ in range(n):
    a = random.uniform(t0, t1 - 0.05)
    k += any(x[2] > 3 * med for x in rows if a <= x[0] <= a + 0.05)
print("pauses with a slow round: %d of %d; random 50 ms windows with one: %.0f%%" % (hit, len(runs), 100 * k / n))
