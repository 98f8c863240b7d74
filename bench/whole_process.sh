#!/bin/sh
# yardstick run against hyperfine as a user calls them: whole processes
# with the defaults (the result stored, counters on, statistics and
# bootstrap, the table printed), the same number of runs given to both.
# Interleaved rounds in random order, all pinned to one CPU; prints the
# median and the minimum of each and the ratio to hyperfine.
#   bench/whole_process.sh [build/yardstick] [ROUNDS] [CPU]
set -eu
ys=$(realpath "${1:-build/yardstick}")
rounds=${2:-11}
cpu=${3:-1}
command -v hyperfine >/dev/null || { echo "hyperfine is missing (scripts/deps.sh bench)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$rounds" "$cpu" "$dir" <<'PY'
import os, random, statistics, subprocess, sys, time
ys, rounds, cpu, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
env = dict(os.environ, YARDSTICK_STORE=f"{d}/store.db")
pin = ["taskset", "-c", cpu]
cases = {}
for runs in (10, 100):
    cases[f"yardstick run --runs {runs}"] = [ys, "run", "--runs", str(runs), "--", "/bin/true"]
    cases[f"hyperfine -N --runs {runs}"] = ["hyperfine", "-N", "--runs", str(runs), "/bin/true"]
cases["yardstick --version"] = [ys, "--version"]
cases["hyperfine --version"] = ["hyperfine", "--version"]
times = {k: [] for k in cases}
for _ in range(rounds):
    for k in random.sample(list(cases), len(cases)):
        t0 = time.perf_counter()
        subprocess.run(pin + cases[k], check=True, env=env, cwd=d,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[k].append(time.perf_counter() - t0)
print(f"{rounds} interleaved rounds pinned to CPU {cpu}, whole processes (median / min)")
for ours, theirs in (("yardstick run --runs 10", "hyperfine -N --runs 10"),
                     ("yardstick run --runs 100", "hyperfine -N --runs 100"),
                     ("yardstick --version", "hyperfine --version")):
    a, b = times[ours], times[theirs]
    print(f"  {ours:26s} {statistics.median(a)*1e3:8.2f} ms / {min(a)*1e3:8.2f} ms"
          f"   {theirs:24s} {statistics.median(b)*1e3:8.2f} ms / {min(b)*1e3:8.2f} ms"
          f"   ratio {statistics.median(a)/statistics.median(b):.3f} / {min(a)/min(b):.3f}")
PY
