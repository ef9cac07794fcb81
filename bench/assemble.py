#!/usr/bin/env python3
"""Assemble bench/results.json from the parts one bench/run writes.

    python3 bench/assemble.py PARTS_DIR OUT_JSON

PARTS_DIR holds one bench-load JSON per pass (NAME.max.json,
NAME.stepN.json, NAME.target.json, NAME.narrowN.json, isolation.*.json,
...), the search states
(NAME.search.json, from bench-search), the baselines, the generated
configs and settings.json. Everything the report shows comes from the
file this writes, so the report can be rendered again without a run.
"""

import datetime
import glob
import json
import os
import platform
import subprocess
import sys

NUMBERS = {"duration_s", "warmup_s", "dup_share", "sustain_duration_s", "sustain_drain_s",
           "search_precision", "search_start", "max_drain_s"}
INTEGERS = {"concurrency", "body_bytes", "open_concurrency", "search_steps"}
LISTS = {"sizes", "size_scenarios", "scenarios", "sustained_scenarios"}


def sh(*args):
    try:
        return subprocess.run(args, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def load(path):
    with open(path) as f:
        return json.load(f)


def narrowing_passes(parts, name):
    """The passes that narrowed a scenario's capacity bracket
    (NAME.narrowN.json, bench/capacity_check.py), in order."""
    found = glob.glob(f"{parts}/{name}.narrow*.json")
    return [load(p) for p in sorted(found, key=lambda p: int(p.rsplit(".narrow", 1)[1][:-len(".json")]))]


def maybe(path):
    return load(path) if os.path.exists(path) else None


def machine(settings):
    cpu = ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_kib = [l for l in open("/proc/meminfo") if l.startswith("MemTotal")][0].split()[1]
    info = sh("redis-cli", "-h", settings["redis_host"], "-p", settings["redis_port"], "INFO", "server")
    return {
        "nproc": int(sh("nproc") or 0),
        "memory_gib": round(int(mem_kib) / 1048576, 1),
        "cpu_model": cpu,
        "kernel": platform.release(),
        "rustc": sh("rustc", "--version"),
        "redis": info.split("redis_version:")[1].split()[0] if "redis_version:" in info else "",
        "postgresql": sh("psql", settings["pg_url"], "-Atqc", "show server_version"),
        "redis_benchmark": sh("redis-benchmark", "--version"),
        "pgbench": sh("pgbench", "--version"),
        # The commit the binaries were built from (bench/run records it at
        # the build: commits made during a run must not be credited).
        "git_commit": os.environ.get("BENCH_GIT_COMMIT") or sh("git", "rev-parse", "--short", "HEAD"),
    }


def typed(raw):
    out = {}
    for k, v in raw.items():
        if k in NUMBERS:
            out[k] = float(v)
        elif k in INTEGERS:
            out[k] = int(v)
        elif k in LISTS:
            out[k] = v.split()
        else:
            out[k] = v
    out["command"] = "bench/run"
    out["env"] = {k: v for k, v in os.environ.items() if k.startswith("BENCH_")}
    return out


def baselines(parts):
    """The baselines' passes run so far."""
    b = {}
    for key in ("bare", "redis_benchmark", "pgbench", "pgbench_end"):
        v = maybe(f"{parts}/{key}.json")
        if v is not None:
            b[key] = v
    b["bare_sizes"] = {p.split(".")[-2]: load(p) for p in sorted(glob.glob(f"{parts}/bare.size.*.json"))}
    return b


def sustained(parts, name):
    """The search state, each step with its whole pass (timelines included)."""
    state = load(f"{parts}/{name}.search.json")
    for step in state["steps"]:
        step["pass"] = load(step["pass"])
    ok = [s["rate"] for s in state["steps"] if s["ok"]]
    return {
        "search": state,
        "sustained_rate": max(ok) if ok else None,
        "estimate_pass": maybe(f"{parts}/{name}.estimate.json"),
        "config": open(f"{parts}/{name}.config.toml").read(),
    }


def main():
    parts, out = sys.argv[1], sys.argv[2]
    raw = load(f"{parts}/settings.json")
    res = {
        "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(raw),
        "settings": typed(raw),
        "baselines": {},
        "scenarios": {},
        "sustained": {},
    }
    for probe in ("vcpu", "vcpu_after", "disk"):
        found = maybe(f"{parts}/{probe}.json")
        if found is not None:
            res["machine"][probe] = found
    res["baselines"] = baselines(parts)
    for name in res["settings"]["scenarios"]:
        d = {"max": load(f"{parts}/{name}.max.json"), "config": open(f"{parts}/{name}.config.toml").read()}
        sizes = {p.split(".")[-2]: load(p) for p in sorted(glob.glob(f"{parts}/{name}.size.*.json"))}
        if sizes:
            d["sizes"] = sizes
        res["scenarios"][name] = d
    for name in res["settings"]["sustained_scenarios"]:
        res["sustained"][name] = sustained(parts, name)
    checks = {p.split("/")[-1].split(".")[0]: load(p) for p in sorted(glob.glob(f"{parts}/*.target.json"))}
    if checks:
        res["capacity_checks"] = checks
    narrowing = {name: narrowing_passes(parts, name) for name in sorted(set(res["scenarios"]) | set(res["sustained"]))}
    narrowing = {name: ps for name, ps in narrowing.items() if ps}
    if narrowing:
        res["capacity_narrowing"] = narrowing
    iso = maybe(f"{parts}/isolation.json")
    if iso is not None:
        for p in ("alone", "with_slow"):
            iso[p] = load(f"{parts}/isolation.{p}.json")
            iso[p + "_config"] = open(f"{parts}/isolation.{p}.config.toml").read()
        res["isolation"] = iso
    mem = maybe(f"{parts}/memory.json")
    if mem is not None:
        mem["load"] = load(f"{parts}/memory.load.json")
        res["memory"] = mem
    for name in ("pg_per_event", "pg_per_event_warm"):
        pg = maybe(f"{parts}/{name}.json")
        if pg is not None:
            res[name] = pg
    with open(out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
