#!/bin/sh
# yardstick run against hyperfine and against the floor as a user calls
# them: whole processes with the defaults (the result stored, counters on,
# the default warm-up (none with --runs 1, one otherwise), statistics and
# bootstrap, the table printed), in one go:
#   - one run: `yardstick run -q --runs 1 -- /bin/true` (store included,
#     and with --no-store) against `hyperfine -N --runs 1 /bin/true`
#     (issue 12's target: 1.25x hyperfine's, store included);
#   - 300 runs: `yardstick run --runs 300 -- /bin/true` against a bare
#     posix_spawn + wait4 loop of 300 (build/bench/spawn_floor; target
#     1.05x) and `hyperfine -N --runs 300`;
#   - 10 and 100 runs against hyperfine, and `--version` alone.
# Interleaved rounds in random order, all pinned to one CPU; the short
# cases run REPS times a round. Prints the median and the minimum of the
# wall time of each, the median CPU time (which a busy machine disturbs
# less), and the ratios to its anchor. With YS_BEFORE naming another
# yardstick binary (an older build, its yardstick-spawner beside it), its
# cases are measured in the same rounds.
#   bench/whole_process.sh [build/yardstick] [ROUNDS] [CPU] [REPS]
set -eu
ys=$(realpath "${1:-build/yardstick}")
rounds=${2:-11}
cpu=${3:-1}
reps=${4:-10}
floor=$(dirname "$ys")/bench/spawn_floor
command -v hyperfine >/dev/null || { echo "hyperfine is missing (scripts/deps.sh bench)" >&2; exit 2; }
[ -x "$floor" ] || { echo "$floor is missing (ninja -C $(dirname "$ys"))" >&2; exit 2; }
before=${YS_BEFORE:-}
[ -z "$before" ] || before=$(realpath "$before")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$rounds" "$cpu" "$dir" "$floor" "$reps" "$before" <<'PY'
import os, random, resource, statistics, subprocess, sys, time
ys, rounds, cpu, d, floor, reps, before = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7]
pin = ["taskset", "-c", cpu]
HF1 = "hyperfine -N --runs 1"
cases, anchor, short = {}, {}, set()
def ours(tag, binary, store):
    env = dict(os.environ, YARDSTICK_STORE=f"{d}/{store}/results.db",
               YARDSTICK_NO_PROGRESS="1")
    os.makedirs(f"{d}/{store}", exist_ok=True)
    one = f"{tag}run -q --runs 1"
    cases[one] = ([binary, "run", "-q", "--runs", "1", "--", "/bin/true"], env)
    cases[one + " --no-store"] = ([binary, "run", "-q", "--runs", "1", "--no-store", "--", "/bin/true"], env)
    cases[f"{tag}--version"] = ([binary, "--version"], env)
    short.update([one, one + " --no-store", f"{tag}--version"])
    anchor[one] = anchor[one + " --no-store"] = HF1
    anchor[f"{tag}--version"] = "hyperfine --version"
    for runs in (10, 100, 300):
        k = f"{tag}run --runs {runs}"
        cases[k] = ([binary, "run", "--runs", str(runs), "--", "/bin/true"], env)
        anchor[k] = "floor 300" if runs == 300 else f"hyperfine -N --runs {runs}"
env0 = dict(os.environ)
cases[HF1] = (["hyperfine", "-N", "--runs", "1", "/bin/true"], env0)
cases["hyperfine --version"] = (["hyperfine", "--version"], env0)
short.update([HF1, "hyperfine --version"])
for runs in (10, 100, 300):
    cases[f"hyperfine -N --runs {runs}"] = (["hyperfine", "-N", "--runs", str(runs), "/bin/true"], env0)
cases["floor 300"] = ([floor, "300", "/bin/true"], env0)
anchor["hyperfine -N --runs 300"] = "floor 300"
ours("", ys, "after")
if before:
    ours("before: ", before, "before")
times = {k: [] for k in cases}
cpus = {k: [] for k in cases}
for _ in range(rounds):
    for k in random.sample(list(cases), len(cases)):
        argv, env = cases[k]
        for _ in range(reps if k in short else 1):
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(pin + argv, check=True, env=env, cwd=d,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[k].append(time.perf_counter() - t0)
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[k].append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime)
print(f"{rounds} interleaved rounds pinned to CPU {cpu} ({reps} runs a round of the short ones), "
      "whole processes: wall median / min, CPU median (user + system, children's included); "
      "ratios to the anchor: wall median / wall min / CPU median")
for k in cases:
    a, c = times[k], cpus[k]
    line = (f"  {k:34s} {statistics.median(a)*1e3:8.2f} ms / {min(a)*1e3:8.2f} ms"
            f"  CPU {statistics.median(c)*1e3:7.2f} ms")
    if k in anchor:
        b, bc = times[anchor[k]], cpus[anchor[k]]
        line += (f"   {statistics.median(a)/statistics.median(b):6.3f} / {min(a)/min(b):6.3f}"
                 f" / {statistics.median(c)/statistics.median(bc):6.3f}  x {anchor[k]}")
    print(line)
PY
