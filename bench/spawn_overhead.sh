#!/bin/sh
# yardstick's cost per run against the floor (a bare posix_spawn + wait4
# loop) and against hyperfine, all measured in one go, interleaved, so that
# only ratios from the same run are compared.
#   bench/spawn_overhead.sh [build/yardstick] [RUNS] [ROUNDS] [CPU]
# Every tool runs pinned to the same CPU (default 1) so that migrations
# between the two cores of a small VM do not swamp a 3% difference; the
# interquartile range printed beside each median shows how noisy it was.
# With YS_BEFORE naming another yardstick binary (an older build), it is
# measured in the same rounds, and the wall time and peak RSS both report
# for the program are compared.
set -eu
ys=${1:-build/yardstick}
runs=${2:-500}
rounds=${3:-21}
cpu=${4:-1}
floor=$(dirname "$ys")/bench/spawn_floor
prog=/bin/true
command -v hyperfine >/dev/null || { echo "hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }

before=${YS_BEFORE:-}
python3 - "$ys" "$floor" "$prog" "$runs" "$rounds" "$cpu" "$before" <<'PY'
import os, random, resource, statistics, subprocess, sys, time
ys, floor, prog, runs, rounds, cpu, before = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
env = dict(os.environ, YARDSTICK_NO_PROGRESS="1")
tools = {
    "floor (posix_spawn+wait4)": [floor, str(runs), prog],
    "yardstick run": [ys, "run", "-q", "--warmup", "0", "--runs", str(runs), "--", prog],
    "yardstick run --no-counters": [ys, "run", "-q", "--no-counters", "--warmup", "0", "--runs", str(runs), "--", prog],
    "hyperfine -N": ["hyperfine", "-N", "--style", "none", "--runs", str(runs), prog],
}
if before:
    tools["before: yardstick run"] = [before] + tools["yardstick run"][1:]
    tools["before: --no-counters"] = [before] + tools["yardstick run --no-counters"][1:]
times = {k: [] for k in tools}
cpus = {k: [] for k in tools}
for r in range(rounds):
    order = list(tools)
    random.shuffle(order)
    for k in order:
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(["taskset", "-c", cpu] + tools[k], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times[k].append(time.perf_counter() - t0)
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus[k].append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime)
fl = "floor (posix_spawn+wait4)"
print(f"{runs} runs of {prog}, {rounds} rounds interleaved, all on CPU {cpu}")
print(f"  {'':30s} {'wall median':>12s} {'wall min':>10s} {'CPU median':>11s}   ratios to the floor (median, min, CPU)")
for k in tools:
    med, mn, c = statistics.median(times[k]), min(times[k]), statistics.median(cpus[k])
    print(f"  {k:30s} {med*1000:9.1f} ms {mn*1000:7.1f} ms {c*1000:8.1f} ms   "
          f"{med/statistics.median(times[fl]):.3f}x {mn/min(times[fl]):.3f}x {c/statistics.median(cpus[fl]):.3f}x")
PY

# What each yardstick reports for the program, in the same interleaved way.
[ -z "$before" ] || python3 - "$ys" "$before" "$prog" "$runs" "$rounds" "$cpu" <<'PY'
import json, os, random, statistics, subprocess, sys, tempfile
ys, before, prog, runs, rounds, cpu = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
env = dict(os.environ, YARDSTICK_NO_PROGRESS="1")
out = os.path.join(tempfile.mkdtemp(), "r.json")
got = {"before": {"wall": [], "rss": []}, "after": {"wall": [], "rss": []}}
for r in range(rounds):
    for k in random.sample(["before", "after"], 2):
        subprocess.run(["taskset", "-c", cpu, before if k == "before" else ys, "run", "-q", "--no-store",
                        "--warmup", "0", "--runs", runs, "--json", out, "--", prog],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        m = json.load(open(out))["benchmarks"][0]["metrics"]
        got[k]["wall"].append(m["wall_time"]["median"])
        got[k]["rss"] += [v for v in m["peak_rss"]["values"] if v is not None]
print(f"what yardstick reports for {prog} ({runs} runs x {rounds} rounds, median of the per-round medians)")
for k in ["before", "after"]:
    w, rss = got[k]["wall"], got[k]["rss"]
    print(f"  {k:7s} wall time {statistics.median(w)*1e6:7.1f} us (min {min(w)*1e6:.1f})   "
          f"peak RSS {statistics.median(rss)/1024 if rss else float('nan'):7.0f} KiB")
print(f"  after / before, wall time: {statistics.median(got['after']['wall']) / statistics.median(got['before']['wall']):.3f}x")
PY

# The kernel's own price for counting inherited events, without yardstick.
cost=$(dirname "$ys")/bench/perf_inherit_cost
[ -x "$cost" ] || exit 0
python3 - "$cost" "$prog" "$runs" "$rounds" "$cpu" <<'PY'
import random, statistics, subprocess, sys
cost, prog, runs, rounds, cpu = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
modes = "0123"
us = {m: [] for m in modes}
cus = {m: [] for m in modes}
for r in range(rounds):
    for m in random.sample(modes, len(modes)):
        out = subprocess.run(["taskset", "-c", cpu, cost, m, runs, prog], capture_output=True, text=True)
        if out.returncode:
            sys.exit(0)
        us[m].append(float(out.stdout.split()[1]))
        cus[m].append(float(out.stdout.split()[2]))
names = {"0": "no perf event", "1": "1 inherited event", "2": "yardstick's default set",
         "3": "the default set before"}
print("the kernel's cost of inherited perf events (plain C loop, no yardstick): "
      "wall median, ratio, min ratio; CPU median, min (us/run), over the no-event min")
for m in modes:
    print(f"  {names[m]:30s} {statistics.median(us[m]):7.1f} us/run  {statistics.median(us[m]) / statistics.median(us['0']):.3f}x  min {min(us[m]) / min(us['0']):.3f}x"
          f"   CPU {statistics.median(cus[m]):7.1f} us, min {min(cus[m]):7.1f} (+{min(cus[m]) - min(cus['0']):.1f})")
PY
