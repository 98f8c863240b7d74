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
# With BEFORE, the build directory of another version (one without the
# cache, say), its `mem --sample` and symbolize_1m run in the same rounds.
# Prints medians and minimums, the mem runs as a multiple of native.
#   bench/symbolize_cost.sh [build] [ROUNDS] [BEFORE]
set -eu
build=${1:-build}
rounds=${2:-7}
before=${3:-}
ys=$build/yardstick
prog=$build/bench/alloc_patterns
sym=$build/bench/symbolize_1m
for f in "$ys" "$prog" "$sym"; do
	[ -x "$f" ] || { echo "no $f: build first (make)" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$prog" "$sym" "$dir" "$rounds" "$before" <<'PY'
import os, random, re, shutil, statistics, subprocess, sys, time
ys, prog, sym, d, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
before = sys.argv[6]
warm, cold = f"{d}/warm", f"{d}/cold"
progs = {"0.1 s": ["window", "2", "2500000"], "2 s": ["window", "2", "45000000"]}
def mem(args, cache, ys=ys):
    return ([ys, "mem", "--no-store", "--sample", "524288", "--"] + [prog] + args,
            dict(os.environ, XDG_CACHE_HOME=cache))
tasks = {}
for name, args in progs.items():
    tasks[(name, "native")] = ([prog] + args, None)
    tasks[(name, "mem --sample, cache warm")] = mem(args, warm)
    tasks[(name, "mem --sample, cache cold")] = mem(args, cold)
    if before:
        tasks[(name, "mem --sample, BEFORE")] = mem(args, cold, f"{before}/yardstick")
tasks[("1M", "symbolize_1m")] = ([sym], None)
if before:
    tasks[("1M", "symbolize_1m BEFORE")] = ([f"{before}/bench/symbolize_1m"], None)
def run(key):
    argv, env = tasks[key]
    if "cold" in key[1] or "BEFORE" in key[1]:
        shutil.rmtree(cold, ignore_errors=True)
    t0 = time.perf_counter()
    with open(f"{d}/out", "w+") as out, open(f"{d}/err", "w+") as err:
        p = subprocess.Popen(argv, env=env, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode:
            sys.exit(f"{argv}: exit {p.returncode}: {err.read()[-2000:]}")
        cpu[key].append(ru.ru_utime + ru.ru_stime)
        return t, out.read()
cpu = {k: [] for k in tasks}
for name, args in progs.items():           # fill the warm cache
    run((name, "mem --sample, cache warm"))
times = {k: [] for k in tasks}
cpu = {k: [] for k in tasks}
sym_t = {}
for _ in range(rounds):
    for k in random.sample(list(tasks), len(tasks)):
        t, out = run(k)
        times[k].append(t)
        if k[1].startswith("symbolize_1m"):
            for line in out.splitlines():
                m = re.match(r"(typical|worst case):.*total ([0-9.]+) s", line)
                if m:
                    sym_t.setdefault(k[1] + " " + m.group(1), []).append(float(m.group(2)))
print(f"{rounds} interleaved rounds, random order; whole processes; median (min) "
      "of the wall time, and of the CPU time (user + system, the program's included)")
med = statistics.median
for name in progs:
    nat, natc = times[(name, "native")], cpu[(name, "native")]
    print(f"  {name} program: native {med(nat):.3f} s ({min(nat):.3f}), "
          f"CPU {med(natc):.3f} s ({min(natc):.3f})")
    for what in ("mem --sample, cache warm", "mem --sample, cache cold",
                 "mem --sample, BEFORE"):
        v = times.get((name, what))
        if not v:
            continue
        c = cpu[(name, what)]
        print(f"    {what:26s} {med(v):.3f} s ({min(v):.3f})  "
              f"{med(v) / med(nat):.2f}x ({min(v) / min(nat):.2f}x);  CPU "
              f"{med(c):.3f} s ({min(c):.3f})  {med(c) / med(natc):.2f}x "
              f"({min(c) / min(natc):.2f}x)")
for k, v in sym_t.items():
    print(f"  {k:30s}: {statistics.median(v):.3f} s ({min(v):.3f}) "
          f"interning + symbolizing 1 M samples; target < 2 s")
PY
