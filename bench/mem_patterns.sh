#!/bin/sh
# `yardstick mem` on allocation patterns (bench/alloc_patterns.c), each run
# natively, under `yardstick mem` (exact), `yardstick mem --sample 524288`
# and heaptrack, in interleaved rounds of random order. Whole processes
# are timed (yardstick's analysis and symbolization, heaptrack's
# interpretation included). Prints the median and the minimum of each, as
# a ratio to native, and yardstick's exact time over heaptrack's: wall
# time, then (the "cpu" line) the CPU time of the whole process tree.
#   bench/mem_patterns.sh [build] [ROUNDS] [SCALE]
# SCALE multiplies every pattern's allocation count (default 1: the
# window pattern is 2 threads x 10 M allocations). With YS_BEFORE set to
# another yardstick (a build of an earlier version, its agent beside it),
# its exact `mem` is run in the same rounds too, as "mem before".
set -eu
build=${1:-build}
rounds=${2:-5}
scale=${3:-1}
ys=$build/yardstick
prog=$build/bench/alloc_patterns
for t in heaptrack python3; do
	command -v $t >/dev/null || { echo "$t is missing (scripts/deps.sh bench)" >&2; exit 2; }
done
[ -x "$prog" ] || { echo "no $prog: build first (make)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$prog" "$dir" "$rounds" "$scale" "${YS_BEFORE:-}" <<'PY'
import glob, os, random, resource, statistics, subprocess, sys, time
ys, prog, d, rounds, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
before = sys.argv[6]
n = lambda k: str(int(k * scale))
patterns = {
    "window 2x10M": ["window", "2", n(10_000_000)],
    "prodcons 2M": ["prodcons", n(2_000_000)],
    "realloc 20k": ["realloc", n(20_000)],
    "longlived 3M": ["longlived", n(3_000_000)],
    "temps 2x10M": ["temps", "2", n(10_000_000)],
    "deep 1M": ["deep", n(1_000_000)],
}
def tools(args):
    w = [prog] + args
    old = {"mem before": [before, "mem", "-q", "--no-store", "--json", f"{d}/b.json", "--"] + w} if before else {}
    return old | {
        "native": w,
        "mem": [ys, "mem", "-q", "--no-store", "--json", f"{d}/m.json", "--"] + w,
        "mem --sample": [ys, "mem", "-q", "--no-store", "--sample", "524288",
                         "--json", f"{d}/s.json", "--"] + w,
        "heaptrack": ["heaptrack", "-o", f"{d}/ht"] + w,
    }
print(f"{rounds} interleaved rounds; whole processes; median (min) as a multiple of native")
print(f"  {'pattern':14s} {'native':>8s} {'mem':>14s} {'mem --sample':>14s} {'heaptrack':>14s}  mem/heaptrack"
      + (f"  {'mem before':>14s}" if before else ""))
for name, args in patterns.items():
    ts = tools(args)
    times = {k: [] for k in ts}
    cpus = {k: [] for k in ts}
    for _ in range(rounds):
        for k in random.sample(list(ts), len(ts)):
            for f in glob.glob(f"{d}/ht*"):
                os.remove(f)
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run(ts[k], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if p.returncode:
                sys.exit(f"{ts[k]}: exit {p.returncode}: {p.stderr[-2000:]}")
            times[k].append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[k].append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    med = {k: statistics.median(v) for k, v in times.items()}
    lo = {k: min(v) for k, v in times.items()}
    cell = lambda k: f"{med[k] / med['native']:6.2f}x ({lo[k] / lo['native']:5.2f})"
    print(f"  {name:14s} {med['native']:7.3f}s {cell('mem'):>14s} {cell('mem --sample'):>14s} "
          f"{cell('heaptrack'):>14s}  {med['mem'] / med['heaptrack']:.2f}"
          + (f"           {cell('mem before'):>14s}" if before else ""), flush=True)
    # CPU time of the whole process tree (user + system): what the tools
    # cost, whatever else the machine runs at the time
    med = {k: statistics.median(v) for k, v in cpus.items()}
    lo = {k: min(v) for k, v in cpus.items()}
    print(f"  {'  cpu':14s} {med['native']:7.3f}s {cell('mem'):>14s} {cell('mem --sample'):>14s} "
          f"{cell('heaptrack'):>14s}  {med['mem'] / med['heaptrack']:.2f}"
          + (f"           {cell('mem before'):>14s}" if before else ""), flush=True)
PY
