#!/bin/sh
# Symbolization's cost (issue 12), in one go, interleaved rounds of random
# order, whole processes timed:
#  - `yardstick mem --sample 524288` (the report on: its sites are
#    symbolized) against the program run natively, on a ~0.1 s and a ~2 s
#    run of bench/alloc_patterns' window pattern, with the symbol cache
#    warm (the steady state: a scratch $XDG_CACHE_HOME filled by one run
#    first) and cold (the cache emptied before each run);
#  - build/bench/symbolize_1m: 1 M samples, typical and all-distinct
#    stacks, its own timings (interning + symbolizing).
# Prints medians and minimums, the mem runs as a multiple of native.
#   bench/symbolize_cost.sh [build] [ROUNDS]
set -eu
build=${1:-build}
rounds=${2:-7}
ys=$build/yardstick
prog=$build/bench/alloc_patterns
sym=$build/bench/symbolize_1m
for f in "$ys" "$prog" "$sym"; do
	[ -x "$f" ] || { echo "no $f: build first (make)" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$prog" "$sym" "$dir" "$rounds" <<'PY'
import os, random, re, shutil, statistics, subprocess, sys, time
ys, prog, sym, d, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
warm, cold = f"{d}/warm", f"{d}/cold"
progs = {"0.1 s": ["window", "2", "2500000"], "2 s": ["window", "2", "45000000"]}
def mem(args, cache):
    return ([ys, "mem", "--no-store", "--sample", "524288", "--"] + [prog] + args,
            dict(os.environ, XDG_CACHE_HOME=cache))
tasks = {}
for name, args in progs.items():
    tasks[(name, "native")] = ([prog] + args, None)
    tasks[(name, "mem --sample, cache warm")] = mem(args, warm)
    tasks[(name, "mem --sample, cache cold")] = mem(args, cold)
tasks[("1M", "symbolize_1m")] = ([sym], None)
def run(key):
    argv, env = tasks[key]
    if "cold" in key[1]:
        shutil.rmtree(cold, ignore_errors=True)
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    if p.returncode:
        sys.exit(f"{argv}: exit {p.returncode}: {p.stderr[-2000:]}")
    return t, p.stdout
for name, args in progs.items():           # fill the warm cache
    run((name, "mem --sample, cache warm"))
times = {k: [] for k in tasks}
sym_t = {"typical": [], "worst case": []}
for _ in range(rounds):
    for k in random.sample(list(tasks), len(tasks)):
        t, out = run(k)
        times[k].append(t)
        if k[1] == "symbolize_1m":
            for line in out.splitlines():
                m = re.match(r"(typical|worst case):.*total ([0-9.]+) s", line)
                if m:
                    sym_t[m.group(1)].append(float(m.group(2)))
print(f"{rounds} interleaved rounds, random order; whole processes; median (min)")
for name in progs:
    nat = times[(name, "native")]
    print(f"  {name} program: native {statistics.median(nat):.3f} s ({min(nat):.3f})")
    for what in ("mem --sample, cache warm", "mem --sample, cache cold"):
        v = times[(name, what)]
        print(f"    {what:26s} {statistics.median(v):.3f} s ({min(v):.3f})  "
              f"{statistics.median(v) / statistics.median(nat):.2f}x "
              f"({min(v) / min(nat):.2f}x)")
for k, v in sym_t.items():
    print(f"  symbolize_1m {k:10s}: {statistics.median(v):.3f} s ({min(v):.3f}) "
          f"interning + symbolizing 1 M samples; target < 2 s")
PY
