#!/bin/sh
# The cost of heap profiling: an allocation-heavy multithreaded program
# (bench/alloc_heavy.c: THREADS x PAIRS malloc/free pairs) run natively,
# under `yardstick mem` (every allocation traced, and --sample 524288),
# under heaptrack and under valgrind's massif, interleaved in one go. Whole
# processes are timed: yardstick's analysis and symbolization included,
# heaptrack's interpretation included (heaptrack_print is not), massif's
# output included. Then the peak heap of yardstick and heaptrack compared.
#   bench/mem_overhead.sh [build] [ROUNDS] [THREADS] [PAIRS]
set -eu
build=${1:-build}
rounds=${2:-5}
threads=${3:-2}
pairs=${4:-5000000}
ys=$build/yardstick
prog=$build/bench/alloc_heavy
for t in heaptrack heaptrack_print valgrind; do
	command -v $t >/dev/null || { echo "$t is missing (scripts/deps.sh bench)" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$ys" "$prog" "$dir" "$rounds" "$threads" "$pairs" <<'PY'
import glob, json, os, random, re, statistics, subprocess, sys, time
ys, prog, d, rounds, threads, pairs = sys.argv[1:7]
rounds = int(rounds)
work = [prog, threads, pairs]
tools = {
    "native": work,
    "yardstick mem": [ys, "mem", "-q", "--no-store", "--json", f"{d}/exact.json", "--"] + work,
    "yardstick mem --sample 524288": [ys, "mem", "-q", "--no-store", "--sample", "524288",
                                      "--json", f"{d}/sampled.json", "--"] + work,
    "heaptrack": ["heaptrack", "-o", f"{d}/ht"] + work,
    "valgrind --tool=massif": ["valgrind", "--tool=massif", f"--massif-out-file={d}/massif.out"] + work,
}
times = {k: [] for k in tools}
for r in range(rounds):
    for k in random.sample(list(tools), len(tools)):
        if k == "heaptrack":
            for f in glob.glob(f"{d}/ht*"):
                os.remove(f)
        t0 = time.perf_counter()
        subprocess.run(tools[k], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[k].append(time.perf_counter() - t0)
base = statistics.median(times["native"])
print(f"{prog} {threads} {pairs}: {rounds} rounds interleaved, median wall time")
for k, v in times.items():
    m = statistics.median(v)
    print(f"  {k:32s} {m:7.3f} s  {m / base:6.2f}x native  (min/min {min(v) / min(times['native']):.2f}x)")

def metric(path, name):
    return json.load(open(path))["benchmarks"][0]["metrics"][name]["values"][0]

out = subprocess.run(["heaptrack_print", glob.glob(f"{d}/ht*")[0]], capture_output=True, text=True).stdout
m = re.search(r"peak heap memory consumption: ([0-9.]+)([KMG]?)", out)
scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
ht = float(m.group(1)) * scale[m.group(2)]
ys_peak = metric(f"{d}/exact.json", "peak_heap")
print(f"peak heap: yardstick {ys_peak:.0f} B, heaptrack {m.group(1)}{m.group(2)} "
      f"({ht:.0f} B, 3 digits): {100 * (ys_peak - ht) / ht:+.2f}%")
massif = max(int(x) for x in re.findall(r"mem_heap_B=(\d+)", open(f"{d}/massif.out").read()))
print(f"           massif {massif} B (its snapshots may miss the exact peak)")
print(f"           yardstick --sample 524288 estimate {metric(f'{d}/sampled.json', 'peak_heap'):.0f} B")
print(f"allocations: yardstick {metric(f'{d}/exact.json', 'allocations'):.0f}, "
      f"temporary {metric(f'{d}/exact.json', 'temporary_allocations'):.0f}")
PY
